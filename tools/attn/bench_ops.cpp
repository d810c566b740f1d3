// The op table of `attn bench` (see bench_ops.h): per op, its operation count
// and a prepare function per number format building one call on synthetic
// deterministic data. int8 quantization parameters are chosen so that the
// synthetic values use the int8 range without saturating everywhere; the
// timing does not depend on them beyond that.
#include "bench_ops.h"

#include <cmath>
#include <memory>

#include "attn/attn.h"
#include "attn/mha_s8.h"
#include "attn/sdpa_s8.h"
#include "bench_buffers.h"
#include "threads_flag.h"

namespace attn_cli {

void fill_f32(float* p, std::size_t n, uint32_t seed) {
  uint32_t x = seed * 2654435761u + 1u;
  for (std::size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    p[i] = static_cast<float>(x >> 8) * (2.0f / 16777216.0f) - 1.0f;
  }
}

void fill_s8(int8_t* p, std::size_t n, uint32_t seed) {
  uint32_t x = seed * 2654435761u + 1u;
  for (std::size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    p[i] = static_cast<int8_t>(static_cast<int32_t>(x >> 24) - 128);
  }
}

namespace {
double d(int64_t v) { return static_cast<double>(v); }
}  // namespace

double mha_ops(int64_t b, int64_t sq, int64_t skv, int64_t e, int64_t kdim, int64_t vdim) {
  return 2.0 * d(b) *
         (2.0 * d(sq) * d(e) * d(e) + d(skv) * d(e) * d(kdim + vdim) + 2.0 * d(sq) * d(skv) * d(e));
}

double bahdanau_ops(int64_t b, int64_t t, int64_t dq, int64_t dk, int64_t u) {
  return 2.0 * d(b) * (d(dq) * d(u) + d(t) * d(dk) * d(u) + d(t) * d(u) + d(t) * d(dk));
}

double luong_general_ops(int64_t b, int64_t t, int64_t dq, int64_t dk, bool int8) {
  if (int8) return 2.0 * d(b) * d(t) * (d(dk) * d(dq) + d(dq) + d(dk));
  return 2.0 * d(b) * (d(dq) * d(dk) + 2.0 * d(t) * d(dk));
}

namespace {

// Operation counts of the table below (double: no overflow).
double sdpa_ops(const BenchShape& s) {
  return 2.0 * d(s.batch) * d(s.heads) * d(s.seq_q) * d(s.seq_kv) * 2.0 * d(s.dim);
}
double mha_bench_ops(const BenchShape& s) {
  return mha_ops(s.batch, s.seq_q, s.seq_kv, s.dim, s.dim, s.dim);
}
double general_ops(const BenchShape& s) {
  return 2.0 * d(s.batch) *
         (3.0 * d(s.seq_q) * d(s.dim) * d(s.dim) + 2.0 * d(s.seq_q) * d(s.seq_q) * d(s.dim));
}
double bahdanau_bench_ops(const BenchShape& s) {
  return bahdanau_ops(s.batch, s.seq_kv, s.dim, s.dim, s.dim);
}
double luong_dot_ops(const BenchShape& s) { return 4.0 * d(s.batch) * d(s.seq_kv) * d(s.dim); }
double luong_general_f32_ops(const BenchShape& s) {
  return luong_general_ops(s.batch, s.seq_kv, s.dim, s.dim, false);
}
double luong_general_s8_ops(const BenchShape& s) {
  return luong_general_ops(s.batch, s.seq_kv, s.dim, s.dim, true);
}
double softmax_ops(const BenchShape& s) {
  return d(s.batch) * d(s.heads) * d(s.seq_q) * d(s.seq_kv);
}

// ---------------------------------------------------------------- sdpa
// B*H independent heads of [Sq, D] x [Skv, D].
attn::SdpaShape sdpa_shape(const BenchShape& s) {
  return attn::SdpaShape{s.batch * s.heads, s.seq_q, s.seq_kv, s.dim, s.dim};
}

BenchCall sdpa_f32_call(const BenchShape& s) {
  const attn::SdpaShape shape = sdpa_shape(s);
  auto b = std::make_shared<BenchBuffers>();
  const std::size_t nq = b->count(shape.batch, shape.seq_q, shape.dim_k);
  const std::size_t nkv = b->count(shape.batch, shape.seq_kv, shape.dim_k);
  attn::SdpaF32Args a;
  a.executor = threads_executor();
  a.q = b->f32(nq, 1);
  a.k = b->f32(nkv, 2);
  a.v = b->f32(nkv, 3);
  a.out = b->f32(nq, 0);
  a.mask = b->load_mask(s.masks, shape.batch, shape.seq_q, shape.seq_kv);
  BenchCall c;
  c.scratch_bytes = attn::sdpa_f32_scratch_bytes(shape, threads_workers());
  const attn::Scratch scratch = b->scratch(c.scratch_bytes);
  c.call = [b, shape, a, scratch] { return attn::sdpa_f32(shape, a, scratch); };
  return c;
}

BenchCall sdpa_s8_call(const BenchShape& s) {
  const attn::SdpaShape shape = sdpa_shape(s);
  auto b = std::make_shared<BenchBuffers>();
  attn::SdpaS8Quant quant;
  quant.q = quant.k = quant.v = quant.out = bench_quant(kBenchInScale);
  quant.scores = bench_quant(bench_dot_scale(shape.dim_k));
  auto params = std::make_shared<attn::SdpaS8Params>();
  check_status(attn::sdpa_s8_prepare(shape, quant, params.get()), "sdpa (int8 prepare)");
  const std::size_t nq = b->count(shape.batch, shape.seq_q, shape.dim_k);
  const std::size_t nkv = b->count(shape.batch, shape.seq_kv, shape.dim_k);
  attn::SdpaS8Args a;
  a.executor = threads_executor();
  a.q = b->s8(nq, 1);
  a.k = b->s8(nkv, 2);
  a.v = b->s8(nkv, 3);
  a.out = b->s8(nq, 0);
  a.mask = b->load_mask(s.masks, shape.batch, shape.seq_q, shape.seq_kv);
  BenchCall c;
  c.scratch_bytes = attn::sdpa_s8_scratch_bytes(shape, threads_workers());
  const attn::Scratch scratch = b->scratch(c.scratch_bytes);
  c.call = [b, params, a, scratch] { return attn::sdpa_s8(*params, a, scratch); };
  return c;
}

// ---------------------------------------------------------------- mha
// Self-attention of [B, Sq, E] (E = D) when Skv == Sq, else cross-attention
// with keys and values [B, Skv, E]; H heads.
attn::MhaShape mha_shape(const BenchShape& s) {
  return attn::MhaShape{s.batch, s.seq_q, s.seq_kv, s.dim, s.heads, s.dim, s.dim};
}

BenchCall mha_f32_call(const BenchShape& s) {
  const attn::MhaShape shape = mha_shape(s);
  auto b = std::make_shared<BenchBuffers>();
  const std::size_t e = static_cast<std::size_t>(s.dim);
  attn::MhaF32Weights w;
  w.in_proj_weight = b->f32(3 * e * e, 4);
  w.in_proj_bias = b->f32(3 * e, 5);
  w.out_proj_weight = b->f32(e * e, 6);
  w.out_proj_bias = b->f32(e, 7);
  attn::MhaF32Args a;
  a.executor = threads_executor();
  a.query = b->f32(b->count(s.batch, s.seq_q, s.dim), 1);
  a.key = a.value = b->f32(b->count(s.batch, s.seq_kv, s.dim), 2);
  a.out = b->f32(b->count(s.batch, s.seq_q, s.dim), 0);
  a.mask = b->load_mask(s.masks, s.batch, s.seq_q, s.seq_kv);
  BenchCall c;
  c.scratch_bytes = attn::mha_f32_scratch_bytes(shape, threads_workers());
  const attn::Scratch scratch = b->scratch(c.scratch_bytes);
  c.call = [b, shape, w, a, scratch] { return attn::mha_f32(shape, w, a, scratch); };
  return c;
}

BenchCall mha_s8_call(const BenchShape& s) {
  const attn::MhaShape shape = mha_shape(s);
  auto b = std::make_shared<BenchBuffers>();
  const std::size_t e = static_cast<std::size_t>(s.dim);
  // Weights at 1/(64 sqrt(E)): projections of deviation 1.33, scale 1/32.
  const float w_scale = kBenchInScale / std::sqrt(static_cast<float>(s.dim));
  attn::MhaS8Weights w;
  for (attn::FcS8Weights* fc : {&w.q, &w.k, &w.v, &w.out}) {
    fc->weight = b->s8(e * e, 4);
    fc->scales = b->constant(e, w_scale);
  }
  attn::MhaS8Quant quant;
  quant.query = quant.key = quant.value = bench_quant(kBenchInScale);
  quant.q = quant.k = quant.v = quant.attn = quant.out = bench_quant(1.0f / 32.0f);
  quant.scores = bench_quant(bench_dot_scale(s.dim / s.heads));
  b->channels.resize(attn::mha_s8_channel_count(shape));
  auto params = std::make_shared<attn::MhaS8Params>();
  check_status(attn::mha_s8_prepare(shape, quant, w, b->channels.data(), params.get()),
               "mha (int8 prepare)");
  attn::MhaS8Args a;
  a.executor = threads_executor();
  a.query = b->s8(b->count(s.batch, s.seq_q, s.dim), 1);
  a.key = a.value = b->s8(b->count(s.batch, s.seq_kv, s.dim), 2);
  a.out = b->s8(b->count(s.batch, s.seq_q, s.dim), 0);
  a.mask = b->load_mask(s.masks, s.batch, s.seq_q, s.seq_kv);
  BenchCall c;
  c.scratch_bytes = attn::mha_s8_scratch_bytes(shape, threads_workers());
  const attn::Scratch scratch = b->scratch(c.scratch_bytes);
  c.call = [b, params, a, scratch] { return attn::mha_s8(*params, a, scratch); };
  return c;
}

// ---------------------------------------------------------------- general
// X [B, S, D] with W_Q, W_K, W_V [D, D]; S = Sq.
BenchCall general_f32_call(const BenchShape& s) {
  const attn::GeneralAttentionShape shape{s.batch, s.seq_q, s.dim, s.dim, s.dim};
  auto b = std::make_shared<BenchBuffers>();
  const std::size_t dd = static_cast<std::size_t>(s.dim) * static_cast<std::size_t>(s.dim);
  const attn::GeneralAttentionF32Weights w{b->f32(dd, 4), b->f32(dd, 5), b->f32(dd, 6)};
  attn::GeneralAttentionF32Args a;
  a.executor = threads_executor();
  a.x = b->f32(b->count(s.batch, s.seq_q, s.dim), 1);
  a.out = b->f32(b->count(s.batch, s.seq_q, s.dim), 0);
  a.mask = b->load_mask(s.masks, s.batch, s.seq_q, s.seq_q);
  BenchCall c;
  c.scratch_bytes = attn::general_attention_f32_scratch_bytes(shape, threads_workers());
  const attn::Scratch scratch = b->scratch(c.scratch_bytes);
  c.call = [b, shape, w, a, scratch] { return attn::general_attention_f32(shape, w, a, scratch); };
  return c;
}

const BenchOp kBenchOps[] = {
    {"sdpa", "2*B*H*Sq*Skv*2D (Q K^T and P V; masked keys count too)", sdpa_ops, true, true, true,
     sdpa_f32_call, sdpa_s8_call},
    {"mha",
     "2*B*(2*Sq*D*D + 2*Skv*D*D + 2*Sq*Skv*D) (projections Q, K, V and out; every head's Q K^T "
     "and P V; E = kdim = vdim = D)",
     mha_bench_ops, true, true, true, mha_f32_call, mha_s8_call},
    {"mha-decode",
     "2*Sq*(2*D*D + 2*D*G*hd) + 4*H*Sq*(Skv+Sq)*hd (projections of the Sq new tokens; Q K^T "
     "and P V over the Skv cached positions and the new ones; hd = D/H, G kv heads)",
     mha_decode_ops, true, true, false, mha_decode_f32_call, mha_decode_s8_call},
    {"general", "2*B*(3*S*D*D + 2*S*S*D) (X W_Q, X W_K, X W_V; Q K^T and P V; S = Sq)", general_ops,
     true, false, true, general_f32_call, nullptr},
    {"bahdanau", "2*B*(D*D + T*D*D + T*D + T*D) (q W1; h W2; v . tanh; context; Dq = Dk = U = D)",
     bahdanau_bench_ops, false, false, false, bahdanau_f32_call, bahdanau_s8_call},
    {"luong-dot", "2*B*T*2D (scores and context)", luong_dot_ops, false, false, false,
     luong_dot_f32_call, luong_dot_s8_call},
    {"luong-general", "2*B*(D*D + 2*T*D) (W q once per query; scores; context; Dq = Dk = D)",
     luong_general_f32_ops, false, false, false, luong_general_f32_call, luong_general_s8_call,
     "2*B*T*(D*D + 2D) (TFLite's sequence projects every key: h W; scores; context)",
     luong_general_s8_ops},
    {"softmax-s8", "B*H*Sq*Skv (one per element of the [B*H*Sq, Skv] rows)", softmax_ops, true,
     true, false, nullptr, softmax_s8_call},
};

}  // namespace

const BenchOp* find_bench_op(const std::string& name) {
  for (const BenchOp& op : kBenchOps) {
    if (name == op.name) return &op;
  }
  return nullptr;
}

std::string bench_op_names() {
  std::string r;
  for (const BenchOp& op : kBenchOps) r += (r.empty() ? "" : ", ") + std::string(op.name);
  return r;
}

}  // namespace attn_cli
