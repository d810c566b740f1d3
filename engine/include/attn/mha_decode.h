// Decoder-step multi-head attention, float32, over a KV cache (kv_cache.h).
//
// One call takes the n new tokens x [n, E] of one stream (n = 1: a decode
// step; n > 1: a prefill) whose absolute positions are p0 = cache->position,
// .., p0 + n - 1, and, with hd = E / num_heads, G = num_kv_heads,
// g(h) = h / (num_heads / G) the kv head of query head h:
//   Q = x Wq^T + bq  [n, E]      K = x Wk^T + bk  [n, G*hd]      V = x Wv^T + bv
//   RoPE (optional) rotates each head's Q and K rows at their absolute position
//   K, V appended to the cache (rounded to its element type), then per query
//   head h and new token t (position p):
//     O[t, h] = softmax_j(Q[t,h] . K_j / sqrt(hd)) V_j over the cached positions
//               j <= p (linear cache) or p - capacity < j <= p (sliding window),
//               K_j, V_j of kv head g(h)
//   out = O Wo^T + bo  [n, E]
// which equals one-shot causal attention over the whole sequence (a band mask
// with a window) whatever the chunking. cache->position grows by n.
//
// Rotary position embedding (rope.dims > 0, even, <= hd): for pair i <
// dims / 2, angle = p * theta^(-2i / dims), computed in double precision per
// token (no table; exact integer positions up to 2^53, angles accurate to about
// 1e-16 * p rad) and rotated in float32:
//   kHalfSplit (Llama, GPT-NeoX): pairs (x[i], x[i + dims/2])
//   kInterleaved (GPT-J):         pairs (x[2i], x[2i + 1])
//   (a, b) -> (a cos - b sin, b cos + a sin); elements from dims on unchanged.
//
// Weights (row-major [out, in], PyTorch nn.Linear):
//   Llama style: q_proj_weight [E, E], k_proj_weight and v_proj_weight [G*hd, E],
//                q/k/v_proj_bias [E], [G*hd], [G*hd] or null
//   nn.MultiheadAttention: in_proj_weight [3E, E] and in_proj_bias [3E] (or
//                null), used when in_proj_weight (or in_proj_weight_f16) is
//                set (needs G = num_heads)
//   out_proj_weight [E, E], out_proj_bias [E] or null
//
// Float16 weights: each weight matrix may instead be given as IEEE binary16
// bits in the same layout (q/k/v_proj_weight_f16, in_proj_weight_f16,
// out_proj_weight_f16; biases stay float32), chosen per matrix: a matrix is
// float32 or binary16, never both (kBadArgument). The math stays float32: each
// weight is widened exactly as it is read (kernels' gemm_nt_f16w_f32, in
// registers) and the products accumulate in float32: the step is the step with
// float32 weights holding the widened values, bit for bit with the SIMD
// backends (hwy, xsimd), within float32 rounding of the projections' sums
// with the reference kernels (ref, and the Cortex-M backends' projections).
// Threads (below) hold as with float32 weights: the projections' outputs do
// not depend on the split. The weights are used as stored: rounding float32
// weights to binary16 is the caller's (`attn run mha-decode --weights-dtype
// f16` rounds to nearest, ties to even). A step of n tokens reads the weights
// once: (2 E^2 + 2 G hd E) * 4 bytes in float32, half that in binary16 (E 512,
// G hd 128: 2.6 MB or 1.3 MB), plus the cache's visible K/V. No extra
// scratch: mha_decode_f32_scratch_bytes is the same either way.
//
// Grouped-query attention: G divides num_heads (G = 1: multi-query). The
// attention runs per kv head over tiles of (token, query head) rows of that
// group; each key block of the cache is read once per tile, so in a decode step
// whose group fits one tile (num_heads / G <= kSdpaQueryTile) each kv head's
// K/V is read once for all the query heads that share it. A tile takes keys in
// blocks of kSdpaQueryTile * kDecodeKeyBlock / rows (a multiple of
// kDecodeKeyBlock: 512 keys for a decode step's 4 rows with the SIMD tile of
// 32), one online-softmax step per block. A kF16 cache is read by the tile
// kernels' binary16 forms (qk_tile_f16k_f32, pv_tile_f16v_f32), which widen
// each K/V vector in registers as they load it (F16C, NEON FCVTL, SVE FCVT):
// no float copy of a block, the same scratch as a float32 cache.
//
// Threads (args.executor, attn/parallel.h): the q/k/v projections as one
// parallel pass over ranges of output features, the attention as one task
// per (kv head, query tile), the output projection as another pass; each
// output is computed exactly as in the serial op, so the result is
// bit-identical for any worker count. When a step has fewer tiles than
// workers (decode: one tile per kv head) and at least 2 * kDecodeKeyBlock
// visible keys, each kv head's keys are split instead into P = workers / G
// ranges (at least 2, at most one per kDecodeKeyBlock keys): each range runs
// the online softmax over its keys into its own state (max, sum,
// accumulators), and the states are merged in key order,
//   m = max(m_0, m_p), l = l_0 e^(m_0 - m) + l_p e^(m_p - m),
//   acc = acc_0 e^(m_0 - m) + acc_p e^(m_p - m),   out = acc / l.
// That sums the same terms in another order (with one more rescaling per
// range): deterministic for a given worker count, and within the float32
// bound of attn/sdpa.h's key split (tests/threads checks it).
//
// Scratch (independent of the context length and of the capacity), T = max_tokens,
// W = workers, one MhaDecodeF32Layout slice per worker (R = kSdpaQueryTile,
// B = kDecodeKeyBlock):
//   mha_decode_f32_scratch_bytes = 64 + 2 * align64(4 T E) + 2 * align64(4 T G hd)
//       + align64(4 * dims)                              rotary cos/sin of a token
//       + W * (2 * align64(4 R hd) + align64(4 R B) + 2 * align64(4 R))  the core
// (a float16 cache's K and V are widened in registers as the tiles read them:
// no float copy, the same scratch as a float32 cache)
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/kv_cache.h"
#include "attn/parallel.h"
#include "attn/scratch.h"
#include "attn/sdpa.h"
#include "attn/status.h"

