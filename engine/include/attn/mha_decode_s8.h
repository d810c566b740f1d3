// Decoder-step multi-head attention, int8, over an int8 KV cache (kv_cache.h),
// bit-identical to one-shot mha_s8 with a causal mask (a band mask with a
// sliding window) over the whole sequence, whatever the chunking.
//
// One call takes the n new int8 tokens x [n, E] at positions p0 =
// cache->position .. p0 + n - 1 (hd = E / num_heads, G = num_kv_heads):
//   Q = FULLY_CONNECTED(x, Wq, bq)  -> int8 (q quant)  [n, E]
//   K = FULLY_CONNECTED(x, Wk, bk)  -> int8 (k quant)  [n, G*hd], appended to the cache
//   V = FULLY_CONNECTED(x, Wv, bv)  -> int8 (v quant)  [n, G*hd], appended to the cache
//   per query head h (kv head g = h / (num_heads / G)):
//     O_h = sdpa_s8(Q_h, K_g, V_g) over the positions each token sees (as
//           mha_decode.h: j <= p, or p - capacity < j <= p with a window)
//   out = FULLY_CONNECTED(O, Wo, bo) -> int8 (out quant) [n, E]
// FULLY_CONNECTED and the attention core are mha_s8's (see mha_s8.h): the
// cache holds exactly the int8 K/V codes the one-shot op computes, each
// query row's scores, softmax and P V are the same integer sums (key order in
// a wrapped ring does not change them), so the results are the same bits.
// A decode step (one token) runs the int8 core once per kv head, its query
// rows the group's heads (all seeing every cached key): each kv head's K/V
// are read once for all the query heads that share it (the query-tiled core,
// from 4 rows on where its kernels are fast, packs them once per call; with a
// packed cache, KvCacheShape::packed, it reads the cache's packed blocks and
// packs nothing: the append repacks the 16-slot block each new token lands
// in). A prefill
// (several tokens, causal per token) runs the core per query head over the
// tokens' rows. The projections take the input row once in the int8
// kernels' query layout and score every weight row against it (qk_s8: the
// multi-row dot kernel), requantized per channel: the same integer sums.
//
// Threads (args.executor, attn/parallel.h): the q/k/v projections as one
// parallel pass over ranges of output channels, the attention through the
// int8 core's parallel run (one task per kv head, or per query head and
// chunk of query tiles; a decode step with fewer kv heads than workers split
// by key range in three exact passes: see sdpa_s8.h), the output projection
// as another pass. Integer arithmetic throughout: bit-identical to the
// serial op for any worker count.
//
// Rotary position embedding (shape.rope.dims > 0): the int8 Q and K codes of
// each head are rotated at their absolute positions after the projections and
// before K is cached, in integer arithmetic only, so every target computes
// the same bits (docs/INT8.md states each step):
//   prepare: r = theta^(-2 / dims) in Q0.64 from theta's float32 bits (log2
//            bit by bit, 2^-x by a Taylor series in Q1.63)
//   eval, per token at position p and pair i < dims / 2:
//     f_i = f_{i-1} * r (Q0.64 turns per position, f_0 = 1 / 2pi)
//     phase = p * f_i modulo one turn (exact: uint64 wraps), its cos and sin
//             in Q1.30 by Taylor polynomials on an eighth of a turn
//     (a, b) -> (a cos - b sin, b cos + a sin), a = code - zero point,
//             divided by 2^30 to nearest (ties away from zero) back to the
//             same scale and zero point, clamped to int8
//   pairs as in mha_decode.h: kHalfSplit (x[i], x[i + dims/2]), kInterleaved
//   (x[2i], x[2i + 1]); codes from dims on unchanged.
// The rotated codes keep the projection's (scale, zero point): calibrate q and
// k on the rotated values (a pair's norm is what the rotation keeps), or a
// code beyond int8 saturates. Angle error (tests/reference/int8_rope_reference.py
// selftest against 160-bit math): cos/sin within 1.5e-9 (< 2^-29) of those of
// the computed phase; f_i within 3.2 (i + 1) 2^-64 turns, so the phase is
// within p (i + 1) 2^-62 turns of p theta^(-2i/dims) / 2pi (below 1e-10 rad
// at p = 10^6, dims 128). Against float decoding (mha_decode.h) on the same
// dequantized model, int8 with RoPE stays within 1.6 % of the output range
// (mean 0.2 to 0.3 %), like mha_s8 without it
// (tests/int8/decode_rope_accuracy_test.cpp).
// A one-shot reference is FULLY_CONNECTED -> this rotation -> causal int8
// SDPA (tests/reference/int8_rope_reference.py); incremental decoding equals it bit for
// bit whatever the chunking.
//
// Memory: prepare stores 2 * E + 2 * G * hd per-channel multipliers in caller
// storage (mha_decode_s8_channel_count). Eval scratch, T = max_tokens, C =
// the capacity prepared for (the int8 softmax needs one row of int8 scores
// over every key a query sees: it grows with the cache's capacity, never with
// the number of tokens decoded), W = the executor's workers, each with a
// slice the projections and the core use in turn:
//   mha_decode_s8_scratch_bytes = 64 + 2 * align64(T E) + 2 * align64(T G hd)
//                               + align64(4 * rope.dims)      int32 cos/sin
//                               + W * max(core, align64(2 E + 4) + 256)
//   core = sdpa_s8_core_bytes(C, hd, hd, P) if R >= kSdpaS8TileMinRows (4),
//          sdpa_s8_row_bytes(C, hd, hd)     else (the core never takes its
//          query-tiled path below 4 rows: token-by-token decoding reserves
//          only the one-row buffers)
//   P = the cache keeps a packed section (attn/kv_cache.h): the core reads
//       K/V there and reserves no copy of them (mha_decode_s8_scratch_bytes
//       with the cache's shape; the form with a capacity assumes none)
//   R = max(T, H / G) (mha_decode_s8_core_rows: a one-token step's core call
//   sees a kv head's H / G query heads, a longer one a head's T tokens)
//   (align64(2 E + 4): an input row in the kernels' query layout; 256: the
//   int32 sums of 64 channels)
// Limits: capacity <= kSdpaS8MaxSeqKv (4095), E <= kMhaS8MaxFeatures.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/int8/quantize.h"
#include "attn/kv_cache.h"
#include "attn/mha_decode.h"
#include "attn/mha_s8.h"
#include "attn/parallel.h"
#include "attn/scratch.h"
#include "attn/sdpa_s8.h"
#include "attn/status.h"

