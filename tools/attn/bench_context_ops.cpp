// `attn bench`'s one-query ops (bahdanau, luong-dot, luong-general: a query
// [B, D] against keys [B, T, D], T = --seq-kv, every width D) and softmax-s8,
// each prepared on synthetic data (see bench_buffers.h).
#include <memory>

#include "attn/attn.h"
#include "attn/bahdanau_s8.h"
#include "attn/luong_s8.h"
#include "attn/mha_s8.h"
#include "attn/model.h"
#include "attn/model_s8.h"
#include "attn/softmax_s8.h"
#include "bench_buffers.h"
#include "threads_flag.h"

namespace attn_cli {
namespace {

// int8 weights [D, D] (or [1, D]) at 1/(64 sqrt(D)), per tensor.
attn::FcS8Weights s8_weights(BenchBuffers* b, std::size_t out, std::size_t in) {
  attn::FcS8Weights w;
  w.weight = b->s8(out * in, 4);
  w.scales = b->constant(out, kBenchInScale / std::sqrt(static_cast<float>(in)));
  return w;
}

}  // namespace

BenchCall bahdanau_f32_call(const BenchShape& s) {
  const attn::BahdanauShape shape{s.batch, s.seq_kv, s.dim, s.dim, s.dim};
  auto b = std::make_shared<BenchBuffers>();
  const auto d = static_cast<std::size_t>(s.dim);
  attn::BahdanauF32Weights w;
  w.w1 = b->f32(d * d, 4);
  w.b1 = b->f32(d, 5);
  w.w2 = b->f32(d * d, 6);
  w.b2 = b->f32(d, 7);
  w.v = b->f32(d, 8);
  const auto a =
      bench_context_args<attn::BahdanauF32Args>(b.get(), s.batch, s.seq_kv, s.dim, s.dim);
  BenchCall c;
  c.scratch_bytes = attn::bahdanau_f32_scratch_bytes(shape, threads_workers());
  const attn::Scratch scratch = b->scratch(c.scratch_bytes);
  c.call = [b, shape, w, a, scratch] { return attn::bahdanau_f32(shape, w, a, scratch); };
  return c;
}

BenchCall bahdanau_s8_call(const BenchShape& s) {
  const attn::BahdanauShape shape{s.batch, s.seq_kv, s.dim, s.dim, s.dim};
  auto b = std::make_shared<BenchBuffers>();
  const auto d = static_cast<std::size_t>(s.dim);
  const attn::BahdanauS8Weights w{s8_weights(b.get(), d, d), s8_weights(b.get(), d, d),
                                  s8_weights(b.get(), 1, d)};
  attn::BahdanauS8Quant quant;
  quant.query = quant.keys = quant.context = bench_quant(kBenchInScale);
  quant.query_proj = quant.keys_proj = quant.sum = bench_quant(1.0f / 32.0f);
  quant.scores = bench_quant(bench_dot_scale(s.dim) / 64.0f);
  b->channels.resize(attn::bahdanau_s8_channel_count(shape));
  auto params = std::make_shared<attn::BahdanauS8Params>();
  check_status(attn::bahdanau_s8_prepare(shape, quant, w, b->channels.data(), params.get()),
               "bahdanau (int8 prepare)");
  const auto a = bench_context_args<attn::BahdanauS8Args>(b.get(), s.batch, s.seq_kv, s.dim, s.dim);
  BenchCall c;
  c.scratch_bytes = attn::bahdanau_s8_scratch_bytes(shape, threads_workers());
  const attn::Scratch scratch = b->scratch(c.scratch_bytes);
  c.call = [b, params, a, scratch] { return attn::bahdanau_s8(*params, a, scratch); };
  return c;
}

BenchCall luong_dot_f32_call(const BenchShape& s) {
  const attn::LuongDotShape shape{s.batch, s.seq_kv, s.dim};
  auto b = std::make_shared<BenchBuffers>();
  const auto a = bench_context_args<attn::LuongF32Args>(b.get(), s.batch, s.seq_kv, s.dim, s.dim);
  BenchCall c;
  c.scratch_bytes = attn::luong_dot_f32_scratch_bytes(shape, threads_workers());
  const attn::Scratch scratch = b->scratch(c.scratch_bytes);
  c.call = [b, shape, a, scratch] { return attn::luong_dot_f32(shape, a, scratch); };
  return c;
}

BenchCall luong_general_f32_call(const BenchShape& s) {
  const attn::LuongGeneralShape shape{s.batch, s.seq_kv, s.dim, s.dim};
  auto b = std::make_shared<BenchBuffers>();
  const auto d = static_cast<std::size_t>(s.dim);
  const attn::LuongGeneralF32Weights w{b->f32(d * d, 4), b->f32(d, 5)};
  const auto a = bench_context_args<attn::LuongF32Args>(b.get(), s.batch, s.seq_kv, s.dim, s.dim);
  BenchCall c;
  c.scratch_bytes = attn::luong_general_f32_scratch_bytes(shape, threads_workers());
  const attn::Scratch scratch = b->scratch(c.scratch_bytes);
  c.call = [b, shape, w, a, scratch] { return attn::luong_general_f32(shape, w, a, scratch); };
  return c;
}

namespace {

// luong-dot (general false) or luong-general in int8.
BenchCall luong_s8_call(const BenchShape& s, bool general) {
  const attn::LuongGeneralShape shape{s.batch, s.seq_kv, s.dim, s.dim};
  auto b = std::make_shared<BenchBuffers>();
  attn::LuongS8Quant quant;
  quant.query = quant.keys = quant.context = bench_quant(kBenchInScale);
  quant.keys_proj = bench_quant(1.0f / 32.0f);
  quant.scores = bench_quant(bench_dot_scale(s.dim));
  auto params = std::make_shared<attn::LuongS8Params>();
  if (general) {
    const auto d = static_cast<std::size_t>(s.dim);
    b->channels.resize(d);
    check_status(attn::luong_general_s8_prepare(shape, quant, s8_weights(b.get(), d, d),
                                                b->channels.data(), params.get()),
                 "luong-general (int8 prepare)");
  } else {
    check_status(attn::luong_dot_s8_prepare({s.batch, s.seq_kv, s.dim}, quant, params.get()),
                 "luong-dot (int8 prepare)");
  }
  const auto a = bench_context_args<attn::LuongS8Args>(b.get(), s.batch, s.seq_kv, s.dim, s.dim);
  BenchCall c;
  c.scratch_bytes = attn::luong_s8_scratch_bytes(shape, general, threads_workers());
  const attn::Scratch scratch = b->scratch(c.scratch_bytes);
  c.call = [b, params, a, scratch] { return attn::luong_s8(*params, a, scratch); };
  return c;
}

}  // namespace

BenchCall luong_dot_s8_call(const BenchShape& s) { return luong_s8_call(s, false); }
BenchCall luong_general_s8_call(const BenchShape& s) { return luong_s8_call(s, true); }

BenchCall softmax_s8_call(const BenchShape& s) {
  auto b = std::make_shared<BenchBuffers>();
  auto params = std::make_shared<attn::SoftmaxS8Params>();
  check_status(attn::softmax_s8_prepare(bench_dot_scale(s.dim), 1.0f, params.get()),
               "softmax-s8 (prepare)");
  const std::size_t n = b->count(int64_t{s.batch} * s.heads, s.seq_q, s.seq_kv);
  const int8_t* in = b->s8(n, 1);
  int8_t* out = b->s8(n, 0);
  const int32_t rows = to_i32(int64_t{s.batch} * s.heads * s.seq_q);
  const int32_t cols = s.seq_kv;
  BenchCall c;
  c.call = [b, params, rows, cols, in, out] {
    return attn::softmax_s8({rows, cols}, *params, {in, out});
  };
  return c;
}

}  // namespace attn_cli
