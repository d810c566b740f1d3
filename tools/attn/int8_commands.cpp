// The attn CLI's int8 commands: `attn run softmax-s8`, `attn run sdpa
// --dtype int8` and `attn run mha --dtype int8` (see int8_commands.h and
// CLI.md); luong and bahdanau are in context_s8_commands.cpp.
//
// Same discipline as the float commands: every input is loaded and checked
// before the op runs, outputs are written only after it succeeded, and every
// error is one line naming the file or flag (exit code 2).
#include "int8_commands.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <vector>

#include "attn/mha_s8.h"
#include "attn/sdpa_s8.h"
#include "attn/softmax_s8.h"
#include "int8_common.h"
#include "threads_flag.h"

namespace attn_cli {
namespace {

// sdpa_s8 masks a key with an additive value of 0 only when it is -inf or
// <= -1e9; anything else cannot be expressed in the int8 op sequence. Say so
// naming the file rather than reporting the engine's kUnsupported.
void check_additive_s8(const std::string& path, const std::vector<float>& additive) {
  for (std::size_t i = 0; i < additive.size(); ++i) {
    const float a = additive[i];
    if (!(a == 0.0f || a <= -1e9f)) {
      throw CliError(path +
                     ": int8 sdpa takes additive mask values 0 (keep) or -inf / <= -1e9 "
                     "(masked) only; got " +
                     f32_str(a) + " at flat index " + std::to_string(i));
    }
  }
}

// ------------------------------------------------------------ softmax-s8

struct SoftmaxS8Flags {
  std::string input, out, input_scale, beta = "1";
};

void run_softmax_s8(const SoftmaxS8Flags& f) {
  const float input_scale = parse_positive("--input-scale", f.input_scale);
  const float beta = parse_positive("--beta", f.beta);
  const S8Input x = load_s8(f.input, 1, 32);
  const int64_t cols = x.dim(-1);
  int64_t rows = 1;
  for (int i = 0; i + 1 < x.rank(); ++i) {
    rows *= x.dim(i);
    if (rows > std::numeric_limits<int32_t>::max()) {
      throw CliError(x.path + ": more than 2^31 - 1 rows in shape " +
                     attn_npy::shape_str(x.array.shape));
    }
  }
  std::vector<int8_t> out(output_count(x.array.shape, f.out));
  attn::SoftmaxS8Params params;
  check_status(attn::softmax_s8_prepare(input_scale, beta, &params), "softmax-s8");
  check_status(attn::softmax_s8({static_cast<int32_t>(rows), static_cast<int32_t>(cols)}, params,
                                {x.data(), out.data()}),
               "softmax-s8");
  write_s8_outputs({{f.out, x.array.shape, out.data()}});
}

}  // namespace

// ------------------------------------------------------------ sdpa --dtype int8

void add_sdpa_int8_flags(CLI::App* s, SdpaInt8Flags* f) {
  add_dtype_flag(s, &f->dtype);
  const char* fmt = kQuantFormat;
  s->add_option("--q-quant", f->q_quant,
                "int8: quantization of Q, scale (float32 > 0) : zero point "
                "(int in [-128, 127]), e.g. 0.05:-3")
      ->type_name(fmt);
  s->add_option("--k-quant", f->k_quant, "int8: quantization of K")->type_name(fmt);
  s->add_option("--v-quant", f->v_quant, "int8: quantization of V")->type_name(fmt);
  s->add_option("--scores-quant", f->scores_quant,
                "int8: quantization of the int8 scores Q K^T (the softmax input)")
      ->type_name(fmt);
  s->add_option("--out-quant", f->out_quant, "int8: quantization of the output O")->type_name(fmt);
  s->add_option("--beta", f->beta,
                "int8: softmax beta (the attention scale folded into the softmax), a positive "
                "float32; default (float)(1/sqrt(Dk))")
      ->type_name("B");
}

void reject_int8_flags(const SdpaInt8Flags& f) {
  const std::pair<const char*, const std::optional<std::string>*> int8_only[] = {
      {"--q-quant", &f.q_quant},           {"--k-quant", &f.k_quant},     {"--v-quant", &f.v_quant},
      {"--scores-quant", &f.scores_quant}, {"--out-quant", &f.out_quant}, {"--beta", &f.beta}};
  for (const auto& [name, value] : int8_only) {
    if (value->has_value()) {
      throw CliError(std::string(name) + " needs --dtype int8 (float32 sdpa takes --scale)");
    }
  }
}

void run_sdpa_s8(const SdpaFiles& files, const SdpaInt8Flags& f) {
  if (files.scale_given) {
    throw CliError("--scale is for --dtype f32; int8 sdpa takes --beta (the softmax beta)");
  }
  require_flags({{"--q-quant", &f.q_quant},
                 {"--k-quant", &f.k_quant},
                 {"--v-quant", &f.v_quant},
                 {"--scores-quant", &f.scores_quant},
                 {"--out-quant", &f.out_quant}});
  attn::SdpaS8Quant quant;
  quant.q = parse_quant("--q-quant", *f.q_quant);
  quant.k = parse_quant("--k-quant", *f.k_quant);
  quant.v = parse_quant("--v-quant", *f.v_quant);
  quant.scores = parse_quant("--scores-quant", *f.scores_quant);
  quant.out = parse_quant("--out-quant", *f.out_quant);
  quant.beta = f.beta ? parse_positive("--beta", *f.beta) : 0.0f;

  const SdpaInputs<int8_t> in = load_sdpa_inputs<int8_t>(files.q, files.k, files.v, "|i1");
  const attn::SdpaShape& shape = in.shape;
  const bool batched = in.batched;
  const int64_t b = shape.batch;
  const LoadedMask mask = load_masks(files.masks, shape.batch, shape.seq_q, shape.seq_kv);
  check_additive_s8(files.masks.additive_path, mask.additive);

  const auto out_shape = batched_shape(batched, b, {shape.seq_q, shape.dim_v});
  const auto p_shape = batched_shape(batched, b, {shape.seq_q, shape.seq_kv});
  std::vector<int8_t> out(output_count(out_shape, files.out));
  std::vector<int8_t> probs;
  if (!files.probs_out.empty()) probs.resize(output_count(p_shape, files.probs_out));

  attn::SdpaS8Params params;
  check_status(attn::sdpa_s8_prepare(shape, quant, &params), "sdpa");
  auto scratch = make_scratch(attn::sdpa_s8_scratch_bytes(shape, threads_workers()));
  attn::SdpaS8Args args;
  args.executor = threads_executor();
  args.q = in.q.data();
  args.k = in.k.data();
  args.v = in.v.data();
  args.out = out.data();
  args.probs = probs.empty() ? nullptr : probs.data();
  args.mask = mask.mask();
  check_status(attn::sdpa_s8(params, args, scratch_of(scratch)), "sdpa");
  write_s8_outputs({{files.out, out_shape, out.data()}, {files.probs_out, p_shape, probs.data()}});
}

// ------------------------------------------------------------ mha --dtype int8

void add_mha_int8_flags(CLI::App* s, MhaInt8Flags* f) {
  s->add_option("--dtype", f->dtype,
                "f32 (default): float32 inputs, weights and outputs; int8: TFLite-exact int8 "
                "MHA (int8 .npy in and out, int8 weights with per-channel scales and int32 "
                "biases in --weights, needs the --*-quant flags)")
      ->type_name("f32|int8")
      ->check(CLI::IsMember({"f32", "int8"}).description(""));
  const char* fmt = kQuantFormat;
  const std::pair<const char*, std::optional<std::string>*> quant[] = {
      {"--query-quant", &f->query_quant},   {"--key-quant", &f->key_quant},
      {"--value-quant", &f->value_quant},   {"--q-quant", &f->q_quant},
      {"--k-quant", &f->k_quant},           {"--v-quant", &f->v_quant},
      {"--scores-quant", &f->scores_quant}, {"--attn-quant", &f->attn_quant},
      {"--out-quant", &f->out_quant}};
  const char* what[] = {
      ("int8: quantization of the query input, scale (float32 > 0) : zero point (int in "
       "[-128, 127]), e.g. 0.05:-3"),
      "int8: quantization of the --kv input (default: --query-quant)",
      "int8: quantization of the --value input (default: --key-quant)",
      "int8: quantization of the projected queries Q",
      "int8: quantization of the projected keys K",
      "int8: quantization of the projected values V",
      "int8: quantization of the int8 scores Q_h K_h^T (every head)",
      "int8: quantization of the concatenated head outputs (the out projection's input)",
      "int8: quantization of the output"};
  for (std::size_t i = 0; i < sizeof quant / sizeof quant[0]; ++i) {
    s->add_option(quant[i].first, *quant[i].second, what[i])->type_name(fmt);
  }
  s->add_option("--beta", f->beta,
                "int8: softmax beta, a positive float32; default (float)(1/sqrt(E/H))")
      ->type_name("B");
}

void reject_int8_flags(const MhaInt8Flags& f) {
  reject_flags({{"--query-quant", &f.query_quant},
                {"--key-quant", &f.key_quant},
                {"--value-quant", &f.value_quant},
                {"--q-quant", &f.q_quant},
                {"--k-quant", &f.k_quant},
                {"--v-quant", &f.v_quant},
                {"--scores-quant", &f.scores_quant},
                {"--attn-quant", &f.attn_quant},
                {"--out-quant", &f.out_quant},
                {"--beta", &f.beta}});
}

namespace {

// DIR/<name> int8 with exactly `shape`.
S8Input load_s8_weight(const std::string& dir, const std::string& name,
                       const std::vector<int64_t>& shape, const std::string& why) {
  const std::string path = join_path(dir, name);
  if (!file_exists(path)) throw CliError(path + ": missing (" + why + ")");
  const int r = static_cast<int>(shape.size());
  S8Input w = load_s8(path, r, r);
  if (w.array.shape != shape) {
    throw CliError(path + ": shape " + attn_npy::shape_str(w.array.shape) + ", expected " +
                   attn_npy::shape_str(shape) + " (" + why + ")");
  }
  return w;
}

// DIR/<name> float32 scales (see load_scales_file), which must exist.
std::vector<float> load_scales(const std::string& dir, const std::string& name, std::size_t count,
                               const std::string& why) {
  const std::string path = join_path(dir, name);
  if (!file_exists(path)) throw CliError(path + ": missing (" + why + ")");
  return load_scales_file(path, count, why);
}

// DIR/<name> int32 [count] (see load_bias_file) if present.
std::vector<int32_t> load_bias(const std::string& dir, const std::string& name, int64_t count) {
  const std::string path = join_path(dir, name);
  if (!file_exists(path)) return {};
  return load_bias_file(path, count, name);
}

}  // namespace

void run_mha_s8(const MhaFiles& files, const MhaInt8Flags& f) {
  require_flags({{"--query-quant", &f.query_quant},
                 {"--q-quant", &f.q_quant},
                 {"--k-quant", &f.k_quant},
                 {"--v-quant", &f.v_quant},
                 {"--scores-quant", &f.scores_quant},
                 {"--attn-quant", &f.attn_quant},
                 {"--out-quant", &f.out_quant}});
  if (files.kv.empty() && (f.key_quant || f.value_quant)) {
    throw CliError(std::string(f.key_quant ? "--key-quant" : "--value-quant") +
                   " needs --kv (self-attention uses --query-quant for keys and values)");
  }
  if (!files.probs_out.empty() && !files.per_head) {
    throw CliError(
        "--probs-out with --dtype int8 needs --per-head-probs (int8 probabilities are "
        "the per-head softmax codes [B,H,Sq,Skv]; they are not averaged)");
  }
  attn::MhaS8Quant quant;
  quant.query = parse_quant("--query-quant", *f.query_quant);
  quant.key = f.key_quant ? parse_quant("--key-quant", *f.key_quant) : quant.query;
  quant.value = f.value_quant ? parse_quant("--value-quant", *f.value_quant) : quant.key;
  quant.q = parse_quant("--q-quant", *f.q_quant);
  quant.k = parse_quant("--k-quant", *f.k_quant);
  quant.v = parse_quant("--v-quant", *f.v_quant);
  quant.scores = parse_quant("--scores-quant", *f.scores_quant);
  quant.attn = parse_quant("--attn-quant", *f.attn_quant);
  quant.out = parse_quant("--out-quant", *f.out_quant);
  quant.beta = f.beta ? parse_positive("--beta", *f.beta) : 0.0f;

  const MhaInputs in = load_mha_inputs(files.query, files.kv, files.value, files.heads, "|i1");
  const S8Input x{in.query};
  const S8Input key{in.key};
  const S8Input value{in.value};
  const bool batched = in.batched;
  const int64_t b = in.batch;
  const int64_t e = x.dim(-1);
  const int64_t kdim = key.dim(-1);
  const int64_t vdim = value.dim(-1);

  // Weights: PyTorch state_dict names, int8 [out, in] (TFLite's FULLY_CONNECTED
  // layout), float32 per-output-channel scales, optional int32 biases.
  const std::string& dir = files.weights_dir;
  const auto E = static_cast<std::size_t>(e);
  const std::string in_path = join_path(dir, "in_proj_weight.npy");
  const bool packed = file_exists(in_path) && !file_exists(join_path(dir, "q_proj_weight.npy"));
  S8Input in_w, q_w, k_w, v_w;
  std::vector<float> in_s, q_s, k_s, v_s;
  attn::MhaS8Weights w;
  if (packed) {
    if (kdim != e || vdim != e) {
      throw CliError(in_path + ": packed projection needs key/value dims equal to the embed dim " +
                     std::to_string(e) + " (got " + std::to_string(kdim) + ", " +
                     std::to_string(vdim) + "); give q/k/v_proj_weight.npy instead");
    }
    in_w = load_s8_weight(dir, "in_proj_weight.npy", {3 * e, e}, "int8 [3E, E]");
    in_s = load_scales(dir, "in_proj_scales.npy", 3 * E, "scales of in_proj_weight, [3E]");
    w.q.weight = in_w.data();
    w.k.weight = in_w.data() + E * E;
    w.v.weight = in_w.data() + 2 * E * E;
    w.q.scales = in_s.data();
    w.k.scales = in_s.data() + E;
    w.v.scales = in_s.data() + 2 * E;
  } else {
    if (!file_exists(join_path(dir, "q_proj_weight.npy")) && !file_exists(in_path)) {
      throw CliError(dir +
                     ": holds neither in_proj_weight.npy nor q_proj_weight.npy, "
                     "k_proj_weight.npy, v_proj_weight.npy");
    }
    q_w = load_s8_weight(dir, "q_proj_weight.npy", {e, e}, "int8 [E, E]");
    k_w = load_s8_weight(dir, "k_proj_weight.npy", {e, kdim}, "int8 [E, kdim]");
    v_w = load_s8_weight(dir, "v_proj_weight.npy", {e, vdim}, "int8 [E, vdim]");
    q_s = load_scales(dir, "q_proj_scales.npy", E, "scales of q_proj_weight, [E]");
    k_s = load_scales(dir, "k_proj_scales.npy", E, "scales of k_proj_weight, [E]");
    v_s = load_scales(dir, "v_proj_scales.npy", E, "scales of v_proj_weight, [E]");
    w.q = {q_w.data(), q_s.data(), nullptr};
    w.k = {k_w.data(), k_s.data(), nullptr};
    w.v = {v_w.data(), v_s.data(), nullptr};
  }
  const std::vector<int32_t> in_b = load_bias(dir, "in_proj_bias.npy", 3 * e);
  if (!in_b.empty()) {
    w.q.bias = in_b.data();
    w.k.bias = in_b.data() + E;
    w.v.bias = in_b.data() + 2 * E;
  }
  const S8Input out_w = load_s8_weight(dir, "out_proj.weight.npy", {e, e}, "int8 [E, E]");
  const std::vector<float> out_s =
      load_scales(dir, "out_proj.scales.npy", E, "scales of out_proj.weight, [E]");
  w.out.weight = out_w.data();
  w.out.scales = out_s.data();
  const std::vector<int32_t> out_b = load_bias(dir, "out_proj.bias.npy", e);
  if (!out_b.empty()) w.out.bias = out_b.data();

  attn::MhaShape shape;
  shape.batch = to_i32(b);
  shape.seq_q = to_i32(x.dim(-2));
  shape.seq_kv = to_i32(key.dim(-2));
  shape.embed_dim = to_i32(e);
  shape.num_heads = files.heads;
  shape.kdim = to_i32(kdim);
  shape.vdim = to_i32(vdim);
  const LoadedMask mask = load_masks(files.masks, shape.batch, shape.seq_q, shape.seq_kv);
  check_additive_s8(files.masks.additive_path, mask.additive);

  const auto out_shape = batched_shape(batched, b, {shape.seq_q, e});
  const auto p_shape = batched_shape(batched, b, {files.heads, shape.seq_q, shape.seq_kv});
  std::vector<int8_t> out(output_count(out_shape, files.out));
  std::vector<int8_t> probs;
  if (!files.probs_out.empty()) probs.resize(output_count(p_shape, files.probs_out));

  std::vector<attn::QuantizedMultiplier> channels(attn::mha_s8_channel_count(shape));
  attn::MhaS8Params params;
  check_status(attn::mha_s8_prepare(shape, quant, w, channels.data(), &params), "mha");
  auto scratch = make_scratch(attn::mha_s8_scratch_bytes(shape, threads_workers()));
  attn::MhaS8Args args;
  args.executor = threads_executor();
  args.query = x.data();
  args.key = key.data();
  args.value = value.data();
  args.out = out.data();
  args.probs = probs.empty() ? nullptr : probs.data();
  args.mask = mask.mask();
  check_status(attn::mha_s8(params, args, scratch_of(scratch)), "mha");
  write_s8_outputs({{files.out, out_shape, out.data()}, {files.probs_out, p_shape, probs.data()}});
}

void add_softmax_s8(CLI::App* s, Runner* runner) {
  auto f = std::make_shared<SoftmaxS8Flags>();
  s->add_option("--input", f->input,
                "int8 .npy input [rows, cols] (any rank >= 1; the softmax "
                "runs over the last axis, at most 4095 long)")
      ->required()
      ->type_name("FILE");
  s->add_option("--input-scale", f->input_scale, "scale of the input, a positive float32")
      ->required()
      ->type_name("S");
  s->add_option("--beta", f->beta, "softmax beta, a positive float32 (default 1)")->type_name("B");
  s->add_option("--out", f->out, "output int8 .npy, same shape as the input")
      ->required()
      ->type_name("FILE");
  s->callback([f, runner] { *runner = [f] { run_softmax_s8(*f); }; });
}

}  // namespace attn_cli