namespace attn {

inline constexpr int32_t kDecodeKeyBlock = 64;

enum class RopeStyle : int32_t {
  kHalfSplit = 0,    // Llama / GPT-NeoX
  kInterleaved = 1,  // GPT-J
};

struct RopeConfig {
  int32_t dims = 0;  // rotary dimensions per head (even, <= head_dim); 0 = no RoPE
  RopeStyle style = RopeStyle::kHalfSplit;
  float theta = 10000.0f;  // base, finite and > 1
};

struct MhaDecodeShape {
  int32_t embed_dim = 0;
  int32_t num_heads = 1;
  int32_t num_kv_heads = 0;                   // 0 = num_heads
  int32_t max_tokens = 1;                     // most new tokens per call (sizes the scratch)
  KvElement cache_element = KvElement::kF32;  // the cache's element (kF32 or kF16 here)
  RopeConfig rope{};
};

// One worker's buffers of the attention over the cache: byte offsets from the
// slice's 64-byte-aligned start, each align64(4 * n) (B: SatBytes for the
// formula, RawBytes for the op's carving; see SdpaF32Layout).
template <class B = SatBytes>
struct MhaDecodeF32Layout {
  using T = typename B::T;
  T scaled_q = 0;  // float [kSdpaQueryTile, hd] the tile's scaled query rows
  T acc = 0;       // float [kSdpaQueryTile, hd] output accumulators
  T scores = 0;    // float [kSdpaQueryTile * kDecodeKeyBlock] scores, then probabilities
  T row_max = 0;   // float [kSdpaQueryTile] running max
  T row_sum = 0;   // float [kSdpaQueryTile] running sum
  T bytes = 0;     // the total
  explicit constexpr MhaDecodeF32Layout(int32_t head_dim) {
    const auto r = static_cast<T>(kSdpaQueryTile);
    const auto hd = static_cast<T>(head_dim);
    const auto b = static_cast<T>(kDecodeKeyBlock);
    acc = B::add(scaled_q, B::block(r, hd, 4));
    scores = B::add(acc, B::block(r, hd, 4));
    row_max = B::add(scores, B::block(r, b, 4));
    row_sum = B::add(row_max, B::block(r, 1, 4));
    bytes = B::add(row_sum, B::block(r, 1, 4));
  }
};

// 0 for a bad shape or workers <= 0.
constexpr std::size_t mha_decode_f32_scratch_bytes(const MhaDecodeShape& s, int32_t workers = 1) {
  const int32_t g = s.num_kv_heads == 0 ? s.num_heads : s.num_kv_heads;
  if (s.embed_dim <= 0 || s.num_heads <= 0 || g <= 0 || s.max_tokens <= 0 ||
      s.embed_dim % s.num_heads != 0 || s.rope.dims < 0 || workers <= 0) {
    return 0;
  }
  const int32_t head_dim = s.embed_dim / s.num_heads;
  const auto hd = static_cast<uint64_t>(head_dim);
  const auto t = static_cast<uint64_t>(s.max_tokens);
  const auto e = static_cast<uint64_t>(s.embed_dim);
  uint64_t n = sat::add(kAlign, sat::mul(2, sat::f32_bytes(t, e)));
  n = sat::add(n, sat::mul(2, sat::f32_bytes(t, sat::mul(static_cast<uint64_t>(g), hd))));
  n = sat::add(n, sat::f32_bytes(static_cast<uint64_t>(s.rope.dims)));
  const uint64_t slice = MhaDecodeF32Layout<>(head_dim).bytes;
  return sat::to_size(sat::add(n, sat::mul(slice, static_cast<uint64_t>(workers))));
}

struct MhaDecodeF32Weights {
  const float* q_proj_weight = nullptr;
  const float* k_proj_weight = nullptr;
  const float* v_proj_weight = nullptr;
  const float* q_proj_bias = nullptr;
  const float* k_proj_bias = nullptr;
  const float* v_proj_bias = nullptr;
  const float* in_proj_weight = nullptr;  // packed Wq;Wk;Wv (instead of the three above)
  const float* in_proj_bias = nullptr;    // packed, with in_proj_weight
  const float* out_proj_weight = nullptr;
  const float* out_proj_bias = nullptr;
  // binary16 bits instead of the float32 matrix of the same name (see above)
  const uint16_t* q_proj_weight_f16 = nullptr;
  const uint16_t* k_proj_weight_f16 = nullptr;
  const uint16_t* v_proj_weight_f16 = nullptr;
  const uint16_t* in_proj_weight_f16 = nullptr;
  const uint16_t* out_proj_weight_f16 = nullptr;
};

struct MhaDecodeF32Args {
  const float* x = nullptr;  // [tokens, E]
  float* out = nullptr;      // [tokens, E]
  int32_t tokens = 1;        // n, 1 .. max_tokens
  // Optional: workers to spread the work over (default: this thread alone).
  Executor executor{};
};

// Returns kOk, or with neither out nor the cache written:
//   kNullPointer     cache, x, out null, no output projection (neither
//                    out_proj_weight nor out_proj_weight_f16), or no input
//                    projection (no in_proj_weight(_f16) and not each of
//                    q/k/v_proj_weight given, in float32 or binary16)
//   kBadShape        a dimension <= 0 or above the engine's limit; tokens
//                    outside 1 .. max_tokens
//   kShapeMismatch   num_heads not dividing E, num_kv_heads not dividing
//                    num_heads, in_proj_weight with num_kv_heads != num_heads,
//                    the cache's num_kv_heads / head_dim not the op's
//   kBadArgument     rope.dims odd or > head_dim, theta not finite and > 1; the
//                    cache's element not cache_element or not kF32 / kF16; an
//                    executor that is not executor_valid; a weight matrix given
//                    both as float32 and as binary16
//   kCacheFull       a linear cache without room for the tokens
//   kOverflow        position + tokens beyond kKvCacheMaxPosition
//   kScratchTooSmall scratch smaller than
//                    mha_decode_f32_scratch_bytes(shape, executor.workers)
Status mha_decode_f32(const MhaDecodeShape& shape, const MhaDecodeF32Weights& weights,
                      const MhaDecodeF32Args& args, KvCache* cache, Scratch scratch);

}  // namespace attn
