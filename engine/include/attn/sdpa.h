// Scaled dot-product attention, float32.
//
//   O[b] = softmax(Q[b] K[b]^T * scale + mask) V[b]
//
// Layout (row-major, contiguous):
//   q        [batch, seq_q,  dim_k]
//   k        [batch, seq_kv, dim_k]
//   v        [batch, seq_kv, dim_v]
//   out      [batch, seq_q,  dim_v]
//   probs    [batch, seq_q,  seq_kv]   optional: the softmax probabilities
//
// The full seq_q x seq_kv score matrix is never built: queries are processed
// in tiles of kSdpaQueryTile rows against key blocks of kSdpaKeyBlock keys with
// an online (streaming) softmax, so scratch depends on dim_k and dim_v only
// (the buffers and their offsets: SdpaF32Layout below):
//
//   sdpa_f32_scratch_bytes = 64                                  (alignment slack)
//                          + align64(4 * kSdpaQueryTile * dim_k)  (scaled Q tile)
//                          + align64(4 * kSdpaQueryTile * kSdpaKeyBlock) (scores)
//                          + align64(4 * kSdpaQueryTile * dim_v)  (output accumulators)
//                          + 3 * align64(4 * kSdpaQueryTile)      (row max, sum, count)
//
// e.g. dim_k = dim_v = 64: 6400 bytes for any seq_q, seq_kv with the ref
// kernels (kSdpaQueryTile = 8), 12544 with Helium (16), 25024 with the other
// SIMD backends (32).
// With an executor of W workers (attn/parallel.h) each worker gets its own
// copy of the buffers: 64 + W * SdpaF32Layout(dim_k, dim_v).bytes.
//
// Threads: with args.executor the work is split into tasks of (batch item,
// query tile) units, one tile each unless a tile is less work than
// kParallelMinTaskWork (attn/parallel.h; a call of less than two tasks' worth
// runs on the calling thread): bit-identical to the serial op for any worker
// count. With fewer tiles than workers, a batch item of at most 4 queries (a
// decode step) is split by key range instead, into ranges of whole
// kSdpaKeyBlock blocks of at least kParallelMinTaskWork each (a block: rows *
// 64 * (dim_k + dim_v + 4)), when that makes two ranges or more: each worker
// runs the online softmax over its keys (max, sum,
// accumulators), the partial states are merged in key order, and probs (if
// requested) are written per key range from the merged max and sum.
// Deterministic for a given worker count. The same terms are summed in
// another order, with one more rescaling exp per key range: each output
// stays within the float32 bound that holds for any summation order (the
// double-precision reference's tolerance, tests/cases/ref_double.h), so
// within twice that bound of the serial result (tests/threads checks both).
//
// kSdpaQueryTile is 8 in ref and mcu builds (RAM first: Cortex-M), 16 with
// the Cortex-M55's Helium kernels (ATTN_SIMD=mve: the smallest tile of the
// transposed layout, RAM still first) and 32 when the build selects another
// SIMD backend (ATTN_SIMD=hwy|xsimd; the generated attn/config.h records it
// for the library and its users): the SIMD core keeps queries along the vector
// and needs two 16-lane vectors of queries per broadcast key element to reach
// the FMA peak (see kernels/generic/kernels_f32-inl.h). The formula is a
// compile-time constant, so it cannot follow SVE's run-time vector length:
// wider vectors (32 or 64 lanes) work on the same 16- or 32-query tiles, their
// last vector partial (kernels_f32.h).
//
// Masks: see mask.h. A fully masked query row gives zeros in out and probs.
// Non-finite inputs never crash and never cause an out-of-bounds access:
//   - a NaN score (NaN in q_i, in a visible k_j, or in row i of a mask) makes
//     out row i and probs row i NaN; other rows are unaffected;
//   - an Inf score of -inf acts as a mask; +inf makes the row NaN;
//   - NaN/Inf in v[j] reaches column c = the non-finite element's column of
//     every row whose tile visits key j's block, including rows that mask
//     key j (0 * NaN = NaN): masking does not hide non-finite values in v.
//     Keys past a key length or a causal limit for the whole tile are never read;
//   - a Keras mask entry that is nonzero (NaN included) masks the key.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/config.h"
#include "attn/mask.h"
#include "attn/parallel.h"
#include "attn/scratch.h"
#include "attn/status.h"

