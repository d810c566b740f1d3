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
