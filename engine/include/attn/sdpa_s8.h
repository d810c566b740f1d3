// Scaled dot-product attention, int8, bit-identical to TensorFlow Lite's op
// sequence (see docs/INT8.md):
//
//   S = BATCH_MATMUL(Q, K, adj_y)  -> int8 scores  (scores scale / zero point)
//   P = SOFTMAX(S, beta)           -> int8, scale 1/256, zero point -128
//   O = BATCH_MATMUL(P, V)         -> int8 out     (out scale / zero point)
//
// beta carries the attention scale: 0 selects (float)(1/sqrt(dim_k)).
//
// Layout (row-major, contiguous int8):
//   q        [batch, seq_q,  dim_k]
//   k        [batch, seq_kv, dim_k]
//   v        [batch, seq_kv, dim_v]
//   out      [batch, seq_q,  dim_v]
//   probs    [batch, seq_q,  seq_kv]  optional: P (masked keys give -128)
//
// Masks (mask.h): masked keys behave as if their columns were removed from S
// before the softmax (they get probability code -128, i.e. 0, and add nothing
// to O). A query row with every key masked outputs the output zero point.
// The integer components (causal, key_lengths, boolean) are exact. The float
// matrices are read as bit patterns (no floating point in eval):
//   keras     nonzero (including NaN) masks the key;
//   additive  0 (+0 or -0) keeps the key, -inf or any value <= -1e9 masks it;
//             any other value cannot be expressed in the int8 op sequence and
//             sdpa_s8 returns kUnsupported before writing anything.
//
// Prepare (floating point, once per set of scales) derives every multiplier,
// shift, diff_min and the softmax exp table; sdpa_s8 (eval) uses only integer
// arithmetic and per-row buffers (never seq_q x seq_kv):
//
//   sdpa_s8_scratch_bytes = 64 + W * sdpa_s8_core_bytes(seq_kv, dim_k, dim_v)
//                           (W: the executor's workers, 1 without one)
//   sdpa_s8_core_bytes    = sdpa_s8_row_bytes + sdpa_s8_tile_bytes
//   sdpa_s8_row_bytes     = 2 * align64(seq_kv)              int8 scores/probs, mask flags
//                         + align64(2 * seq_kv)              int16 probabilities
//                         + align64(sizeof(void*) * seq_kv)  V rows of the non-zero ones
//                         + align64(2 * dim_k)               the prepared query row
//                         + align64(4 * dim_v)               int32 accumulators
//   sdpa_s8_tile_bytes    = 0 when T = ATTN_SDPA_S8_QUERY_TILE is 1, else
//     (r16 / r4: rounded up to a multiple of 16 / 4)
//                           align64(r16(seq_kv) * r4(dim_k))     packed K
//                         + align64(4 * r16(seq_kv))             key sums
//                         + align64(r16(seq_kv) * r16(dim_v))    packed V
//                         + align64(E * T * r4(dim_k))           packed query tile
//                         + 2 * align64(4 * T)                   row sums, row limits
//                         + align64(4 * T * r16(seq_kv))         int32 score tile
//                         + align64(T * r16(seq_kv))             int8 probabilities
//                         + align64(4 * T * r16(dim_v))          int32 output tile
// T is 16 on x86-64 (GCC/Clang) and AArch64, where the query-tiled core runs
// (int8 GEMMs of T query rows: vpdpbusd at the AVX-VNNI / AVX-512 VNNI levels,
// SDOT or USMMLA on Arm CPUs with dot products), 4 with the Cortex-M DSP and
// Helium kernels (SMLAD / VMLADAVA), and 1 elsewhere (the one-row core and its
// scratch); E = ATTN_SDPA_S8_QTILE_BYTES is 2 with the DSP kernels (an int16
// query tile), else 1. Both are recorded in the generated attn/config.h. None
// of it depends on seq_q.
//
// Exactness limits (int32 accumulation, |x - zp| <= 255 for int8 x and zp):
//   dim_k  <= kSdpaS8MaxDimK  = 33025  (dim_k * 255 * 255 <= 2^31 - 1)
//   seq_kv <= kSdpaS8MaxSeqKv = 4095   (softmax sum of exps, Q12.19; the P V
//                                       product is then far from overflow)
// Larger shapes return kOverflow from prepare.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/config.h"
#include "attn/int8/quantize.h"
#include "attn/mask.h"
#include "attn/parallel.h"
#include "attn/scratch.h"
#include "attn/sdpa.h"
#include "attn/softmax_s8.h"
#include "attn/status.h"