namespace attn {

inline constexpr int32_t kSdpaQueryTile = ATTN_SDPA_QUERY_TILE;
static_assert(kSdpaQueryTile == 8 || kSdpaQueryTile % 16 == 0, "query tile: 8 or a multiple of 16");
inline constexpr int32_t kSdpaKeyBlock = 64;

struct SdpaShape {
  int32_t batch = 1;
  int32_t seq_q = 0;
  int32_t seq_kv = 0;
  int32_t dim_k = 0;
  int32_t dim_v = 0;
};

// The float core's scratch (attend_f32), one query tile at a time: byte
// offsets of its buffers from the 64-byte-aligned start, each align64(4 * n).
// B: SatBytes (sdpa_f32_scratch_bytes) or RawBytes (the core's carving).
template <class B = SatBytes>
struct SdpaF32Layout {
  using T = typename B::T;
  T scaled_q = 0;  // float [kSdpaQueryTile, dim_k] scaled queries
  T scores = 0;    // float [kSdpaQueryTile, kSdpaKeyBlock] scores, then probabilities
  T acc = 0;       // float [kSdpaQueryTile, dim_v] output accumulators
  T row_max = 0;   // float [kSdpaQueryTile] running max
  T row_sum = 0;   // float [kSdpaQueryTile] running sum
  T visible = 0;   // int32 [kSdpaQueryTile] keys not masked
  T bytes = 0;     // the total
  constexpr SdpaF32Layout(int32_t dim_k, int32_t dim_v) {
    const auto tq = static_cast<T>(kSdpaQueryTile);
    scores = B::add(scaled_q, B::block(tq, static_cast<T>(dim_k), 4));
    acc = B::add(scores, B::block(tq, static_cast<T>(kSdpaKeyBlock), 4));
    row_max = B::add(acc, B::block(tq, static_cast<T>(dim_v), 4));
    row_sum = B::add(row_max, B::block(tq, 1, 4));
    visible = B::add(row_sum, B::block(tq, 1, 4));
    bytes = B::add(visible, B::block(tq, 1, 4));
  }
};

// Scratch bytes sdpa_f32 needs for `shape` and `workers` concurrent workers
// (0 if a dimension or workers is not positive):
// 64 (alignment slack) + workers * SdpaF32Layout(dim_k, dim_v).bytes.
constexpr std::size_t sdpa_f32_scratch_bytes(const SdpaShape& shape, int32_t workers = 1) {
  if (shape.dim_k <= 0 || shape.dim_v <= 0 || workers <= 0) return 0;
  const uint64_t slice = SdpaF32Layout<>(shape.dim_k, shape.dim_v).bytes;
  return sat::to_size(sat::add(kAlign, sat::mul(slice, static_cast<uint64_t>(workers))));
}

struct SdpaF32Args {
  const float* q = nullptr;
  const float* k = nullptr;
  const float* v = nullptr;
  float* out = nullptr;
  float* probs = nullptr;  // optional
  // 0 selects 1/sqrt(dim_k); otherwise must be finite and > 0.
  float scale = 0.0f;
  Mask mask{};
  // Optional: workers to spread the work over (default: this thread alone).
  Executor executor{};
};

// Returns kOk, or without writing anything:
//   kNullPointer     q, k, v or out is null
//   kBadShape        a dimension is <= 0
//   kBadArgument     scale negative/NaN/Inf, a key length outside [0, seq_kv],
//                    an executor that is not executor_valid
//   kScratchTooSmall scratch.bytes < sdpa_f32_scratch_bytes(shape, executor.workers)
//                    or scratch.data null
Status sdpa_f32(const SdpaShape& shape, const SdpaF32Args& args, Scratch scratch);

}  // namespace attn
