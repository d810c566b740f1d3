// The attn CLI's int8 commands: `attn run softmax-s8` and `attn run sdpa
// --dtype int8` (see int8_commands.h and CLI.md).
//
// Same discipline as the float commands: every input is loaded and checked
// before the op runs, outputs are written only after it succeeded, and every
// error is one line naming the file or flag (exit code 2).
#include "int8_commands.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <vector>

#include "attn/luong_s8.h"
#include "attn/sdpa_s8.h"
#include "attn/softmax_s8.h"

namespace attn_cli {
namespace {

// ------------------------------------------------------------ parsing

std::string quoted(const std::string& s) { return "'" + s + "'"; }

// Parses a float32 (strtof: decimal or hex literal, no surrounding text).
bool parse_f32(const std::string& text, float* out) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  char* end = nullptr;
  errno = 0;
  const float v = std::strtof(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return false;
  *out = v;
  return true;
}

std::string f32_str(float v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  return buf;
}

// A positive finite float32 given as `flag text`.
float parse_positive(const std::string& flag, const std::string& text) {
  float v = 0.0f;
  if (!parse_f32(text, &v)) {
    throw CliError(flag + " " + quoted(text) + " is not a number");
  }
  if (!(v > 0.0f) || std::isinf(v)) {
    throw CliError(flag + " " + quoted(text) + " is not a positive finite float32 number (it is " +
                   f32_str(v) + " as float32)");
  }
  return v;
}

// "S:Z": S a positive finite float32, Z an integer in [-128, 127].
attn::QuantParams parse_quant(const std::string& flag, const std::string& text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos || text.find(':', colon + 1) != std::string::npos) {
    throw CliError(flag + " " + quoted(text) +
                   " is not SCALE:ZERO_POINT (e.g. 0.05:-3)");
  }
  const std::string s = text.substr(0, colon);
  const std::string z = text.substr(colon + 1);
  attn::QuantParams p;
  if (!parse_f32(s, &p.scale)) {
    throw CliError(flag + " " + quoted(text) + ": scale " + quoted(s) + " is not a number");
  }
  if (!(p.scale > 0.0f) || std::isinf(p.scale)) {
    throw CliError(flag + " " + quoted(text) + ": scale " + quoted(s) +
                   " is not a positive finite float32 number (it is " + f32_str(p.scale) +
                   " as float32)");
  }
  if (z.empty() || std::isspace(static_cast<unsigned char>(z[0]))) {
    throw CliError(flag + " " + quoted(text) + ": zero point " + quoted(z) +
                   " is not an integer");
  }
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(z.c_str(), &end, 10);
  if (end != z.c_str() + z.size()) {
    throw CliError(flag + " " + quoted(text) + ": zero point " + quoted(z) +
                   " is not an integer");
  }
  if (errno == ERANGE || v < -128 || v > 127) {
    throw CliError(flag + " " + quoted(text) + ": zero point " + z +
                   " is outside [-128, 127]");
  }
  p.zero_point = static_cast<int32_t>(v);
  return p;
}

// ------------------------------------------------------------ int8 files

struct S8Input {
  std::string path;
  attn_npy::Array array;
  const int8_t* data() const { return array.as<int8_t>(); }
  int rank() const { return static_cast<int>(array.shape.size()); }
  int64_t dim(int axis) const {
    const int i = axis < 0 ? rank() + axis : axis;
    return array.shape[static_cast<std::size_t>(i)];
  }
};

S8Input load_s8(const std::string& path, int min_rank, int max_rank) {
  S8Input in;
  in.path = path;
  std::string err;
  if (!attn_npy::load(path, &in.array, &err) ||
      !attn_npy::expect(in.array, path, "|i1", min_rank, max_rank, &err)) {
    throw CliError(err);
  }
  for (const int64_t d : in.array.shape) {
    if (d <= 0) {
      throw CliError(path + ": zero-sized dimension in shape " +
                     attn_npy::shape_str(in.array.shape));
    }
    if (d > std::numeric_limits<int32_t>::max()) {
      throw CliError(path + ": dimension too large in shape " +
                     attn_npy::shape_str(in.array.shape));
    }
  }
  return in;
}

void require_dim(const S8Input& a, int axis, int64_t want, const std::string& what,
                 const std::string& why) {
  const int64_t got = a.dim(axis);
  if (got != want) {
    throw CliError(a.path + ": " + what + " is " + std::to_string(got) + ", expected " +
                   std::to_string(want) + " (" + why + "); shape " +
                   attn_npy::shape_str(a.array.shape));
  }
}

void require_same_rank(const S8Input& a, const S8Input& ref) {
  if (a.rank() != ref.rank()) {
    throw CliError(a.path + ": rank " + std::to_string(a.rank()) + " but " + ref.path +
                   " has rank " + std::to_string(ref.rank()) +
                   " (all must be batched or all unbatched)");
  }
}

struct S8Output {
  std::string path;
  std::vector<int64_t> shape;
  const int8_t* data;
};

// Writes every output with a path as int8 (|i1); on a failure removes the
// ones already written, so an error leaves no output file.
void write_s8_outputs(const std::vector<S8Output>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (!outputs[i].path.empty() && outputs[i].path == outputs[j].path) {
        throw CliError(outputs[i].path + ": given as two different outputs");
      }
    }
  }
  std::vector<std::string> written;
  for (const S8Output& o : outputs) {
    if (o.path.empty()) continue;
    std::string err;
    if (!attn_npy::save(o.path, "|i1", o.shape, o.data, &err)) {
      for (const std::string& w : written) std::remove(w.c_str());
      throw CliError(err);
    }
    written.push_back(o.path);
  }
}

