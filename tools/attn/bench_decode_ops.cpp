// `attn bench mha-decode`: one decoder step (mha_decode_f32 / mha_decode_s8)
// of Sq new tokens over a KV cache already holding Skv positions of
// synthetic K/V, H query heads sharing G kv heads, embed dim E = D.
//
// The cache is linear with capacity Skv + Sq. Before each call its position is
// set back to Skv (the slots after it are overwritten by the call), so every
// timed call is the same step at the same context; nothing else is reset.
#include <cmath>
#include <memory>

#include "attn/kv_cache.h"
#include "attn/mha_decode.h"
#include "attn/mha_decode_s8.h"
#include "bench_buffers.h"
#include "bench_ops.h"

namespace attn_cli {
namespace {

struct DecodeBench {
  attn::MhaDecodeShape shape;
  attn::KvCacheShape cache_shape;
  std::vector<unsigned char> storage;
  attn::KvCache cache;
};

// The shape and a cache prefilled with Skv positions of synthetic K/V.
std::shared_ptr<DecodeBench> decode_bench(const BenchShape& s, attn::KvElement element,
                                          BenchBuffers* b) {
  if (s.batch != 1) throw CliError("--batch: mha-decode runs one stream (batch 1)");
  const int32_t g = s.kv_heads > 0 ? s.kv_heads : s.heads;
  if (s.dim % s.heads != 0 || s.heads % g != 0) {
    throw CliError("mha-decode: --heads must divide --dim and --kv-heads must divide --heads");
  }
  auto d = std::make_shared<DecodeBench>();
  d->shape.embed_dim = s.dim;
  d->shape.num_heads = s.heads;
  d->shape.num_kv_heads = g;
  d->shape.max_tokens = s.seq_q;
  d->shape.cache_element = element;
  const int32_t hd = s.dim / s.heads;
  d->cache_shape = {s.seq_kv + s.seq_q, g, hd, element, false};
  d->storage.resize(attn::kv_cache_bytes(d->cache_shape));
  if (d->storage.empty()) throw CliError("mha-decode: cache too large");
  check_status(attn::kv_cache_init(d->cache_shape, d->storage.data(), d->storage.size(), &d->cache),
               "mha-decode (cache)");
  const std::size_t n = b->count(1, s.seq_kv, static_cast<int64_t>(g) * hd);
  if (element == attn::KvElement::kS8) {
    check_status(attn::kv_cache_append_s8(&d->cache, b->s8(n, 8), b->s8(n, 9), s.seq_kv),
                 "mha-decode (prefill)");
  } else {
    check_status(attn::kv_cache_append_f32(&d->cache, b->f32(n, 8), b->f32(n, 9), s.seq_kv),
                 "mha-decode (prefill)");
  }
  return d;
}

// Back to the context before a timed step.
void rewind(attn::KvCache* cache, int32_t context) {
  cache->position = context;
  cache->next_slot = context;
}

}  // namespace

double mha_decode_ops(const BenchShape& s) {
  const double e = s.dim, sq = s.seq_q, skv = s.seq_kv, h = s.heads;
  const double kv = (s.kv_heads > 0 ? s.kv_heads : s.heads) * (e / h);
  return 2.0 * sq * (2.0 * e * e + 2.0 * e * kv) + 4.0 * h * sq * (skv + sq) * (e / h);
}

BenchCall mha_decode_f32_call(const BenchShape& s) {
  auto b = std::make_shared<BenchBuffers>();
  const attn::KvElement element = s.f16_cache ? attn::KvElement::kF16 : attn::KvElement::kF32;
  auto d = decode_bench(s, element, b.get());
  const std::size_t e = static_cast<std::size_t>(s.dim);
  const std::size_t kv = static_cast<std::size_t>(d->cache_shape.num_kv_heads) *
                         static_cast<std::size_t>(d->cache_shape.head_dim);
  attn::MhaDecodeF32Weights w;
  w.q_proj_weight = b->f32(e * e, 4);
  w.k_proj_weight = b->f32(kv * e, 5);
  w.v_proj_weight = b->f32(kv * e, 6);
  w.out_proj_weight = b->f32(e * e, 7);
  attn::MhaDecodeF32Args a;
  a.x = b->f32(b->count(1, s.seq_q, s.dim), 1);
  a.out = b->f32(b->count(1, s.seq_q, s.dim), 0);
  a.tokens = s.seq_q;
  BenchCall c;
  c.scratch_bytes = attn::mha_decode_f32_scratch_bytes(d->shape);
  const attn::Scratch scratch = b->scratch(c.scratch_bytes);
  const int32_t context = s.seq_kv;
  c.call = [b, d, w, a, scratch, context] {
    rewind(&d->cache, context);
    return attn::mha_decode_f32(d->shape, w, a, &d->cache, scratch);
  };
  return c;
}

BenchCall mha_decode_s8_call(const BenchShape& s) {
  auto b = std::make_shared<BenchBuffers>();
  auto d = decode_bench(s, attn::KvElement::kS8, b.get());
  const std::size_t e = static_cast<std::size_t>(s.dim);
  const std::size_t kv = static_cast<std::size_t>(d->cache_shape.num_kv_heads) *
                         static_cast<std::size_t>(d->cache_shape.head_dim);
  // Weights at 1/(64 sqrt(E)), as for mha (bench_ops.cpp).
  const float w_scale = kBenchInScale / std::sqrt(static_cast<float>(s.dim));
  attn::MhaS8Weights w;
  const std::size_t rows[4] = {e, kv, kv, e};
  attn::FcS8Weights* fc[4] = {&w.q, &w.k, &w.v, &w.out};
  for (int l = 0; l < 4; ++l) {
    fc[l]->weight = b->s8(rows[l] * e, static_cast<uint32_t>(4 + l));
    fc[l]->scales = b->constant(rows[l], w_scale);
  }
  attn::MhaDecodeS8Quant quant;
  quant.input = bench_quant(kBenchInScale);
  quant.q = quant.k = quant.v = quant.attn = quant.out = bench_quant(1.0f / 32.0f);
  quant.scores = bench_quant(bench_dot_scale(s.dim / s.heads));
  b->channels.resize(attn::mha_decode_s8_channel_count(d->shape));
  auto params = std::make_shared<attn::MhaDecodeS8Params>();
  check_status(attn::mha_decode_s8_prepare(d->shape, d->cache_shape.capacity, quant, w,
                                           b->channels.data(), params.get()),
               "mha-decode (int8 prepare)");
  attn::MhaDecodeS8Args a;
  a.x = b->s8(b->count(1, s.seq_q, s.dim), 1);
  a.out = b->s8(b->count(1, s.seq_q, s.dim), 0);
  a.tokens = s.seq_q;
  BenchCall c;
  c.scratch_bytes = attn::mha_decode_s8_scratch_bytes(d->shape, d->cache_shape);
  const attn::Scratch scratch = b->scratch(c.scratch_bytes);
  const int32_t context = s.seq_kv;
  c.call = [b, d, params, a, scratch, context] {
    rewind(&d->cache, context);
    return attn::mha_decode_s8(params.get(), a, &d->cache, scratch);
  };
  return c;
}

}  // namespace attn_cli
