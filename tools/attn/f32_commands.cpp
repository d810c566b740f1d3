// The float32 runners of `attn run` (see f32_commands.h).
//
// Every input is loaded and checked (dtype, rank, every dimension against the
// others) before the op runs, and outputs are written only after it succeeded,
// so an error never leaves an output file behind.
#include "f32_commands.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "attn/attn.h"
#include "threads_flag.h"

namespace attn_cli {

void add_scale(CLI::App* sub, std::optional<double>* scale) {
  sub->add_option("--scale", *scale, "score scale, a positive finite number (default 1/sqrt(Dk))");
}

namespace {

float scale_value(const std::optional<double>& s) {
  if (!s) return 0.0f;
  const auto f = static_cast<float>(*s);
  if (!(f > 0.0f) || std::isinf(f)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", *s);
    throw CliError(std::string("--scale ") + buf + " is not a positive finite float32 number");
  }
  return f;
}

}  // namespace

// ---------------------------------------------------------------- sdpa
void run_sdpa(const SdpaFlags& f) {
  const SdpaInputs<float> in = load_sdpa_inputs<float>(f.q, f.k, f.v, "<f4");
  const attn::SdpaShape& shape = in.shape;
  const bool batched = in.batched;
  const int64_t b = shape.batch;
  const LoadedMask mask = load_masks(f.masks.resolved(), shape.batch, shape.seq_q, shape.seq_kv);

  const auto out_shape = batched_shape(batched, b, {shape.seq_q, shape.dim_v});
  const auto p_shape = batched_shape(batched, b, {shape.seq_q, shape.seq_kv});
  std::vector<float> out(output_count(out_shape, f.out));
  std::vector<float> probs;
  if (!f.probs_out.empty()) probs.resize(output_count(p_shape, f.probs_out));
  auto scratch = make_scratch(attn::sdpa_f32_scratch_bytes(shape, threads_workers()));

  attn::SdpaF32Args args;
  args.executor = threads_executor();
  args.q = in.q.data();
  args.k = in.k.data();
  args.v = in.v.data();
  args.out = out.data();
  args.probs = probs.empty() ? nullptr : probs.data();
  args.scale = scale_value(f.scale);
  args.mask = mask.mask();
  check_status(attn::sdpa_f32(shape, args, scratch_of(scratch)), "sdpa");
  write_outputs({{f.out, out_shape, out.data()}, {f.probs_out, p_shape, probs.data()}});
}

// ---------------------------------------------------------------- mha

namespace {

// Loads DIR/name as float32 with exactly `shape`; returns false if absent and optional.
bool load_weight(const std::string& dir, const std::string& name, const std::vector<int64_t>& shape,
                 bool required, F32Input* out, const std::string& why) {
  const std::string path = join_path(dir, name);
  if (!file_exists(path)) {
    if (required) throw CliError(path + ": missing (" + why + ")");
    return false;
  }
  const int r = static_cast<int>(shape.size());
  *out = load_f32(path, r, r);
  if (out->array.shape != shape) {
    throw CliError(path + ": shape " + attn_npy::shape_str(out->array.shape) + ", expected " +
                   attn_npy::shape_str(shape) + " (" + why + ")");
  }
  return true;
}

}  // namespace

void run_mha(const MhaFlags& f) {
  const MhaInputs in = load_mha_inputs(f.query, f.kv, f.value, f.heads, "<f4");
  const F32Input x{in.query};
  const F32Input key{in.key};
  const F32Input value{in.value};
  const bool batched = in.batched;
  const int64_t b = in.batch;
  const int64_t e = x.dim(-1);
  const int64_t kdim = key.dim(-1);
  const int64_t vdim = value.dim(-1);

  const std::string& dir = f.weights_dir;
  for (const char* unsupported : {"bias_k.npy", "bias_v.npy"}) {
    if (file_exists(join_path(dir, unsupported))) {
      throw CliError(join_path(dir, unsupported) +
                     ": add_bias_kv=True is not supported by the engine");
    }
  }
  F32Input in_w, q_w, k_w, v_w, in_b, out_w, out_b;
  attn::MhaF32Weights w;
  const std::string in_path = join_path(dir, "in_proj_weight.npy");
  if (file_exists(in_path) && !file_exists(join_path(dir, "q_proj_weight.npy"))) {
    if (kdim != e || vdim != e) {
      throw CliError(in_path + ": packed projection needs key/value dims equal to the embed dim " +
                     std::to_string(e) + " (got " + std::to_string(kdim) + ", " +
                     std::to_string(vdim) + "); give q/k/v_proj_weight.npy instead");
    }
    load_weight(dir, "in_proj_weight.npy", {3 * e, e}, true, &in_w, "[3E, E]");
    w.in_proj_weight = in_w.data();
  } else {
    if (!file_exists(join_path(dir, "q_proj_weight.npy")) && !file_exists(in_path)) {
      throw CliError(dir +
                     ": holds neither in_proj_weight.npy nor q_proj_weight.npy, "
                     "k_proj_weight.npy, v_proj_weight.npy");
    }
    load_weight(dir, "q_proj_weight.npy", {e, e}, true, &q_w, "[E, E]");
    load_weight(dir, "k_proj_weight.npy", {e, kdim}, true, &k_w, "[E, kdim]");
    load_weight(dir, "v_proj_weight.npy", {e, vdim}, true, &v_w, "[E, vdim]");
    w.q_proj_weight = q_w.data();
    w.k_proj_weight = k_w.data();
    w.v_proj_weight = v_w.data();
  }
  if (load_weight(dir, "in_proj_bias.npy", {3 * e}, false, &in_b, "[3E]")) {
    w.in_proj_bias = in_b.data();
  }
  load_weight(dir, "out_proj.weight.npy", {e, e}, true, &out_w, "[E, E]");
  w.out_proj_weight = out_w.data();
  if (load_weight(dir, "out_proj.bias.npy", {e}, false, &out_b, "[E]")) {
    w.out_proj_bias = out_b.data();
  }

  attn::MhaShape shape;
  shape.batch = to_i32(b);
  shape.seq_q = to_i32(x.dim(-2));
  shape.seq_kv = to_i32(key.dim(-2));
  shape.embed_dim = to_i32(e);
  shape.num_heads = f.heads;
  shape.kdim = to_i32(kdim);
  shape.vdim = to_i32(vdim);
  const LoadedMask mask = load_masks(f.masks.resolved(), shape.batch, shape.seq_q, shape.seq_kv);

  const auto out_shape = batched_shape(batched, b, {shape.seq_q, e});
  const auto p_shape = f.per_head ? batched_shape(batched, b, {f.heads, shape.seq_q, shape.seq_kv})
                                  : batched_shape(batched, b, {shape.seq_q, shape.seq_kv});
  std::vector<float> out(output_count(out_shape, f.out));
  std::vector<float> probs;
  if (!f.probs_out.empty()) probs.resize(output_count(p_shape, f.probs_out));
  auto scratch = make_scratch(attn::mha_f32_scratch_bytes(shape, threads_workers()));

  attn::MhaF32Args args;
  args.executor = threads_executor();
  args.query = x.data();
  args.key = key.data();
  args.value = value.data();
  args.out = out.data();
  args.probs = probs.empty() ? nullptr : probs.data();
  args.probs_mode = f.per_head ? attn::MhaProbsMode::kPerHead : attn::MhaProbsMode::kAveraged;
  args.mask = mask.mask();
  check_status(attn::mha_f32(shape, w, args, scratch_of(scratch)), "mha");
  write_outputs({{f.out, out_shape, out.data()}, {f.probs_out, p_shape, probs.data()}});
}

// ------------------------------------------------- bahdanau / luong (query, keys)
namespace {

using F32QueryKeys = QueryKeys<float>;

void write_context(const ContextFlags& f, const ContextBuffers<float>& o) {
  write_outputs({{f.out, o.ctx_shape, o.ctx.data()}, {f.probs_out, o.p_shape, o.probs.data()}});
}

}  // namespace

void run_bahdanau(const BahdanauFlags& f) {
  const F32QueryKeys qk = load_query_keys<float>(f.io.query, f.io.keys, "<f4");
  const F32Input w1 = load_f32(f.w1, 2, 2);
  require_dim(w1, 0, qk.dq, "rows", "query dim Dq of " + qk.query.path);
  const int64_t units = w1.dim(1);
  const F32Input w2 = load_f32(f.w2, 2, 2);
  require_dim(w2, 0, qk.dk, "rows", "key dim Dk of " + qk.keys.path);
  require_dim(w2, 1, units, "columns", "units of " + w1.path);
  const F32Input v = load_f32(f.v, 1, 2);
  require_dim(v, 0, units, "length", "units of " + w1.path);
  if (v.rank() == 2) require_dim(v, 1, 1, "columns", "v is [U] or [U, 1]");
  F32Input b1, b2;
  attn::BahdanauF32Weights w;
  w.w1 = w1.data();
  w.w2 = w2.data();
  w.v = v.data();
  if (!f.b1.empty()) {
    b1 = load_f32(f.b1, 1, 1);
    require_dim(b1, 0, units, "length", "units of " + w1.path);
    w.b1 = b1.data();
  }
  if (!f.b2.empty()) {
    b2 = load_f32(f.b2, 1, 1);
    require_dim(b2, 0, units, "length", "units of " + w1.path);
    w.b2 = b2.data();
  }
  if (!std::isfinite(f.bv)) throw CliError("--bv must be finite");
  w.bv = static_cast<float>(f.bv);

  attn::BahdanauShape shape;
  shape.batch = to_i32(qk.b);
  shape.seq = to_i32(qk.seq);
  shape.query_dim = to_i32(qk.dq);
  shape.key_dim = to_i32(qk.dk);
  shape.units = to_i32(units);
  ContextBuffers<float> o(qk, f.io.out, f.io.probs_out, f.io.key_lengths);
  auto scratch = make_scratch(attn::bahdanau_f32_scratch_bytes(shape, threads_workers()));
  attn::BahdanauF32Args args;
  args.executor = threads_executor();
  o.bind(qk, &args);
  check_status(attn::bahdanau_f32(shape, w, args, scratch_of(scratch)), "bahdanau");
  write_context(f.io, o);
}

void run_luong_dot(const ContextFlags& f) {
  const F32QueryKeys qk = load_query_keys<float>(f.query, f.keys, "<f4");
  require_dim(qk.keys, -1, qk.dq, "key dim", "query dim of " + qk.query.path);
  attn::LuongDotShape shape;
  shape.batch = to_i32(qk.b);
  shape.seq = to_i32(qk.seq);
  shape.dim = to_i32(qk.dq);
  ContextBuffers<float> o(qk, f.out, f.probs_out, f.key_lengths);
  auto scratch = make_scratch(attn::luong_dot_f32_scratch_bytes(shape, threads_workers()));
  attn::LuongF32Args args;
  args.executor = threads_executor();
  o.bind(qk, &args);
  check_status(attn::luong_dot_f32(shape, args, scratch_of(scratch)), "luong-dot");
  write_context(f, o);
}

void run_luong_general(const LuongGeneralFlags& f) {
  const F32QueryKeys qk = load_query_keys<float>(f.io.query, f.io.keys, "<f4");
  const F32Input w = load_f32(f.w, 2, 2);
  require_dim(w, 0, qk.dk, "rows", "key dim Dk of " + qk.keys.path);
  require_dim(w, 1, qk.dq, "columns", "query dim Dq of " + qk.query.path);
  F32Input b;
  attn::LuongGeneralF32Weights weights_in;
  weights_in.w = w.data();
  if (!f.b.empty()) {
    b = load_f32(f.b, 1, 1);
    require_dim(b, 0, qk.dq, "length", "query dim Dq of " + qk.query.path);
    weights_in.b = b.data();
  }
  attn::LuongGeneralShape shape;
  shape.batch = to_i32(qk.b);
  shape.seq = to_i32(qk.seq);
  shape.query_dim = to_i32(qk.dq);
  shape.key_dim = to_i32(qk.dk);
  ContextBuffers<float> o(qk, f.io.out, f.io.probs_out, f.io.key_lengths);
  auto scratch = make_scratch(attn::luong_general_f32_scratch_bytes(shape, threads_workers()));
  attn::LuongF32Args args;
  args.executor = threads_executor();
  o.bind(qk, &args);
  check_status(attn::luong_general_f32(shape, weights_in, args, scratch_of(scratch)),
               "luong-general");
  write_context(f.io, o);
}

// ---------------------------------------------------------------- general

void run_general(const GeneralFlags& f) {
  const F32Input x = load_f32(f.x, 2, 3);
  const bool batched = x.rank() == 3;
  const int64_t b = batched ? x.dim(0) : 1;
  const int64_t in_dim = x.dim(-1);
  const F32Input wq = load_f32(f.wq, 2, 2);
  const F32Input wk = load_f32(f.wk, 2, 2);
  const F32Input wv = load_f32(f.wv, 2, 2);
  require_dim(wq, 0, in_dim, "rows", "input dim of " + x.path);
  require_dim(wk, 0, in_dim, "rows", "input dim of " + x.path);
  require_dim(wv, 0, in_dim, "rows", "input dim of " + x.path);
  require_dim(wk, 1, wq.dim(1), "columns", "Dk of " + wq.path);
  attn::GeneralAttentionShape shape;
  shape.batch = to_i32(b);
  shape.seq = to_i32(x.dim(-2));
  shape.in_dim = to_i32(in_dim);
  shape.dim_k = to_i32(wq.dim(1));
  shape.dim_v = to_i32(wv.dim(1));
  const LoadedMask mask = load_masks(f.masks.resolved(), shape.batch, shape.seq, shape.seq);
  const auto out_shape = batched_shape(batched, b, {shape.seq, shape.dim_v});
  const auto p_shape = batched_shape(batched, b, {shape.seq, shape.seq});
  std::vector<float> out(output_count(out_shape, f.out));
  std::vector<float> probs;
  if (!f.probs_out.empty()) probs.resize(output_count(p_shape, f.probs_out));
  auto scratch = make_scratch(attn::general_attention_f32_scratch_bytes(shape, threads_workers()));
  attn::GeneralAttentionF32Args args;
  args.executor = threads_executor();
  args.x = x.data();
  args.out = out.data();
  args.probs = probs.empty() ? nullptr : probs.data();
  args.scale = scale_value(f.scale);
  args.mask = mask.mask();
  const attn::GeneralAttentionF32Weights w{wq.data(), wk.data(), wv.data()};
  check_status(attn::general_attention_f32(shape, w, args, scratch_of(scratch)), "general");
  write_outputs({{f.out, out_shape, out.data()}, {f.probs_out, p_shape, probs.data()}});
}

}  // namespace attn_cli