std::vector<int64_t> shape_of(bool batched, int64_t b, std::vector<int64_t> rest) {
  if (batched) rest.insert(rest.begin(), b);
  return rest;
}

// sdpa_s8 masks a key with an additive value of 0 only when it is -inf or
// <= -1e9; anything else cannot be expressed in the int8 op sequence. Say so
// naming the file rather than reporting the engine's kUnsupported.
void check_additive_s8(const std::string& path, const std::vector<float>& additive) {
  for (std::size_t i = 0; i < additive.size(); ++i) {
    const float a = additive[i];
    if (!(a == 0.0f || a <= -1e9f)) {
      throw CliError(path + ": int8 sdpa takes additive mask values 0 (keep) or -inf / <= -1e9 "
                            "(masked) only; got " + f32_str(a) + " at flat index " +
                     std::to_string(i));
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
  check_status(attn::softmax_s8(params, static_cast<int32_t>(rows), static_cast<int32_t>(cols),
                                x.data(), out.data()),
               "softmax-s8");
  write_s8_outputs({{f.out, x.array.shape, out.data()}});
}

}  // namespace

// ------------------------------------------------------------ sdpa --dtype int8

void add_sdpa_int8_flags(CLI::App* s, SdpaInt8Flags* f) {
  s->add_option("--dtype", f->dtype,
                "f32 (default): float32 inputs and outputs; int8: TFLite-exact int8 attention "
                "(int8 .npy in and out, needs the --*-quant flags)")
      ->type_name("f32|int8")
      ->check(CLI::IsMember({"f32", "int8"}).description(""));
  const char* fmt = "SCALE:ZERO_POINT";
  s->add_option("--q-quant", f->q_quant, "int8: quantization of Q, scale (float32 > 0) : zero point "
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
      {"--q-quant", &f.q_quant},           {"--k-quant", &f.k_quant},
      {"--v-quant", &f.v_quant},           {"--scores-quant", &f.scores_quant},
      {"--out-quant", &f.out_quant},       {"--beta", &f.beta}};
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
  const std::pair<const char*, const std::optional<std::string>*> required[] = {
      {"--q-quant", &f.q_quant},           {"--k-quant", &f.k_quant},
      {"--v-quant", &f.v_quant},           {"--scores-quant", &f.scores_quant},
      {"--out-quant", &f.out_quant}};
  for (const auto& [name, value] : required) {
    if (!value->has_value()) throw CliError(std::string(name) + " is required with --dtype int8");
  }
  attn::SdpaS8Quant quant;
  quant.q = parse_quant("--q-quant", *f.q_quant);
  quant.k = parse_quant("--k-quant", *f.k_quant);
  quant.v = parse_quant("--v-quant", *f.v_quant);
  quant.scores = parse_quant("--scores-quant", *f.scores_quant);
  quant.out = parse_quant("--out-quant", *f.out_quant);
  quant.beta = f.beta ? parse_positive("--beta", *f.beta) : 0.0f;

  const S8Input q = load_s8(files.q, 2, 3);
  const S8Input k = load_s8(files.k, 2, 3);
  const S8Input v = load_s8(files.v, 2, 3);
  require_same_rank(k, q);
  require_same_rank(v, q);
  const bool batched = q.rank() == 3;
  const int64_t b = batched ? q.dim(0) : 1;
  if (batched) {
    require_dim(k, 0, b, "batch", "batch of " + q.path);
    require_dim(v, 0, b, "batch", "batch of " + q.path);
  }
  require_dim(k, -1, q.dim(-1), "Dk", "last dimension of " + q.path);
  require_dim(v, -2, k.dim(-2), "Skv", "sequence length of " + k.path);
  attn::SdpaShape shape;
  shape.batch = to_i32(b);
  shape.seq_q = to_i32(q.dim(-2));
  shape.seq_kv = to_i32(k.dim(-2));
  shape.dim_k = to_i32(q.dim(-1));
  shape.dim_v = to_i32(v.dim(-1));
  const LoadedMask mask = load_masks(files.masks, shape.batch, shape.seq_q, shape.seq_kv);
  check_additive_s8(files.masks.additive_path, mask.additive);

  const auto out_shape = shape_of(batched, b, {shape.seq_q, shape.dim_v});
  const auto w_shape = shape_of(batched, b, {shape.seq_q, shape.seq_kv});
  std::vector<int8_t> out(output_count(out_shape, files.out));
  std::vector<int8_t> weights;
  if (!files.weights_out.empty()) weights.resize(output_count(w_shape, files.weights_out));

  attn::SdpaS8Params params;
  check_status(attn::sdpa_s8_prepare(shape, quant, &params), "sdpa");
  auto scratch = make_scratch(attn::sdpa_s8_scratch_bytes(shape));
  attn::SdpaS8Args args;
  args.q = q.data();
  args.k = k.data();
  args.v = v.data();
  args.out = out.data();
  args.weights = weights.empty() ? nullptr : weights.data();
  args.mask = mask.mask();
  check_status(attn::sdpa_s8(params, args, scratch_of(scratch)), "sdpa");
  write_s8_outputs({{files.out, out_shape, out.data()}, {files.weights_out, w_shape, weights.data()}});
}

// ------------------------------------------------------------ luong --dtype int8

void add_luong_int8_flags(CLI::App* s, LuongInt8Flags* f, bool general) {
  s->add_option("--dtype", f->dtype,
                "f32 (default): float32 inputs and outputs; int8: TFLite-exact int8 attention "
                "(int8 .npy in and out, needs the --*-quant flags)")
      ->type_name("f32|int8")
      ->check(CLI::IsMember({"f32", "int8"}).description(""));
  const char* fmt = "SCALE:ZERO_POINT";
  s->add_option("--query-quant", f->query_quant,
                "int8: quantization of the query, scale (float32 > 0) : zero point (int in "
                "[-128, 127]), e.g. 0.05:-3")
      ->type_name(fmt);
  s->add_option("--keys-quant", f->keys_quant,
                "int8: quantization of the keys (also the values of the context)")
      ->type_name(fmt);
  if (general) {
    s->add_option("--keys-proj-quant", f->keys_proj_quant,
                  "int8: quantization of the projected keys h W + b (the FULLY_CONNECTED output)")
        ->type_name(fmt);
    s->add_option("--w-scales", f->w_scales,
                  "int8: float32 .npy [Dq] per-output-channel scales of the int8 W (or one "
                  "value [1] / [] for per tensor); W's zero point is 0")
        ->type_name("FILE");
  }
  s->add_option("--scores-quant", f->scores_quant, "int8: quantization of the int8 scores")
      ->type_name(fmt);
  s->add_option("--context-quant", f->context_quant, "int8: quantization of the output context")
      ->type_name(fmt);
  s->add_option("--beta", f->beta,
                "int8: softmax beta, a positive float32 (default 1: Luong scores are unscaled)")
      ->type_name("B");
}

void reject_int8_flags(const LuongInt8Flags& f) {
  const std::pair<const char*, const std::optional<std::string>*> int8_only[] = {
      {"--query-quant", &f.query_quant},         {"--keys-quant", &f.keys_quant},
      {"--keys-proj-quant", &f.keys_proj_quant}, {"--scores-quant", &f.scores_quant},
      {"--context-quant", &f.context_quant},     {"--beta", &f.beta},
      {"--w-scales", &f.w_scales}};
  for (const auto& [name, value] : int8_only) {
    if (value->has_value()) throw CliError(std::string(name) + " needs --dtype int8");
  }
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
  for (const auto& [name, value] : required) {
    if (!value->has_value()) throw CliError(std::string(name) + " is required with --dtype int8");
  }
  attn::LuongS8Quant quant;
  quant.query = parse_quant("--query-quant", *f.query_quant);
  quant.keys = parse_quant("--keys-quant", *f.keys_quant);
  if (general) quant.keys_proj = parse_quant("--keys-proj-quant", *f.keys_proj_quant);
  quant.scores = parse_quant("--scores-quant", *f.scores_quant);
  quant.context = parse_quant("--context-quant", *f.context_quant);
  quant.beta = f.beta ? parse_positive("--beta", *f.beta) : 0.0f;

  const S8Input query = load_s8(files.query, 1, 2);
  const S8Input keys = load_s8(files.keys, 2, 3);
  const bool batched = query.rank() == 2;
  if (keys.rank() != query.rank() + 1) {
    throw CliError(keys.path + ": rank " + std::to_string(keys.rank()) + ", expected " +
                   std::to_string(query.rank() + 1) + " for query " + query.path + " of rank " +
                   std::to_string(query.rank()) +
                   " (query [B,D] with keys [B,T,D], or [D] with [T,D])");
  }
  const int64_t b = batched ? query.dim(0) : 1;
  if (batched) require_dim(keys, 0, b, "batch", "batch of " + query.path);
  const int64_t seq = keys.dim(-2);
  const int64_t dq = query.dim(-1);
  const int64_t dk = keys.dim(-1);
  if (!general) require_dim(keys, -1, dq, "key dim", "query dim of " + query.path);

  // luong-general: W int8 [Dk, Dq] (the float op's Keras layout), transposed
  // to TFLite's FULLY_CONNECTED [out = Dq, in = Dk]; scales [Dq]; bias int32 [Dq].
  std::vector<int8_t> w_t;
  std::vector<float> w_scales;
  std::vector<int32_t> bias;
  if (general) {
    const S8Input w = load_s8(files.w, 2, 2);
    require_dim(w, 0, dk, "rows", "key dim Dk of " + keys.path);
    require_dim(w, 1, dq, "columns", "query dim Dq of " + query.path);
    w_t.resize(static_cast<std::size_t>(dq * dk));
    for (int64_t i = 0; i < dk; ++i) {
      for (int64_t j = 0; j < dq; ++j) {
        w_t[static_cast<std::size_t>(j * dk + i)] = w.data()[i * dq + j];
      }
    }
    attn_npy::Array sc;
    std::string err;
    const std::string& sp = *f.w_scales;
    if (!attn_npy::load(sp, &sc, &err) || !attn_npy::expect(sc, sp, "<f4", 0, 1, &err)) {
      throw CliError(err);
    }
    const std::size_t n = sc.count();
    if (n != 1 && n != static_cast<std::size_t>(dq)) {
      throw CliError(sp + ": " + std::to_string(n) + " scales, expected " + std::to_string(dq) +
                     " (query dim Dq of " + query.path + ") or 1; shape " +
                     attn_npy::shape_str(sc.shape));
    }
    w_scales.resize(static_cast<std::size_t>(dq));
    for (std::size_t c = 0; c < w_scales.size(); ++c) {
      const float v = sc.as<float>()[n == 1 ? 0 : c];
      if (!(v > 0.0f) || std::isinf(v)) {
        throw CliError(sp + ": scale " + f32_str(v) + " at index " + std::to_string(c) +
                       " is not a positive finite float32 number");
      }
      w_scales[c] = v;
    }
    if (!files.b.empty()) {
      attn_npy::Array ba;
      if (!attn_npy::load(files.b, &ba, &err) ||
          !attn_npy::expect(ba, files.b, "<i4", 1, 1, &err)) {
        throw CliError(err);
      }
      if (ba.shape[0] != dq) {
        throw CliError(files.b + ": length is " + std::to_string(ba.shape[0]) + ", expected " +
                       std::to_string(dq) + " (query dim Dq of " + query.path + ")");
      }
      bias.assign(ba.as<int32_t>(), ba.as<int32_t>() + dq);
    }
  }

  attn::LuongGeneralShape shape;
  shape.batch = to_i32(b);
  shape.seq = to_i32(seq);
  shape.query_dim = to_i32(dq);
  shape.key_dim = to_i32(dk);
  std::vector<int32_t> lengths;
  if (!files.key_lengths.empty()) lengths = load_key_lengths(files.key_lengths, shape.batch, shape.seq);
  const auto ctx_shape = shape_of(batched, b, {dk});
  const auto w_shape = shape_of(batched, b, {seq});
  std::vector<int8_t> ctx(output_count(ctx_shape, files.out));
  std::vector<int8_t> weights;
  if (!files.weights_out.empty()) weights.resize(output_count(w_shape, files.weights_out));

  const char* op = general ? "luong-general" : "luong-dot";
  attn::LuongS8Params params;
  std::vector<attn::QuantizedMultiplier> storage(static_cast<std::size_t>(dq));
  std::size_t scratch_bytes = 0;
  if (general) {
    attn::FcS8Weights fw;
    fw.weight = w_t.data();
    fw.scales = w_scales.data();
    fw.bias = bias.empty() ? nullptr : bias.data();
    check_status(attn::luong_general_s8_prepare(shape, quant, fw, storage.data(), &params), op);
    scratch_bytes = attn::luong_general_s8_scratch_bytes(shape);
  } else {
    const attn::LuongDotShape dshape{shape.batch, shape.seq, shape.key_dim};
    check_status(attn::luong_dot_s8_prepare(dshape, quant, &params), op);
    scratch_bytes = attn::luong_dot_s8_scratch_bytes(dshape);
  }
  auto scratch = make_scratch(scratch_bytes);
  attn::LuongS8Args args;
  args.query = query.data();
  args.keys = keys.data();
  args.context = ctx.data();
  args.weights = weights.empty() ? nullptr : weights.data();
  args.key_lengths = lengths.empty() ? nullptr : lengths.data();
  check_status(attn::luong_s8(params, args, scratch_of(scratch)), op);
  write_s8_outputs({{files.out, ctx_shape, ctx.data()}, {files.weights_out, w_shape, weights.data()}});
}

void add_softmax_s8(CLI::App* run, Runner* runner) {
  auto f = std::make_shared<SoftmaxS8Flags>();
  CLI::App* s = run->add_subcommand(
      "softmax-s8", "int8 softmax over the last axis, bit-identical to TensorFlow Lite's SOFTMAX: "
                    "int8 in (scale --input-scale; its zero point cancels), int8 out with scale "
                    "1/256 and zero point -128");
  s->add_option("--input", f->input, "int8 .npy input [rows, cols] (any rank >= 1; the softmax "
                                     "runs over the last axis, at most 4095 long)")
      ->required()
      ->type_name("FILE");
  s->add_option("--input-scale", f->input_scale, "scale of the input, a positive float32")
      ->required()
      ->type_name("S");
  s->add_option("--beta", f->beta, "softmax beta, a positive float32 (default 1)")
      ->type_name("B");
  s->add_option("--out", f->out, "output int8 .npy, same shape as the input")
      ->required()
      ->type_name("FILE");
  s->callback([f, runner] { *runner = [f] { run_softmax_s8(*f); }; });
}

}  // namespace attn_cli