namespace attn {

struct MhaDecodeS8Quant {
  QuantParams input;    // x
  QuantParams q, k, v;  // the projections' outputs (k, v: the cache's codes)
  QuantParams scores;   // Q_h K_g^T, every head
  QuantParams attn;     // the concatenated head outputs
  QuantParams out;
  float beta = 0.0f;  // 0 = (float)(1 / sqrt(head_dim))
};

struct MhaDecodeS8Params {
  MhaDecodeShape shape{};  // num_kv_heads resolved (never 0)
  int32_t capacity = 0;    // largest cache capacity eval accepts
  FcS8Layer q, k, v, out;
  SdpaS8Params attend{};
  uint64_t rope_ratio = 0;  // Q0.64 theta^(-2 / rope.dims) (rope.dims > 0)
};

constexpr std::size_t mha_decode_s8_channel_count(const MhaDecodeShape& s) {
  const int32_t g = s.num_kv_heads == 0 ? s.num_heads : s.num_kv_heads;
  if (s.embed_dim <= 0 || s.num_heads <= 0 || g <= 0 || s.embed_dim % s.num_heads != 0) return 0;
  const auto e = static_cast<std::size_t>(s.embed_dim);
  return 2 * e + 2 * static_cast<std::size_t>(g) * (e / static_cast<std::size_t>(s.num_heads));
}

// Channels of a projection per multi-row dot call (the 256 bytes above).
inline constexpr int32_t kMhaDecodeS8Channels = 64;

// The most query rows one core call of a step can see: a one-token step's
// kv head with its H / G query heads, or one query head over the step's
// tokens (the core's query-tiled section is reserved only from
// kSdpaS8TileMinRows rows on).
constexpr int32_t mha_decode_s8_core_rows(const MhaDecodeShape& s) {
  const int32_t g = s.num_kv_heads == 0 ? s.num_heads : s.num_kv_heads;
  const int32_t group = g > 0 ? s.num_heads / g : 0;
  return s.max_tokens > group ? s.max_tokens : group;
}

// One worker's slice of the eval scratch (see above); 0 for a bad shape.
// kv_packed: the cache keeps its K/V packed (the core's tile section then
// holds no copy of them).
constexpr uint64_t mha_decode_s8_slice_bytes64(int32_t embed_dim, int32_t head_dim,
                                               int32_t capacity, int32_t core_rows,
                                               bool kv_packed = false) {
  const uint64_t core =
      sdpa_s8_core_bytes_for_rows64(core_rows, capacity, head_dim, head_dim, kv_packed);
  const uint64_t fc =
      sat::add(s8_bytes::block(sat::add(sat::mul(2, static_cast<uint64_t>(embed_dim)), 4)),
               sat::f32_bytes(kMhaDecodeS8Channels));
  return core == 0 ? 0 : (core > fc ? core : fc);
}

// The eval scratch (the formula above; kv_packed: P), 0 for a bad shape or
// workers <= 0.
constexpr uint64_t mha_decode_s8_scratch_bytes64(const MhaDecodeShape& s, int32_t capacity,
                                                 int32_t workers, bool kv_packed) {
  const int32_t g = s.num_kv_heads == 0 ? s.num_heads : s.num_kv_heads;
  if (s.embed_dim <= 0 || s.num_heads <= 0 || g <= 0 || s.max_tokens <= 0 || capacity <= 0 ||
      s.embed_dim % s.num_heads != 0 || s.rope.dims < 0 || workers <= 0) {
    return 0;
  }
  const int32_t hd = s.embed_dim / s.num_heads;
  const auto t = static_cast<uint64_t>(s.max_tokens);
  const auto kvd = static_cast<uint64_t>(g) * static_cast<uint64_t>(hd);
  uint64_t n =
      sat::add(kAlign, sat::mul(2, s8_bytes::block(t, static_cast<uint64_t>(s.embed_dim))));
  n = sat::add(n, sat::mul(2, s8_bytes::block(t, kvd)));
  n = sat::add(n, sat::f32_bytes(static_cast<uint64_t>(s.rope.dims)));  // int32 cos/sin
  const uint64_t slice =
      mha_decode_s8_slice_bytes64(s.embed_dim, hd, capacity, mha_decode_s8_core_rows(s), kv_packed);
  return sat::add(n, sat::mul(slice, static_cast<uint64_t>(workers)));
}

// The eval scratch for a cache of `capacity` slots without a packed section;
// 0 for a bad shape or workers <= 0. Enough for a packed cache too.
constexpr std::size_t mha_decode_s8_scratch_bytes(const MhaDecodeShape& s, int32_t capacity,
                                                  int32_t workers = 1) {
  return sat::to_size(mha_decode_s8_scratch_bytes64(s, capacity, workers, false));
}

// The eval scratch for a cache of shape `cache` (at its capacity): with a
// packed section (kv_cache_packed_bytes64(cache) > 0) the core reads K/V
// there and needs no copy of its own, num_kv_heads-independent
// align64(C16 * round4(hd)) + align64(4 * C16) + align64(C16 * round16(hd))
// bytes less per worker when a core call can see kSdpaS8TileMinRows rows.
constexpr std::size_t mha_decode_s8_scratch_bytes(const MhaDecodeShape& s,
                                                  const KvCacheShape& cache, int32_t workers = 1) {
  return sat::to_size(mha_decode_s8_scratch_bytes64(s, cache.capacity, workers,
                                                    kv_cache_packed_bytes64(cache) > 0));
}

// Returns kOk, or without writing *params or the channel storage:
//   kNullPointer    params, channel storage, a weight or scale array null
//   kBadShape       a dimension <= 0 or above the engine's limit
//   kShapeMismatch  num_heads not dividing E, num_kv_heads not dividing num_heads
//   kOverflow       E > kMhaS8MaxFeatures, capacity > kSdpaS8MaxSeqKv
//   kBadArgument    a scale or zero point invalid, a weight scale not finite
//                   and > 0, a multiplier >= 2^30, beta invalid, cache_element
//                   not kS8, rope.dims odd or > head_dim, rope.theta not
//                   finite and > 1
Status mha_decode_s8_prepare(const MhaDecodeShape& shape, int32_t capacity,
                             const MhaDecodeS8Quant& quant, const MhaS8Weights& weights,
                             QuantizedMultiplier* channel_storage, MhaDecodeS8Params* params);

struct MhaDecodeS8Args {
  const int8_t* x = nullptr;  // [tokens, E]
  int8_t* out = nullptr;      // [tokens, E]
  int32_t tokens = 1;         // 1 .. max_tokens
  // Optional: workers to spread the work over (default: this thread alone).
  Executor executor{};
};

// Returns kOk, or with neither out nor the cache written:
//   kNullPointer     params, cache, x or out null
//   kBadShape        tokens outside 1 .. max_tokens
//   kBadArgument     the cache's element is not kS8, an executor that is not
//                    executor_valid
//   kShapeMismatch   the cache's num_kv_heads / head_dim not the op's, or its
//                    capacity above the prepared one
//   kCacheFull       a linear cache without room for the tokens
//   kOverflow        position + tokens beyond kKvCacheMaxPosition
//   kScratchTooSmall scratch smaller than mha_decode_s8_scratch_bytes(shape,
//                    cache shape, executor.workers) at the prepared capacity
Status mha_decode_s8(const MhaDecodeS8Params* params, const MhaDecodeS8Args& args, KvCache* cache,
                     Scratch scratch);

}  // namespace attn