namespace attn {

inline constexpr int32_t kSdpaS8MaxDimK = 33025;
inline constexpr int32_t kSdpaS8MaxSeqKv = kSoftmaxS8MaxCols;

struct SdpaS8Quant {
  QuantParams q, k, v;
  QuantParams scores;  // the int8 scores Q K^T
  QuantParams out;
  float beta = 0.0f;  // softmax beta; 0 = (float)(1 / sqrt(dim_k))
};

// Everything eval needs, derived once by sdpa_s8_prepare (about 1.1 KiB,
// mostly the 256-entry softmax exp table).
struct SdpaS8Params {
  SdpaShape shape{};
  int32_t q_zero_point = 0;
  int32_t k_zero_point = 0;
  int32_t v_zero_point = 0;
  int32_t scores_zero_point = 0;
  int32_t out_zero_point = 0;
  QuantizedMultiplier scores_multiplier{};  // s_q * s_k / s_scores
  QuantizedMultiplier out_multiplier{};     // (1/256) * s_v / s_out
  SoftmaxS8Params softmax{};
};

namespace s8_bytes {
// align64(a * b * elem) in saturating 64-bit arithmetic (see sat:: in
// scratch.h): a shape too large for the address space needs SIZE_MAX bytes.
constexpr uint64_t block(uint64_t a, uint64_t b = 1, uint64_t elem = 1) {
  return SatBytes::block(a, b, elem);
}
}  // namespace s8_bytes

inline constexpr int32_t kSdpaS8QueryTile = ATTN_SDPA_S8_QUERY_TILE;
static_assert(kSdpaS8QueryTile >= 1 && kSdpaS8QueryTile <= 64, "int8 query tile: 1 .. 64");

// The int8 core's scratch (attend_s8), the formula above as byte offsets from
// the core's 64-byte-aligned base, each buffer a 64-byte block: the one-row
// section (SdpaS8RowLayout), then the query-tile section (SdpaS8TileLayout,
// empty when kSdpaS8QueryTile is 1; offsets from the row section's end).
// B: SatBytes (the public sizes) or RawBytes (the core's carving).
template <class B = SatBytes>
struct SdpaS8RowLayout {
  using T = typename B::T;
  T scores = 0;   // int8 [seq_kv] scores, then probabilities
  T keep = 0;     // uint8 [seq_kv] mask flags
  T probs16 = 0;  // int16 [seq_kv] probabilities
  T rows = 0;     // const int8_t* [seq_kv] V rows of the non-zero probs16 (int32 dots before)
  T qrow = 0;     // the prepared query row (2 * dim_k bytes)
  T acc = 0;      // int32 [dim_v] accumulators
  T bytes = 0;
  constexpr SdpaS8RowLayout(int32_t seq_kv, int32_t dim_k, int32_t dim_v) {
    const auto skv = static_cast<T>(seq_kv);
    keep = B::add(scores, B::block(skv));
    probs16 = B::add(keep, B::block(skv));
    rows = B::add(probs16, B::block(skv, 2));
    qrow = B::add(rows, B::block(skv, sizeof(void*)));
    acc = B::add(qrow, B::block(static_cast<T>(dim_k), 2));
    bytes = B::add(acc, B::block(static_cast<T>(dim_v), 4));
  }
};

template <class B = SatBytes>
struct SdpaS8TileLayout {
  using T = typename B::T;
  T kpacked = 0;  // packed K, r16(seq_kv) x r4(dim_k)       (none if kv_packed)
  T ksum = 0;     // int32 [r16(seq_kv)] key sums          (none if kv_packed)
  T vpacked = 0;  // packed V, r16(seq_kv) x r16(dim_v)     (none if kv_packed)
  T qtile = 0;    // packed query tile, T x r4(dim_k) elements of ATTN_SDPA_S8_QTILE_BYTES
  T qsum = 0;     // int32 [T] row sums
  T limits = 0;   // int32 [T] row limits
  T dots = 0;     // int32 [T, r16(seq_kv)] score tile
  T probs = 0;    // int8 [T, r16(seq_kv)] probabilities
  T out_acc = 0;  // int32 [T, r16(dim_v)] output tile
  T bytes = 0;
  // kv_packed: the caller gives K and V already packed (a packed KV cache),
  // so the section holds no copy of them.
  constexpr SdpaS8TileLayout(int32_t seq_kv, int32_t dim_k, int32_t dim_v, bool kv_packed = false) {
    if (kSdpaS8QueryTile <= 1) return;
    const auto t = static_cast<T>(kSdpaS8QueryTile);
    const T kv16 = (static_cast<T>(seq_kv) + 15) / 16 * 16;
    const T dk4 = (static_cast<T>(dim_k) + 3) / 4 * 4;
    const T dv16 = (static_cast<T>(dim_v) + 15) / 16 * 16;
    const T kv_rows = kv_packed ? 0 : kv16;
    ksum = B::add(kpacked, B::block(kv_rows, dk4));
    vpacked = B::add(ksum, B::block(kv_rows, 4));
    qtile = B::add(vpacked, B::block(kv_rows, dv16));
    qsum = B::add(qtile, B::block(t, dk4, ATTN_SDPA_S8_QTILE_BYTES));
    limits = B::add(qsum, B::block(t, 4));
    dots = B::add(limits, B::block(t, 4));
    probs = B::add(dots, B::block(t, kv16, 4));
    out_acc = B::add(probs, B::block(t, kv16));
    bytes = B::add(out_acc, B::block(t, dv16, 4));
  }
};

// The per-row buffers of the int8 attention core.
constexpr uint64_t sdpa_s8_row_bytes64(int32_t seq_kv, int32_t dim_k, int32_t dim_v) {
  if (seq_kv <= 0 || dim_k <= 0 || dim_v <= 0) return 0;
  return SdpaS8RowLayout<>(seq_kv, dim_k, dim_v).bytes;
}
constexpr std::size_t sdpa_s8_row_bytes(int32_t seq_kv, int32_t dim_k, int32_t dim_v) {
  return sat::to_size(sdpa_s8_row_bytes64(seq_kv, dim_k, dim_v));
}

// The query-tile buffers of the int8 core (0 when the tile is 1); kv_packed
// as for SdpaS8TileLayout.
constexpr uint64_t sdpa_s8_tile_bytes64(int32_t seq_kv, int32_t dim_k, int32_t dim_v,
                                        bool kv_packed = false) {
  if (seq_kv <= 0 || dim_k <= 0 || dim_v <= 0) return 0;
  return SdpaS8TileLayout<>(seq_kv, dim_k, dim_v, kv_packed).bytes;
}

// Everything the int8 attention core (attend_s8) needs.
constexpr uint64_t sdpa_s8_core_bytes64(int32_t seq_kv, int32_t dim_k, int32_t dim_v,
                                        bool kv_packed = false) {
  const uint64_t row = sdpa_s8_row_bytes64(seq_kv, dim_k, dim_v);
  return row == 0 ? 0 : sat::add(row, sdpa_s8_tile_bytes64(seq_kv, dim_k, dim_v, kv_packed));
}
constexpr std::size_t sdpa_s8_core_bytes(int32_t seq_kv, int32_t dim_k, int32_t dim_v,
                                         bool kv_packed = false) {
  return sat::to_size(sdpa_s8_core_bytes64(seq_kv, dim_k, dim_v, kv_packed));
}

// The core takes its query-tiled path only from this many query rows on: a
// caller whose core calls never see as many rows needs only the one-row
// section (sdpa_s8_core_bytes_for_rows64).
inline constexpr int32_t kSdpaS8TileMinRows = 4;
constexpr uint64_t sdpa_s8_core_bytes_for_rows64(int64_t max_rows, int32_t seq_kv, int32_t dim_k,
                                                 int32_t dim_v, bool kv_packed = false) {
  return max_rows >= kSdpaS8TileMinRows ? sdpa_s8_core_bytes64(seq_kv, dim_k, dim_v, kv_packed)
                                        : sdpa_s8_row_bytes64(seq_kv, dim_k, dim_v);
}

// 64 + workers * sdpa_s8_core_bytes: one core slice per concurrent worker of
// args.executor (0 if a dimension or workers is not positive).
constexpr std::size_t sdpa_s8_scratch_bytes(const SdpaShape& shape, int32_t workers = 1) {
  const uint64_t row = sdpa_s8_core_bytes64(shape.seq_kv, shape.dim_k, shape.dim_v);
  if (row == 0 || workers <= 0) return 0;
  return sat::to_size(sat::add(kAlign, sat::mul(row, static_cast<uint64_t>(workers))));
}

// Returns kOk, or:
//   kNullPointer   params null
//   kBadShape      a dimension <= 0 or above the engine's limit
//   kOverflow      dim_k > kSdpaS8MaxDimK or seq_kv > kSdpaS8MaxSeqKv
//   kBadArgument   a scale not finite and > 0, a zero point outside [-128, 127],
//                  beta negative/NaN/Inf or beta * scores.scale < 2^-26, or a
//                  matmul multiplier >= 2^30
Status sdpa_s8_prepare(const SdpaShape& shape, const SdpaS8Quant& quant, SdpaS8Params* params);

struct SdpaS8Args {
  const int8_t* q = nullptr;
  const int8_t* k = nullptr;
  const int8_t* v = nullptr;
  int8_t* out = nullptr;
  int8_t* probs = nullptr;  // optional
  Mask mask{};
  // Optional: workers to spread the work over (default: this thread alone).
  Executor executor{};
};

// Runs the prepared attention. Returns kOk, or without writing anything:
//   kNullPointer     q, k, v or out null
//   kBadArgument     a key length outside [0, seq_kv], an executor that is not
//                    executor_valid
//   kUnsupported     an additive mask value other than 0 or <= -1e9
//   kScratchTooSmall scratch smaller than
//                    sdpa_s8_scratch_bytes(params.shape, executor.workers)
//
// Threads: with args.executor the query rows of each batch item are split
// into chunks of whole query tiles, one task per (batch item, chunk), each
// worker in its own scratch slice. Every row's int8 result is independent of
// the other rows, so the output is bit-identical to the serial op for any
// worker count (no chunk, and no task, of less than kParallelMinTaskWork of
// attn/parallel.h, an int8 multiply-add counting a quarter and a score's
// softmax 4: a small call runs on the calling thread). When that leaves
// workers idle, a batch item of at most 4 query rows (a decode step) is split
// by key range when at least two ranges of whole kSdpaKeyBlock blocks reach
// three times that minimum, one task's work in each of the three passes
// below (at most 8 ranges; a row with fewer than 2 * kSdpaKeyBlock visible
// keys is not split; at d = 64 no row is: 4095 keys is one range), row by
// row, in three passes, because TFLite's softmax
// needs the row's max before any exp and its exp sum before any probability:
// (1) each range's scores and max, merged by max; (2) each range's sum of
// table exps, merged by an int32 sum; (3) each range's probabilities and
// int32 P.V partial sums, merged by int32 sums and requantized once. Integer
// max and sums do not depend on grouping: bit-identical as well.
Status sdpa_s8(const SdpaS8Params& params, const SdpaS8Args& args, Scratch scratch);

}  // namespace attn
