// The attn CLI's int8 single-query commands: `attn run luong-dot|luong-general
// --dtype int8` and `attn run bahdanau --dtype int8` (see int8_commands.h and
// CLI.md). Weights come in the float commands' Keras layout ([in, out]) and
// are transposed here to TFLite's FULLY_CONNECTED [out, in].
#include <cmath>
#include <limits>
#include <vector>

#include "attn/bahdanau_s8.h"
#include "attn/luong_s8.h"
#include "int8_commands.h"
#include "int8_common.h"
#include "threads_flag.h"

namespace attn_cli {
namespace {

using S8QueryKeys = QueryKeys<int8_t>;

// An int8 weight [in, out] (Keras layout, dimensions already checked) as
// TFLite's FULLY_CONNECTED [out, in].
std::vector<int8_t> out_in(const S8Input& w) {
  const int64_t in = w.dim(0);
  const int64_t out = w.dim(1);
  std::vector<int8_t> t(static_cast<std::size_t>(in * out));
  for (int64_t i = 0; i < in; ++i) {
    for (int64_t o = 0; o < out; ++o) {
      t[static_cast<std::size_t>(o * in + i)] = w.data()[i * out + o];
    }
  }
  return t;
}

}  // namespace

// ------------------------------------------------------------ luong --dtype int8

void add_luong_int8_flags(CLI::App* s, LuongInt8Flags* f, bool general) {
  add_dtype_flag(s, &f->dtype);
  s->add_option("--query-quant", f->query_quant,
                "int8: quantization of the query, scale (float32 > 0) : zero point (int in "
                "[-128, 127]), e.g. 0.05:-3")
      ->type_name(kQuantFormat);
  s->add_option("--keys-quant", f->keys_quant,
                "int8: quantization of the keys (also the values of the context)")
      ->type_name(kQuantFormat);
  if (general) {
    s->add_option("--keys-proj-quant", f->keys_proj_quant,
                  "int8: quantization of the projected keys h W + b (the FULLY_CONNECTED output)")
        ->type_name(kQuantFormat);
    s->add_option("--w-scales", f->w_scales,
                  "int8: float32 .npy [Dq] per-output-channel scales of the int8 W (or one "
                  "value [1] / [] for per tensor); W's zero point is 0")
        ->type_name("FILE");
  }
  s->add_option("--scores-quant", f->scores_quant, "int8: quantization of the int8 scores")
      ->type_name(kQuantFormat);
  s->add_option("--context-quant", f->context_quant, "int8: quantization of the output context")
      ->type_name(kQuantFormat);
  s->add_option("--beta", f->beta,
                "int8: softmax beta, a positive float32 (default 1: Luong scores are unscaled)")
      ->type_name("B");
}

void reject_int8_flags(const LuongInt8Flags& f) {
  reject_flags({{"--query-quant", &f.query_quant},
                {"--keys-quant", &f.keys_quant},
                {"--keys-proj-quant", &f.keys_proj_quant},
                {"--scores-quant", &f.scores_quant},
                {"--context-quant", &f.context_quant},
                {"--beta", &f.beta},
                {"--w-scales", &f.w_scales}});
}

void run_luong_s8(const LuongFiles& files, const LuongInt8Flags& f, bool general) {
  std::vector<std::pair<const char*, const std::optional<std::string>*>> required = {
      {"--query-quant", &f.query_quant},
      {"--keys-quant", &f.keys_quant},
      {"--scores-quant", &f.scores_quant},
      {"--context-quant", &f.context_quant}};
  if (general) {
    required.push_back({"--keys-proj-quant", &f.keys_proj_quant});
    required.push_back({"--w-scales", &f.w_scales});
  }
  require_flags(required);
  attn::LuongS8Quant quant;
  quant.query = parse_quant("--query-quant", *f.query_quant);
  quant.keys = parse_quant("--keys-quant", *f.keys_quant);
  if (general) quant.keys_proj = parse_quant("--keys-proj-quant", *f.keys_proj_quant);
  quant.scores = parse_quant("--scores-quant", *f.scores_quant);
  quant.context = parse_quant("--context-quant", *f.context_quant);
  quant.beta = f.beta ? parse_positive("--beta", *f.beta) : 0.0f;

  const S8QueryKeys qk = load_query_keys<int8_t>(files.query, files.keys, "|i1");
  if (!general) require_dim(qk.keys, -1, qk.dq, "key dim", "query dim of " + qk.query.path);

  // luong-general: W int8 [Dk, Dq], scales [Dq], bias int32 [Dq].
  std::vector<int8_t> w_t;
  std::vector<float> w_scales;
  std::vector<int32_t> bias;
  if (general) {
    const std::string dq_why = "query dim Dq of " + qk.query.path;
    const S8Input w = load_s8(files.w, 2, 2);
    require_dim(w, 0, qk.dk, "rows", "key dim Dk of " + qk.keys.path);
    require_dim(w, 1, qk.dq, "columns", dq_why);
    w_t = out_in(w);
    w_scales = load_scales_file(*f.w_scales, static_cast<std::size_t>(qk.dq), dq_why);
    if (!files.b.empty()) bias = load_bias_file(files.b, qk.dq, dq_why);
  }

  attn::LuongGeneralShape shape;
  shape.batch = to_i32(qk.b);
  shape.seq = to_i32(qk.seq);
  shape.query_dim = to_i32(qk.dq);
  shape.key_dim = to_i32(qk.dk);
  ContextBuffers<int8_t> o(qk, files.out, files.probs_out, files.key_lengths);

  const char* op = general ? "luong-general" : "luong-dot";
  attn::LuongS8Params params;
  std::vector<attn::QuantizedMultiplier> storage(static_cast<std::size_t>(qk.dq));
  std::size_t scratch_bytes = 0;
  if (general) {
    attn::FcS8Weights fw;
    fw.weight = w_t.data();
    fw.scales = w_scales.data();
    fw.bias = bias.empty() ? nullptr : bias.data();
    check_status(attn::luong_general_s8_prepare(shape, quant, fw, storage.data(), &params), op);
    scratch_bytes = attn::luong_general_s8_scratch_bytes(shape, threads_workers());
  } else {
    const attn::LuongDotShape dshape{shape.batch, shape.seq, shape.key_dim};
    check_status(attn::luong_dot_s8_prepare(dshape, quant, &params), op);
    scratch_bytes = attn::luong_dot_s8_scratch_bytes(dshape, threads_workers());
  }
  auto scratch = make_scratch(scratch_bytes);
  attn::LuongS8Args args;
  args.executor = threads_executor();
  o.bind(qk, &args);
  check_status(attn::luong_s8(params, args, scratch_of(scratch)), op);
  write_s8_outputs(
      {{files.out, o.ctx_shape, o.ctx.data()}, {files.probs_out, o.p_shape, o.probs.data()}});
}

// --------------------------------------------------------- bahdanau --dtype int8

void add_bahdanau_int8_flags(CLI::App* s, BahdanauInt8Flags* f) {
  add_dtype_flag(s, &f->dtype);
  const std::pair<const char*, std::optional<std::string>*> quant[] = {
      {"--query-quant", &f->query_quant},
      {"--keys-quant", &f->keys_quant},
      {"--query-proj-quant", &f->query_proj_quant},
      {"--keys-proj-quant", &f->keys_proj_quant},
      {"--sum-quant", &f->sum_quant},
      {"--scores-quant", &f->scores_quant},
      {"--context-quant", &f->context_quant}};
  const char* what[] = {
      "int8: quantization of the query, scale (float32 > 0) : zero point (int in [-128, 127])",
      "int8: quantization of the keys (also the values of the context)",
      "int8: quantization of q W1 + b1 (the first FULLY_CONNECTED output)",
      "int8: quantization of h W2 + b2 (the second FULLY_CONNECTED output)",
      "int8: quantization of the ADD output (the TANH input)",
      "int8: quantization of the scores (the v layer's output)",
      "int8: quantization of the output context"};
  for (std::size_t i = 0; i < 7; ++i) {
    s->add_option(quant[i].first, *quant[i].second, what[i])->type_name(kQuantFormat);
  }
  s->add_option("--w1-scales", f->w1_scales,
                "int8: float32 .npy [U] per-output-channel scales of the int8 W1 (or one value)")
      ->type_name("FILE");
  s->add_option("--w2-scales", f->w2_scales,
                "int8: float32 .npy [U] per-output-channel scales of the int8 W2 (or one value)")
      ->type_name("FILE");
  s->add_option("--v-scale", f->v_scale, "int8: scale of the int8 v, a positive float32")
      ->type_name("S");
  s->add_option("--beta", f->beta, "int8: softmax beta, a positive float32 (default 1)")
      ->type_name("B");
}

void reject_int8_flags(const BahdanauInt8Flags& f) {
  reject_flags({{"--query-quant", &f.query_quant},
                {"--keys-quant", &f.keys_quant},
                {"--query-proj-quant", &f.query_proj_quant},
                {"--keys-proj-quant", &f.keys_proj_quant},
                {"--sum-quant", &f.sum_quant},
                {"--scores-quant", &f.scores_quant},
                {"--context-quant", &f.context_quant},
                {"--w1-scales", &f.w1_scales},
                {"--w2-scales", &f.w2_scales},
                {"--v-scale", &f.v_scale},
                {"--beta", &f.beta}});
}

void run_bahdanau_s8(const BahdanauFiles& files, const BahdanauInt8Flags& f) {
  require_flags({{"--query-quant", &f.query_quant},
                 {"--keys-quant", &f.keys_quant},
                 {"--query-proj-quant", &f.query_proj_quant},
                 {"--keys-proj-quant", &f.keys_proj_quant},
                 {"--sum-quant", &f.sum_quant},
                 {"--scores-quant", &f.scores_quant},
                 {"--context-quant", &f.context_quant},
                 {"--w1-scales", &f.w1_scales},
                 {"--w2-scales", &f.w2_scales},
                 {"--v-scale", &f.v_scale}});
  attn::BahdanauS8Quant quant;
  quant.query = parse_quant("--query-quant", *f.query_quant);
  quant.keys = parse_quant("--keys-quant", *f.keys_quant);
  quant.query_proj = parse_quant("--query-proj-quant", *f.query_proj_quant);
  quant.keys_proj = parse_quant("--keys-proj-quant", *f.keys_proj_quant);
  quant.sum = parse_quant("--sum-quant", *f.sum_quant);
  quant.scores = parse_quant("--scores-quant", *f.scores_quant);
  quant.context = parse_quant("--context-quant", *f.context_quant);
  quant.beta = f.beta ? parse_positive("--beta", *f.beta) : 0.0f;
  const float v_scale = parse_positive("--v-scale", *f.v_scale);
  if (!(std::floor(files.bv) == files.bv) || std::fabs(files.bv) > 2147483647.0) {
    throw CliError("--bv must be an int32 integer with --dtype int8 (the v layer's int32 bias)");
  }

  const S8QueryKeys qk = load_query_keys<int8_t>(files.query, files.keys, "|i1");
  // W1 [Dq, U] fixes U; W2 [Dk, U]; v [U] or [U, 1]; biases int32 [U].
  const S8Input w1_file = load_s8(files.w1, 2, 2);
  require_dim(w1_file, 0, qk.dq, "rows", "query dim Dq of " + qk.query.path);
  const int64_t units = w1_file.dim(1);
  const std::string u_why = "units U of " + files.w1;
  const S8Input w2_file = load_s8(files.w2, 2, 2);
  require_dim(w2_file, 0, qk.dk, "rows", "key dim Dk of " + qk.keys.path);
  require_dim(w2_file, 1, units, "columns", u_why);
  const std::vector<int8_t> w1 = out_in(w1_file);
  const std::vector<int8_t> w2 = out_in(w2_file);
  const S8Input v = load_s8(files.v, 1, 2);
  require_dim(v, 0, units, "length", u_why);
  if (v.rank() == 2) require_dim(v, 1, 1, "columns", "v is [U] or [U, 1]");
  const auto u = static_cast<std::size_t>(units);
  const std::vector<float> w1_scales = load_scales_file(*f.w1_scales, u, u_why);
  const std::vector<float> w2_scales = load_scales_file(*f.w2_scales, u, u_why);
  std::vector<int32_t> b1, b2;
  if (!files.b1.empty()) b1 = load_bias_file(files.b1, units, u_why);
  if (!files.b2.empty()) b2 = load_bias_file(files.b2, units, u_why);
  const auto bv = static_cast<int32_t>(files.bv);

  attn::BahdanauS8Weights w;
  w.w1 = {w1.data(), w1_scales.data(), b1.empty() ? nullptr : b1.data()};
  w.w2 = {w2.data(), w2_scales.data(), b2.empty() ? nullptr : b2.data()};
  w.v = {v.data(), &v_scale, &bv};

  attn::BahdanauShape shape;
  shape.batch = to_i32(qk.b);
  shape.seq = to_i32(qk.seq);
  shape.query_dim = to_i32(qk.dq);
  shape.key_dim = to_i32(qk.dk);
  shape.units = to_i32(units);
  ContextBuffers<int8_t> o(qk, files.out, files.probs_out, files.key_lengths);

  std::vector<attn::QuantizedMultiplier> storage(attn::bahdanau_s8_channel_count(shape));
  attn::BahdanauS8Params params;
  check_status(attn::bahdanau_s8_prepare(shape, quant, w, storage.data(), &params), "bahdanau");
  auto scratch = make_scratch(attn::bahdanau_s8_scratch_bytes(shape, threads_workers()));
  attn::BahdanauS8Args args;
  args.executor = threads_executor();
  o.bind(qk, &args);
  check_status(attn::bahdanau_s8(params, args, scratch_of(scratch)), "bahdanau");
  write_s8_outputs(
      {{files.out, o.ctx_shape, o.ctx.data()}, {files.probs_out, o.p_shape, o.probs.data()}});
}

}  // namespace attn_cli
