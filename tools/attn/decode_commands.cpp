// `attn run mha-decode` and the decoder lines of `attn info` (see
// decode_commands.h).
//
// The tokens X [T, E] go through mha_decode_f32 (or mha_decode_s8 for an
// int8 model) --chunk tokens per call over one KV cache, so the output equals
// one-shot causal attention over the whole sequence (a band mask with a
// window) whatever the chunking. Every flag is checked against the others and
// against the weights before the first call; the output is written only after
// the last one.
#include "decode_commands.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attn/kv_cache.h"
#include "attn/mha_decode.h"
#include "attn/mha_decode_s8.h"
#include "attn/model_decode.h"
#include "attn/model_s8.h"
#include "common.h"
#include "kernels/f32/f16.h"
#include "model_commands.h"

namespace attn_cli {
namespace {

struct DecodeFlags {
  std::string weights_dir, tokens, out, cache_dtype, weights_dtype = "f32";
  int heads = 0;
  std::optional<int> kv_heads, chunk, capacity, window, rope_dim;
  std::optional<double> rope_theta;
  std::optional<std::string> rope_style;
  bool cache_packed = false;
  ModelFlags model;
};

// The decoder and cache configuration every run resolves its flags to.
struct DecodeConfig {
  attn::MhaDecodeShape shape;
  attn::KvCacheShape cache;
};

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

attn::KvElement parse_cache_dtype(const std::string& s) {
  if (s == "f32") return attn::KvElement::kF32;
  if (s == "f16") return attn::KvElement::kF16;
  return attn::KvElement::kS8;
}

// --rope-*: dims > 0 turns RoPE on; theta and style need it.
attn::RopeConfig rope_from_flags(const DecodeFlags& f, int32_t head_dim) {
  attn::RopeConfig r;
  const int dims = f.rope_dim.value_or(0);
  if (dims == 0) {
    if (f.rope_theta || f.rope_style) {
      throw CliError("--rope-theta and --rope-style need --rope-dim D (rotary dims > 0)");
    }
    return r;
  }
  if (dims < 0 || dims % 2 != 0 || dims > head_dim) {
    throw CliError("--rope-dim " + std::to_string(dims) + ": rotary dims must be even and in 2.." +
                   std::to_string(head_dim) + " (the head dim)");
  }
  r.dims = dims;
  const double theta = f.rope_theta.value_or(10000.0);
  if (!(theta > 1.0) || !std::isfinite(static_cast<float>(theta))) {
    throw CliError("--rope-theta " + num(theta) + ": the base must be finite and > 1");
  }
  r.theta = static_cast<float>(theta);
  r.style = f.rope_style.value_or("half") == "interleaved" ? attn::RopeStyle::kInterleaved
                                                           : attn::RopeStyle::kHalfSplit;
  return r;
}

// --capacity / --window: a window W is a ring of W slots (a --capacity must then
// be W); a linear cache holds --capacity tokens (default: all of them).
attn::KvCacheShape cache_from_flags(const DecodeFlags& f, int64_t tokens) {
  attn::KvCacheShape c;
  if (f.window) {
    if (*f.window <= 0) throw CliError("--window " + std::to_string(*f.window) + ": must be > 0");
    if (f.capacity && *f.capacity != *f.window) {
      throw CliError("--capacity " + std::to_string(*f.capacity) + " with --window " +
                     std::to_string(*f.window) +
                     ": a sliding-window cache holds exactly the window (give one of them)");
    }
    c.capacity = *f.window;
    c.window = true;
  } else {
    c.capacity = f.capacity ? *f.capacity : to_i32(tokens);
    if (c.capacity <= 0) throw CliError("--capacity must be > 0");
  }
  return c;
}

// Llama-style q/k/v/o_proj.weight.npy (+ .bias.npy) or PyTorch
// nn.MultiheadAttention names; the arrays own the data the weights point to.
struct DecodeWeights {
  std::vector<F32Input> arrays;
  std::vector<float> in_bias;  // in_proj_bias split, when given
  attn::MhaDecodeF32Weights w;
  int32_t kv_rows = 0;  // rows of k_proj / v_proj: num_kv_heads * head_dim
};

const float* load_exact(DecodeWeights* d, const std::string& path,
                        const std::vector<int64_t>& shape, const std::string& why) {
  const int r = static_cast<int>(shape.size());
  F32Input a = load_f32(path, r, r);
  if (a.array.shape != shape) {
    throw CliError(path + ": shape " + attn_npy::shape_str(a.array.shape) + ", expected " +
                   attn_npy::shape_str(shape) + " (" + why + ")");
  }
  d->arrays.push_back(std::move(a));
  return d->arrays.back().data();
}

const float* load_optional(DecodeWeights* d, const std::string& dir, const std::string& name,
                           int64_t n, const std::string& why) {
  const std::string path = join_path(dir, name);
  return file_exists(path) ? load_exact(d, path, {n}, why) : nullptr;
}

void load_llama_weights(const std::string& dir, int64_t e, DecodeWeights* d) {
  d->w.q_proj_weight = load_exact(d, join_path(dir, "q_proj.weight.npy"), {e, e}, "[E, E]");
  const std::string kpath = join_path(dir, "k_proj.weight.npy");
  if (!file_exists(kpath)) throw CliError(kpath + ": missing (k_proj [kv_heads*head_dim, E])");
  const F32Input k = load_f32(kpath, 2, 2);
  if (k.dim(1) != e) {
    throw CliError(kpath + ": shape " + attn_npy::shape_str(k.array.shape) +
                   ", expected [kv_heads*head_dim, " + std::to_string(e) + "]");
  }
  const int64_t kv = k.dim(0);
  d->kv_rows = to_i32(kv);
  d->w.k_proj_weight = load_exact(d, kpath, {kv, e}, "[kv_heads*head_dim, E]");
  d->w.v_proj_weight =
      load_exact(d, join_path(dir, "v_proj.weight.npy"), {kv, e}, "the shape of k_proj.weight");
  d->w.out_proj_weight = load_exact(d, join_path(dir, "o_proj.weight.npy"), {e, e}, "[E, E]");
  d->w.q_proj_bias = load_optional(d, dir, "q_proj.bias.npy", e, "[E]");
  d->w.k_proj_bias = load_optional(d, dir, "k_proj.bias.npy", kv, "[kv_heads*head_dim]");
  d->w.v_proj_bias = load_optional(d, dir, "v_proj.bias.npy", kv, "[kv_heads*head_dim]");
  d->w.out_proj_bias = load_optional(d, dir, "o_proj.bias.npy", e, "[E]");
}

void load_torch_weights(const std::string& dir, int64_t e, DecodeWeights* d) {
  const std::string packed = join_path(dir, "in_proj_weight.npy");
  if (file_exists(packed)) {
    d->w.in_proj_weight = load_exact(d, packed, {3 * e, e}, "[3E, E]");
    d->w.in_proj_bias = load_optional(d, dir, "in_proj_bias.npy", 3 * e, "[3E]");
  } else {
    d->w.q_proj_weight = load_exact(d, join_path(dir, "q_proj_weight.npy"), {e, e}, "[E, E]");
    d->w.k_proj_weight = load_exact(d, join_path(dir, "k_proj_weight.npy"), {e, e},
                                    "[E, E]: self-attention, kdim = E");
    d->w.v_proj_weight = load_exact(d, join_path(dir, "v_proj_weight.npy"), {e, e},
                                    "[E, E]: self-attention, vdim = E");
    if (const float* b = load_optional(d, dir, "in_proj_bias.npy", 3 * e, "[3E]")) {
      d->w.q_proj_bias = b;
      d->w.k_proj_bias = b + e;
      d->w.v_proj_bias = b + 2 * e;
    }
  }
  d->w.out_proj_weight = load_exact(d, join_path(dir, "out_proj.weight.npy"), {e, e}, "[E, E]");
  d->w.out_proj_bias = load_optional(d, dir, "out_proj.bias.npy", e, "[E]");
  d->kv_rows = to_i32(e);
}

void load_decode_weights(const std::string& dir, int64_t e, DecodeWeights* d) {
  d->arrays.reserve(8);  // pointers into the arrays stay valid
  if (file_exists(join_path(dir, "q_proj.weight.npy"))) {
    load_llama_weights(dir, e, d);
  } else if (file_exists(join_path(dir, "in_proj_weight.npy")) ||
             file_exists(join_path(dir, "q_proj_weight.npy"))) {
    load_torch_weights(dir, e, d);
  } else {
    throw CliError(dir +
                   ": holds neither Llama-style q_proj.weight.npy, k_proj.weight.npy, "
                   "v_proj.weight.npy, o_proj.weight.npy nor PyTorch in_proj_weight.npy "
                   "(or q/k/v_proj_weight.npy) with out_proj.weight.npy");
  }
}

// Runs the tokens through `step(first, n)` chunk by chunk; a full linear
// cache is reported with the token that did not fit.
template <class Step>
void decode_chunks(int64_t tokens, int32_t chunk, const attn::KvCacheShape& cache, Step step) {
  for (int64_t t0 = 0; t0 < tokens; t0 += chunk) {
    const auto n = static_cast<int32_t>(std::min<int64_t>(chunk, tokens - t0));
    const attn::Status st = step(t0, n);
    if (st == attn::Status::kCacheFull) {
      throw CliError("mha-decode: capacity exceeded: " + std::to_string(tokens) +
                     " tokens, the linear cache holds " + std::to_string(cache.capacity) +
                     " (give a larger --capacity or a --window)");
    }
    check_status(st, "mha-decode");
  }
}

int32_t chunk_of(const DecodeFlags& f, int64_t tokens) {
  if (f.chunk && *f.chunk <= 0) throw CliError("--chunk must be > 0");
  return to_i32(std::min<int64_t>(f.chunk.value_or(to_i32(tokens)), tokens));
}

// --weights-dtype f16: every weight matrix of w rounded to binary16 (nearest,
// ties to even) into `halves`, which the binary16 pointers of the result
// point into; biases stay float32.
attn::MhaDecodeF32Weights to_f16_weights(const attn::MhaDecodeF32Weights& w,
                                         const attn::MhaDecodeShape& s,
                                         std::vector<std::vector<uint16_t>>* halves) {
  const auto e = static_cast<std::size_t>(s.embed_dim);
  const int32_t g = s.num_kv_heads == 0 ? s.num_heads : s.num_kv_heads;
  const std::size_t kv = static_cast<std::size_t>(g) * (e / static_cast<std::size_t>(s.num_heads));
  halves->reserve(5);  // pointers into the vectors stay valid
  const auto round = [&](const float*& src, const uint16_t*& dst, std::size_t rows) {
    if (src == nullptr) return;
    std::vector<uint16_t> h(rows * e);
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = attn::f16::from_f32(src[i]);
    halves->push_back(std::move(h));
    dst = halves->back().data();
    src = nullptr;
  };
  attn::MhaDecodeF32Weights r = w;
  round(r.in_proj_weight, r.in_proj_weight_f16, 3 * e);
  round(r.q_proj_weight, r.q_proj_weight_f16, e);
  round(r.k_proj_weight, r.k_proj_weight_f16, kv);
  round(r.v_proj_weight, r.v_proj_weight_f16, kv);
  round(r.out_proj_weight, r.out_proj_weight_f16, e);
  return r;
}

// Float decoding: weights and cache element given; the shape resolved.
void run_f32_decode(const DecodeFlags& f, const F32Input& x, const DecodeConfig& cfg,
                    const attn::MhaDecodeF32Weights& w32) {
  std::vector<std::vector<uint16_t>> halves;
  const attn::MhaDecodeF32Weights w =
      f.weights_dtype == "f16" ? to_f16_weights(w32, cfg.shape, &halves) : w32;
  const int64_t t = x.dim(0), e = x.dim(1);
  const int32_t chunk = cfg.shape.max_tokens;
  std::vector<unsigned char> storage(std::max<std::size_t>(1, attn::kv_cache_bytes(cfg.cache)));
  attn::KvCache cache;
  check_status(attn::kv_cache_init(cfg.cache, storage.data(), storage.size(), &cache),
               "mha-decode (cache)");
  auto scratch = make_scratch(attn::mha_decode_f32_scratch_bytes(cfg.shape));
  std::vector<float> out(output_count({t, e}, f.out));
  decode_chunks(t, chunk, cfg.cache, [&](int64_t t0, int32_t n) {
    attn::MhaDecodeF32Args a;
    a.x = x.data() + t0 * e;
    a.out = out.data() + t0 * e;
    a.tokens = n;
    return attn::mha_decode_f32(cfg.shape, w, a, &cache, scratch_of(scratch));
  });
  write_outputs({{f.out, {t, e}, out.data()}});
}

void run_weights_decode(const DecodeFlags& f) {
  const F32Input x = load_f32(f.tokens, 2, 2);
  const int64_t e = x.dim(1);
  if (f.heads <= 0 || e % f.heads != 0) {
    throw CliError("--heads " + std::to_string(f.heads) + " does not divide the embed dim " +
                   std::to_string(e) + " of " + f.tokens);
  }
  const attn::KvElement element = parse_cache_dtype(f.cache_dtype.empty() ? "f32" : f.cache_dtype);
  if (element == attn::KvElement::kS8) {
    throw CliError(
        "--cache-dtype int8 needs an int8 model blob (--model from attn-convert "
        "mha-decode --dtype int8 --calibrate X.npy): the int8 cache holds the int8 "
        "K/V codes, whose scales come from calibration");
  }
  DecodeWeights d;
  load_decode_weights(f.weights_dir, e, &d);
  const int32_t hd = to_i32(e / f.heads);
  if (d.kv_rows % hd != 0 || f.heads % (d.kv_rows / hd) != 0) {
    throw CliError(join_path(f.weights_dir, "k_proj.weight.npy") + ": " +
                   std::to_string(d.kv_rows) + " rows are not kv_heads x head_dim " +
                   std::to_string(hd) + " with kv_heads dividing --heads " +
                   std::to_string(f.heads));
  }
  const int32_t g = d.kv_rows / hd;
  if (f.kv_heads && *f.kv_heads != g) {
    throw CliError("--kv-heads " + std::to_string(*f.kv_heads) + " but the weights in " +
                   f.weights_dir + " have " + std::to_string(g) + " kv heads (k_proj rows " +
                   std::to_string(d.kv_rows) + " / head_dim " + std::to_string(hd) + ")");
  }
  DecodeConfig cfg;
  cfg.shape.embed_dim = to_i32(e);
  cfg.shape.num_heads = f.heads;
  cfg.shape.num_kv_heads = g;
  cfg.shape.max_tokens = chunk_of(f, x.dim(0));
  cfg.shape.cache_element = element;
  cfg.shape.rope = rope_from_flags(f, hd);
  cfg.cache = cache_from_flags(f, x.dim(0));
  cfg.cache.num_kv_heads = g;
  cfg.cache.head_dim = hd;
  cfg.cache.element = element;
  cfg.cache.packed = f.cache_packed;
  run_f32_decode(f, x, cfg, d.w);
}

// With --model, a flag that is given must agree with the model.
void require_model_value(const char* flag, const std::optional<int>& given, int32_t model,
                         const std::string& path) {
  if (given && *given != model) {
    throw CliError(std::string(flag) + " " + std::to_string(*given) + " disagrees with " + path +
                   " (" + std::to_string(model) + ", set by attn-convert)");
  }
}

void check_model_flags(const DecodeFlags& f, const attn::Model& m) {
  const int32_t* p = m.params;
  require_model_value("--capacity", f.capacity, p[3], f.model.path);
  if (f.window && p[4] == 0) {
    throw CliError("--window: " + f.model.path + " has a linear cache (set by attn-convert)");
  }
  require_model_value("--window", f.window, p[3], f.model.path);
  require_model_value("--rope-dim", f.rope_dim, p[5], f.model.path);
  const attn::MhaDecodeShape s = attn::model_mha_decode_shape(m, 1, attn::KvElement::kF32);
  if (f.rope_theta && (s.rope.dims == 0 || static_cast<float>(*f.rope_theta) != s.rope.theta)) {
    throw CliError("--rope-theta " + num(*f.rope_theta) + " disagrees with " + f.model.path);
  }
  if (f.rope_style && (s.rope.dims == 0 || (*f.rope_style == "interleaved") != (p[6] == 1))) {
    throw CliError("--rope-style " + *f.rope_style + " disagrees with " + f.model.path);
  }
}

void run_s8_model_decode(const DecodeFlags& f, const attn::Model& m) {
  attn::QuantParams in_q{}, out_q{};
  attn::model_act_quant(m, static_cast<int32_t>(attn::MhaDecodeAct::kInput), &in_q);
  attn::model_act_quant(m, static_cast<int32_t>(attn::MhaDecodeAct::kOut), &out_q);
  const QuantizedInput x = load_s8_input(f.tokens, 2, 2, f.model.raw_int8, in_q);
  const int64_t t = x.dim(0), e = x.dim(1);
  if (e != m.params[0]) {
    throw CliError(f.tokens + ": last dimension is " + std::to_string(e) +
                   ", the model's embed_dim is " + std::to_string(m.params[0]));
  }
  const int32_t chunk = chunk_of(f, t);
  const attn::MhaDecodeShape shape = attn::model_mha_decode_shape(m, chunk, attn::KvElement::kS8);
  std::vector<attn::QuantizedMultiplier> channels(attn::mha_decode_s8_channel_count(shape));
  auto params = std::make_unique<attn::MhaDecodeS8Params>();
  check_status(
      attn::model_mha_decode_s8_prepare(m, chunk, channels.data(), channels.size(), params.get()),
      "mha-decode (int8 prepare)");
  attn::KvCacheShape cs = attn::model_kv_cache_shape(m, attn::KvElement::kS8);
  cs.packed = f.cache_packed;
  std::vector<unsigned char> storage(attn::kv_cache_bytes(cs));
  attn::KvCache cache;
  check_status(attn::kv_cache_init(cs, storage.data(), storage.size(), &cache),
               "mha-decode (cache)");
  auto scratch = make_scratch(attn::mha_decode_s8_scratch_bytes(shape, cs));
  std::vector<int8_t> out(output_count({t, e}, f.out));
  decode_chunks(t, chunk, cs, [&](int64_t t0, int32_t n) {
    attn::MhaDecodeS8Args a;
    a.x = x.values.data() + t0 * e;
    a.out = out.data() + t0 * e;
    a.tokens = n;
    return attn::mha_decode_s8(params.get(), a, &cache, scratch_of(scratch));
  });
  if (f.model.raw_int8) {
    std::string err;
    if (!attn_npy::save(f.out, "|i1", {t, e}, out.data(), &err)) throw CliError(err);
    return;
  }
  std::vector<float> outf(out.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    outf[i] = out_q.scale * static_cast<float>(out[i] - out_q.zero_point);
  }
  write_outputs({{f.out, {t, e}, outf.data()}});
}

void run_model_decode(const DecodeFlags& f) {
  const auto lm = load_model(f.model.path);
  const attn::Model& m = lm->model;
  if (m.op != attn::ModelOp::kMhaDecode) {
    throw CliError(f.model.path + ": a " + op_cli_name(m.op) + " model, not mha-decode (use " +
                   "attn run " + op_cli_name(m.op) + ")");
  }
  check_model_flags(f, m);
  const bool q8 = m.dtype == attn::ModelDtype::kInt8;
  const std::string dtype = f.cache_dtype.empty() ? (q8 ? "int8" : "f32") : f.cache_dtype;
  if (q8 != (dtype == "int8")) {
    throw CliError("--cache-dtype " + dtype + ": " + f.model.path + " is " +
                   (q8 ? "an int8 model, which decodes with an int8 cache"
                       : "a float model: f32 or f16 cache (int8 needs an int8 model blob)"));
  }
  if (q8) {
    if (f.weights_dtype != "f32") {
      throw CliError("--weights-dtype " + f.weights_dtype + ": " + f.model.path +
                     " is an int8 model (its weights are int8 codes)");
    }
    run_s8_model_decode(f, m);
    return;
  }
  if (f.model.raw_int8)
    throw CliError("--raw-int8 needs an int8 model; " + f.model.path + " is float32");
  const F32Input x = load_f32(f.tokens, 2, 2);
  if (x.dim(1) != m.params[0]) {
    throw CliError(f.tokens + ": last dimension is " + std::to_string(x.dim(1)) +
                   ", the model's embed_dim is " + std::to_string(m.params[0]));
  }
  DecodeConfig cfg;
  const attn::KvElement element = parse_cache_dtype(dtype);
  cfg.shape = attn::model_mha_decode_shape(m, chunk_of(f, x.dim(0)), element);
  cfg.cache = attn::model_kv_cache_shape(m, element);
  cfg.cache.packed = f.cache_packed;
  attn::MhaDecodeF32Weights w;
  check_status(attn::model_mha_decode_f32_weights(m, &w), "mha-decode");
  run_f32_decode(f, x, cfg, w);
}

}  // namespace

void add_mha_decode(CLI::App* s, Runner* runner) {
  auto f = std::make_shared<DecodeFlags>();
  s->add_option("--tokens", f->tokens,
                "float32 .npy tokens X [T,E] of one stream (int8 codes "
                "with --model and --raw-int8)")
      ->required();
  s->add_option("--weights", f->weights_dir,
                "directory of .npy weights: Llama-style q_proj.weight [E,E], k_proj.weight and "
                "v_proj.weight [kv_heads*head_dim,E], o_proj.weight [E,E], optional "
                "q/k/v/o_proj.bias; or PyTorch nn.MultiheadAttention in_proj_weight [3E,E] (or "
                "q/k/v_proj_weight [E,E]), optional in_proj_bias, out_proj.weight, optional "
                "out_proj.bias (kv heads = heads)")
      ->required();
  s->add_option("--heads", f->heads, "number of query heads H (must divide E)")->required();
  CLI::Option* kv = s->add_option(
      "--kv-heads", f->kv_heads,
      "number of kv heads G (divides H; 1 = multi-query); default and check: from k_proj's rows");
  s->add_option("--chunk", f->chunk,
                "tokens per call (1 = pure decode; default all at once); the output is the "
                "same whatever the chunking");
  s->add_option("--capacity", f->capacity,
                "linear cache slots (default T); more tokens than this is an error");
  s->add_option("--window", f->window,
                "sliding window W: each token sees the last W positions, itself included (a "
                "ring of W slots; --capacity, if given, must be W)");
  s->add_option("--rope-dim", f->rope_dim,
                "rotary dims per head (even, <= head_dim; default 0 = no RoPE)");
  s->add_option("--rope-theta", f->rope_theta,
                "rotary base theta (default 10000; needs "
                "--rope-dim)");
  s->add_option("--rope-style", f->rope_style,
                "half (Llama/GPT-NeoX pairs i, i+D/2; default) or interleaved (GPT-J pairs "
                "2i, 2i+1); needs --rope-dim")
      ->check(CLI::IsMember({"half", "interleaved"}));
  s->add_option("--cache-dtype", f->cache_dtype,
                "KV cache element: f32 (default for float weights), f16 (half the bytes, "
                "float32 math) or int8 (only with an int8 model blob from attn-convert "
                "mha-decode --dtype int8 --calibrate X.npy)")
      ->check(CLI::IsMember({"f32", "f16", "int8"}));
  s->add_flag("--cache-packed", f->cache_packed,
              "keep the cache in the layouts the kernels read best (attn info prints the "
              "bytes). f32/f16: K in 32-token transposed blocks (same bytes but capacity "
              "rounded up to 32; faster scores; outputs within float rounding). int8: also "
              "K/V in the int8 tile kernels' layouts (about 2x the int8 cache bytes), so a "
              "query-tiled step packs nothing; same outputs (ignored by builds without the "
              "tiled int8 core)");
  s->add_option("--weights-dtype", f->weights_dtype,
                "weight matrices as the decoder reads them: f32 (default) or f16 (the float "
                "weights rounded to IEEE binary16, nearest even: half the weight bytes per "
                "step, float32 math; biases stay float32); float weights only")
      ->check(CLI::IsMember({"f32", "f16"}));
  s->add_option("--out", f->out, "output .npy [T,E] (float32; int8 with --raw-int8)")->required();
  add_model_flags(s, &f->model, {"--weights", "--heads"});
  kv->excludes(s->get_option("--model"));
  s->callback([f, runner] {
    *runner = [f] {
      if (f->model.given()) {
        run_model_decode(*f);
      } else {
        if (f->model.raw_int8) throw CliError("--raw-int8 needs --model (an int8 model blob)");
        run_weights_decode(*f);
      }
    };
  });
}

void print_decode_params(const attn::Model& m) {
  const attn::MhaDecodeShape s = attn::model_mha_decode_shape(m, 1, attn::KvElement::kF32);
  const attn::KvCacheShape c = attn::model_kv_cache_shape(m, attn::KvElement::kF32);
  std::printf("  embed_dim %d, num_heads %d (head_dim %d), num_kv_heads %d\n", s.embed_dim,
              s.num_heads, c.head_dim, s.num_kv_heads);
  std::printf("  cache: %s, %d positions\n", c.window ? "sliding window" : "linear", c.capacity);
  if (s.rope.dims > 0) {
    std::printf("  rope: %d dims, %s, theta %g\n", s.rope.dims,
                s.rope.style == attn::RopeStyle::kHalfSplit ? "half" : "interleaved",
                static_cast<double>(s.rope.theta));
  } else {
    std::printf("  rope: none\n");
  }
}

void print_decode_memory(const attn::Model& m, int tokens) {
  std::printf("  sizes: %d new tokens per call\n", tokens);
  if (m.dtype == attn::ModelDtype::kInt8) {
    const attn::MhaDecodeShape s = attn::model_mha_decode_shape(m, tokens, attn::KvElement::kS8);
    const attn::KvCacheShape c = attn::model_kv_cache_shape(m, attn::KvElement::kS8);
    const std::size_t ch = attn::mha_decode_s8_channel_count(s) * sizeof(attn::QuantizedMultiplier);
    attn::KvCacheShape packed = c;
    packed.packed = true;
    std::printf("  cache bytes: int8 %zu (packed, --cache-packed: %zu)\n", attn::kv_cache_bytes(c),
                attn::kv_cache_bytes(packed));
    std::printf(
        "  scratch: %zu bytes (mha_decode_s8 %zu + channel multipliers %zu; packed cache: "
        "mha_decode_s8 %zu)\n",
        attn::mha_decode_s8_scratch_bytes(s, c) + ch, attn::mha_decode_s8_scratch_bytes(s, c), ch,
        attn::mha_decode_s8_scratch_bytes(s, packed));
    return;
  }
  attn::KvCacheShape f32 = attn::model_kv_cache_shape(m, attn::KvElement::kF32);
  attn::KvCacheShape f16 = attn::model_kv_cache_shape(m, attn::KvElement::kF16);
  const std::size_t plain32 = attn::kv_cache_bytes(f32), plain16 = attn::kv_cache_bytes(f16);
  f32.packed = f16.packed = true;
  std::printf("  cache bytes: f32 %zu, f16 %zu (packed, --cache-packed: f32 %zu, f16 %zu)\n",
              plain32, plain16, attn::kv_cache_bytes(f32), attn::kv_cache_bytes(f16));
  std::printf("  scratch: f32 cache %zu bytes, f16 cache %zu bytes\n",
              attn::mha_decode_f32_scratch_bytes(
                  attn::model_mha_decode_shape(m, tokens, attn::KvElement::kF32)),
              attn::mha_decode_f32_scratch_bytes(
                  attn::model_mha_decode_shape(m, tokens, attn::KvElement::kF16)));
}

}  // namespace attn_cli
