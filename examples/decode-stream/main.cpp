// Decoding a stream one token at a time with a KV cache (attn/mha_decode.h).
// A decoder layer with 8 query heads sharing 2 kv heads (grouped-query
// attention), head size 32, half-split rotary positions on all 32 dimensions,
// and a float16 cache:
//  1. 48 tokens decoded one call per token give the same outputs as one
//     prefill call over all 48 (the cache makes each step cost O(context)).
//  2. A sliding window of 64 positions keeps memory bounded for an endless
//     stream: 10,000 tokens through the same 64-slot ring.
//  3. A linear cache that is full says so (kCacheFull) and writes nothing.
// Exit code 0 when all three hold.
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "attn/attn.h"

namespace {

constexpr int32_t kEmbed = 256, kHeads = 8, kKvHeads = 2, kHeadDim = kEmbed / kHeads;
constexpr int32_t kKvDim = kKvHeads * kHeadDim;
constexpr int32_t kTokens = 48;

// Deterministic weights in [-0.1, 0.1) (an LCG stands in for a trained model).
float next_value(uint32_t* state) {
  *state = *state * 1664525u + 1013904223u;
  return (static_cast<float>(*state >> 8) / 16777216.0f - 0.5f) * 0.2f;
}
template <std::size_t N>
void fill(float (&a)[N], uint32_t seed) {
  for (float& x : a) x = next_value(&seed);
}

float wq[kEmbed * kEmbed], wk[kKvDim * kEmbed], wv[kKvDim * kEmbed], wo[kEmbed * kEmbed];
float tokens[kTokens * kEmbed], stepwise[kTokens * kEmbed], prefill[kTokens * kEmbed];

constexpr attn::MhaDecodeShape shape_for(int32_t max_tokens) {
  attn::MhaDecodeShape s;
  s.embed_dim = kEmbed;
  s.num_heads = kHeads;
  s.num_kv_heads = kKvHeads;
  s.max_tokens = max_tokens;
  s.cache_element = attn::KvElement::kF16;
  s.rope.dims = kHeadDim;
  s.rope.style = attn::RopeStyle::kHalfSplit;
  s.rope.theta = 10000.0f;
  return s;
}
constexpr attn::MhaDecodeShape kStep = shape_for(1);
constexpr attn::MhaDecodeShape kPrefill = shape_for(kTokens);
constexpr attn::KvCacheShape kLinear{/*capacity*/ kTokens, kKvHeads, kHeadDim,
                                     attn::KvElement::kF16, /*window*/ false};
constexpr attn::KvCacheShape kWindow{/*capacity*/ 64, kKvHeads, kHeadDim, attn::KvElement::kF16,
                                     /*window*/ true};

// Caches and scratch: sizes known at compile time, no heap.
attn::Workspace<attn::kv_cache_bytes(kLinear)> linear_storage;
attn::Workspace<attn::kv_cache_bytes(kWindow)> window_storage;
attn::Workspace<attn::mha_decode_f32_scratch_bytes(kPrefill)> ws;

bool ok(attn::Status st, const char* what) {
  if (st == attn::Status::kOk) return true;
  std::printf("%s: %s\n", what, attn::status_str(st));
  return false;
}

}  // namespace

int main() {
  fill(wq, 1);
  fill(wk, 2);
  fill(wv, 3);
  fill(wo, 4);
  fill(tokens, 5);
  attn::MhaDecodeF32Weights w;
  w.q_proj_weight = wq;
  w.k_proj_weight = wk;
  w.v_proj_weight = wv;
  w.out_proj_weight = wo;

  // 1. One token per call, then the same tokens in one prefill call.
  attn::KvCache cache;
  if (!ok(attn::kv_cache_init(kLinear, linear_storage.storage, sizeof linear_storage, &cache),
          "init"))
    return 1;
  for (int32_t t = 0; t < kTokens; ++t) {
    attn::MhaDecodeF32Args a;
    a.x = tokens + t * kEmbed;
    a.out = stepwise + t * kEmbed;
    a.tokens = 1;
    if (!ok(attn::mha_decode_f32(kStep, w, a, &cache, ws.scratch()), "decode step")) return 1;
  }
  if (!ok(attn::kv_cache_reset(&cache), "reset")) return 1;
  attn::MhaDecodeF32Args all;
  all.x = tokens;
  all.out = prefill;
  all.tokens = kTokens;
  if (!ok(attn::mha_decode_f32(kPrefill, w, all, &cache, ws.scratch()), "prefill")) return 1;
  double diff = 0, scale = 0;
  for (int32_t i = 0; i < kTokens * kEmbed; ++i) {
    diff = std::fmax(diff, std::fabs(static_cast<double>(stepwise[i]) - prefill[i]));
    scale = std::fmax(scale, std::fabs(static_cast<double>(prefill[i])));
  }
  std::printf("%d tokens one by one vs one prefill: max |difference| %.3g (max |out| %.3g)\n",
              kTokens, diff, scale);
  // Both paths sum the same products in a different order: float32 rounding only.
  const bool same = diff <= 1e-5 * scale;

  // 2. An endless stream through a 64-position window: memory stays fixed.
  attn::KvCache ring;
  if (!ok(attn::kv_cache_init(kWindow, window_storage.storage, sizeof window_storage, &ring),
          "init"))
    return 1;
  float out[kEmbed];
  for (int32_t t = 0; t < 10000; ++t) {
    attn::MhaDecodeF32Args a;
    a.x = tokens + (t % kTokens) * kEmbed;
    a.out = out;
    if (!ok(attn::mha_decode_f32(kStep, w, a, &ring, ws.scratch()), "window step")) return 1;
  }
  std::printf("window of %d: %lld tokens decoded in %zu bytes of cache, out[0] = %.6f\n",
              kWindow.capacity, static_cast<long long>(ring.position), sizeof window_storage,
              static_cast<double>(out[0]));

  // 3. The linear cache holds kTokens positions and is full now.
  attn::MhaDecodeF32Args one;
  one.x = tokens;
  one.out = out;
  const attn::Status full = attn::mha_decode_f32(kStep, w, one, &cache, ws.scratch());
  std::printf("one more token into the full linear cache: %s (position still %lld)\n",
              attn::status_str(full), static_cast<long long>(cache.position));
  std::printf("scratch %zu bytes, linear cache %zu bytes (%s float kernels)\n", sizeof ws,
              sizeof linear_storage, ATTN_F32_BACKEND);
  return same && full == attn::Status::kCacheFull && cache.position == kTokens ? 0 : 1;
}
