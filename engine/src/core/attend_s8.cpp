// The int8 attention core (see attend_s8.h). Integer arithmetic only.
//
// Per query row: the query row is prepared once (q - q_zp, in the kernel's
// layout), then int8 scores of the visible keys (BATCH_MATMUL requantized
// exactly as TFLite):
//   sum_i (q_i - q_zp)(k_i - k_zp) = qrow_dot(k) - k_zp * sum_i (q_i - q_zp)
// the int8 softmax over them in place (table exp), then O = P V with P's zero
// point -128 folded into one row sum:
//   sum_j (p_j + 128) (v_jc - v_zp) = sum_j w_j v_jc - v_zp sum_j w_j
// Keys with p_j = -128 (masked, cut by diff_min, or rounded to 0) contribute
// nothing: only the V rows of non-zero weights go to the pv kernel.
#include "core/attend_s8.h"

#include <cstring>

#include "attn/scratch.h"
#include "core/softmax_row_s8.h"
#include "kernels/s8/fixedpoint.h"
#include "kernels/s8/kernels_s8.h"

namespace attn {
namespace detail {
namespace {

uint32_t float_bits(float f) {
  uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

constexpr uint32_t kOneE9Magnitude = 0x4e6e6b28u;  // bits of 1e9f
constexpr uint32_t kInfMagnitude = 0x7f800000u;

// Additive mask value -> 0 keep, 1 masked, 2 not representable in int8.
int additive_class(float f) {
  const uint32_t u = float_bits(f);
  const uint32_t mag = u & 0x7fffffffu;
  if (mag == 0) return 0;
  if ((u & 0x80000000u) != 0 && mag >= kOneE9Magnitude && mag <= kInfMagnitude) return 1;
  return 2;
}

bool keras_masked(float f) { return (float_bits(f) & 0x7fffffffu) != 0; }

}  // namespace

Status check_additive_s8(const Mask& mask, int32_t batch, int32_t seq_q, int32_t seq_kv) {
  if (mask.additive == nullptr) return Status::kOk;
  const int32_t items = mask.matrix_batch_stride == 0 ? 1 : batch;
  const std::size_t n = static_cast<std::size_t>(seq_q) * static_cast<std::size_t>(seq_kv);
  for (int32_t b = 0; b < items; ++b) {
    const float* m = mask.additive + static_cast<std::size_t>(b) * mask.matrix_batch_stride;
    for (std::size_t e = 0; e < n; ++e) {
      if (additive_class(m[e]) == 2) return Status::kUnsupported;
    }
  }
  return Status::kOk;
}

namespace {
// pv_row_s8, inlined into softmax_pv_row_s8 (one frame, as the serial row
// core's stack budgets record).
__attribute__((always_inline)) inline int32_t pv_row(const int8_t* p, int32_t n, const int8_t* v,
                                                     std::size_t v_stride, int32_t dim_v,
                                                     int16_t* wts, const int8_t** rows,
                                                     int32_t* acc) {
  const auto un = static_cast<std::size_t>(n);
  int32_t sum_w = 0;
  int32_t nonzero = 0;
  for (std::size_t j = 0; j < un; ++j) {
    const int32_t w = p[j] + 128;
    wts[j] = static_cast<int16_t>(w);
    sum_w += w;
    nonzero += w != 0 ? 1 : 0;
  }
  if (100 * nonzero >= kPvDensePercent * n) {
    // Mostly non-zero weights: every visible row, consecutive.
    pv_s8_strided(v, v_stride, wts, n, dim_v, acc);
  } else {
    // Sparse: only the rows of non-zero weights (wts compacted in place).
    int32_t nrows = 0;
    for (std::size_t j = 0; j < un; ++j) {
      if (wts[j] == 0) continue;
      wts[nrows] = wts[j];
      rows[nrows] = v + j * v_stride;
      ++nrows;
    }
    pv_s8(rows, wts, nrows, dim_v, acc);
  }
  return sum_w;
}
}  // namespace

int32_t pv_row_s8(const int8_t* p, int32_t n, const int8_t* v, std::size_t v_stride, int32_t dim_v,
                  int16_t* wts, const int8_t** rows, int32_t* acc) {
  return pv_row(p, n, v, v_stride, dim_v, wts, rows, acc);
}

int32_t keep_flags_s8(const AttendMask& m, std::size_t row_offset, int32_t begin, int32_t end,
                      uint8_t* keep) {
  int32_t kept = 0;
  for (auto j = static_cast<std::size_t>(begin); j < static_cast<std::size_t>(end); ++j) {
    bool masked = false;
    if (m.boolean != nullptr && m.boolean[row_offset + j] != 0) masked = true;
    if (m.keras != nullptr && keras_masked(m.keras[row_offset + j])) masked = true;
    if (m.additive != nullptr && additive_class(m.additive[row_offset + j]) != 0) masked = true;
    keep[j] = masked ? 0 : 1;
    kept += masked ? 0 : 1;
  }
  return kept;
}

void scores_s8(const SdpaS8Params& params, const AttendS8& a, const void* qrow_packed,
               int32_t row_const, int32_t begin, int32_t end, const uint8_t* keep, int32_t* dots,
               int8_t* scores) {
  const int32_t qzp = params.q_zero_point;
  const int32_t s_mult = params.scores_multiplier.multiplier;
  const int s_shift = params.scores_multiplier.shift;
  const int8_t* k = a.k + static_cast<std::size_t>(begin) * a.k_stride;
  // Exact: |qrow dot| <= dim_k * 255 * 128 and |total| <= dim_k * 255^2 < 2^31.
  if (keep == nullptr) {
    qk_s8(qrow_packed, qzp, k, a.k_stride, end - begin, a.dim_k, dots);
    requantize_row_s8(dots, end - begin, row_const, s_mult, s_shift, params.scores_zero_point,
                      scores + begin);
    return;
  }
  for (auto j = static_cast<std::size_t>(begin); j < static_cast<std::size_t>(end); ++j) {
    if (keep[j] == 0) {
      scores[j] = -128;
      continue;
    }
    const int32_t total = qrow_s8_dot(qrow_packed, qzp, a.k + j * a.k_stride, a.dim_k) - row_const;
    scores[j] =
        static_cast<int8_t>(q::requantize(total, s_mult, s_shift, params.scores_zero_point));
  }
}

void softmax_pv_row_s8(const SdpaS8Params& params, int8_t* scores, int32_t limit,
                       const uint8_t* keep, const int8_t* v, std::size_t v_stride, int32_t dim_v,
                       int32_t seq_kv, int8_t* orow, int8_t* wrow, void* ws) {
  const auto skv = static_cast<std::size_t>(seq_kv);
  const auto ulimit = static_cast<std::size_t>(limit);
  // SdpaS8RowLayout's buffers, walked in order (each step the sizes in between).
  const SdpaS8RowLayout<RawBytes> lay(seq_kv, params.shape.dim_k, dim_v);
  auto* base = static_cast<unsigned char*>(ws) + lay.probs16;
  auto* wts = static_cast<int16_t*>(static_cast<void*>(base));
  base += lay.rows - lay.probs16;
  auto* rows = static_cast<const int8_t**>(static_cast<void*>(base));
  base += lay.acc - lay.rows;
  auto* acc = static_cast<int32_t*>(static_cast<void*>(base));
  // P row, in place.
  softmax_row_s8(params.softmax, scores, scores, limit, keep);
  if (wrow != nullptr) {
    std::memcpy(wrow, scores, ulimit);
    if (ulimit < skv) std::memset(wrow + ulimit, 0x80, skv - ulimit);
  }
  // O row: BATCH_MATMUL(P, V) requantized to int8.
  const int32_t sum_w = pv_row(scores, limit, v, v_stride, dim_v, wts, rows, acc);
  const int32_t vz_sum = params.v_zero_point * sum_w;  // |.| <= 255 * 255 * 4095
  requantize_row_s8(acc, dim_v, vz_sum, params.out_multiplier.multiplier,
                    params.out_multiplier.shift, params.out_zero_point, orow);
}

#if ATTN_SDPA_S8_QUERY_TILE > 1
namespace {

// The tiled core's buffers at SdpaS8TileLayout's offsets (after the row
// buffers), with K and V packed there for the keys any row sees (max_limit)
// unless the caller gives them packed.
struct S8Tiles {
  const int8_t* kpacked;  // K, V in the tile kernels' layouts (scratch or the caller's)
  const int32_t* ksum;
  const int8_t* vpacked;
  uint8_t* u;       // packed query tile
  int32_t* qsum;    // [T] sum (q - q_zp) per row, then the scores' row offsets,
                    // then the weight sums, then the outputs' row offsets
  int32_t* limits;  // [T] keys each row sees
  int32_t* dots;    // [T, kv16] int32 scores
  int8_t* probs;    // [T, kv16] int8 scores, then weights
  int32_t* acc;     // [T, dv16] int32 outputs
  std::size_t kv16, dv16;
};

S8Tiles carve_tiles(const AttendS8& a, const PackedKvS8* packed, int32_t max_limit, void* ws) {
  const SdpaS8RowLayout<RawBytes> row(a.seq_kv, a.dim_k, a.dim_v);
  const SdpaS8TileLayout<RawBytes> lay(a.seq_kv, a.dim_k, a.dim_v, packed != nullptr);
  auto* base = static_cast<unsigned char*>(ws) + row.bytes;
  S8Tiles b{};
  if (packed != nullptr) {  // packed by the caller (a packed KV cache)
    b.kpacked = packed->k;
    b.ksum = packed->ksum;
    b.vpacked = packed->v;
  } else {
    auto* kpacked = reinterpret_cast<int8_t*>(base + lay.kpacked);
    auto* ksum = static_cast<int32_t*>(static_cast<void*>(base + lay.ksum));
    auto* vpacked = reinterpret_cast<int8_t*>(base + lay.vpacked);
    if (max_limit > 0) {
      kpack_s8(a.k, a.k_stride, max_limit, a.dim_k, kpacked, ksum);
      vpack_s8(a.v, a.v_stride, max_limit, a.dim_v, vpacked);
    }
    b.kpacked = kpacked;
    b.ksum = ksum;
    b.vpacked = vpacked;
  }
  b.u = base + lay.qtile;
  b.qsum = static_cast<int32_t*>(static_cast<void*>(base + lay.qsum));
  b.limits = static_cast<int32_t*>(static_cast<void*>(base + lay.limits));
  b.dots = static_cast<int32_t*>(static_cast<void*>(base + lay.dots));
  b.probs = reinterpret_cast<int8_t*>(base + lay.probs);
  b.acc = static_cast<int32_t*>(static_cast<void*>(base + lay.out_acc));
  b.kv16 = round_up_s8(static_cast<std::size_t>(a.seq_kv), 16);
  b.dv16 = round_up_s8(static_cast<std::size_t>(a.dim_v), 16);
  return b;
}

// S rows of the tile at row i0 requantized to int8 into b.probs (in the GEMM's
// epilogue where the level has it, else from the int32 results). The row
// offsets k_zp * sum (q - q_zp) replace the row sums in b.qsum (scratch, not
// the stack under the GEMM kernels).
void tile_scores(const SdpaS8Params& params, const AttendS8& a, const S8Tiles& b, int32_t i0,
                 int32_t nq, int32_t tile_limit) {
  const auto ui0 = static_cast<std::size_t>(i0);
  qtile_s8_pack(a.q + ui0 * a.q_stride, a.q_stride, nq, params.q_zero_point, a.dim_k, b.u, b.qsum);
  int32_t* offsets = b.qsum;
  for (int32_t t = 0; t < nq; ++t) offsets[t] = params.k_zero_point * b.qsum[t];
  if (qk_tile_s8_rq(b.u, nq, params.q_zero_point, b.kpacked, b.ksum, tile_limit, a.dim_k, offsets,
                    params.scores_multiplier.multiplier, params.scores_multiplier.shift,
                    params.scores_zero_point, b.probs, b.kv16)) {
    return;
  }
  qk_tile_s8(b.u, nq, params.q_zero_point, b.kpacked, b.ksum, tile_limit, a.dim_k, b.dots, b.kv16);
  for (int32_t t = 0; t < nq; ++t) {
    const auto ut = static_cast<std::size_t>(t);
    if (b.limits[t] == 0) continue;
    requantize_row_s8(b.dots + ut * b.kv16, b.limits[t], offsets[t],
                      params.scores_multiplier.multiplier, params.scores_multiplier.shift,
                      params.scores_zero_point, b.probs + ut * b.kv16);
  }
}

// O rows of the tile from the weights in b.probs (row sums in b.qsum, which
// become the row offsets v_zp * sum w), requantized to int8 (in the GEMM's
// epilogue where the level has it, else from the int32 results); a row with
// no visible key gets the output zero point.
void tile_outputs(const SdpaS8Params& params, const AttendS8& a, const S8Tiles& b, int32_t i0,
                  int32_t nq, int32_t tile_limit) {
  const auto ui0 = static_cast<std::size_t>(i0);
  const int32_t ozp = params.out_zero_point;
  const auto* w = reinterpret_cast<const uint8_t*>(b.probs);
  int32_t* vz_sums = b.qsum;
  for (int32_t t = 0; t < nq; ++t) vz_sums[t] = params.v_zero_point * vz_sums[t];
  bool fused = false;
  if (tile_limit > 0) {
    // The int32 score tile is idle here: the kernels' work buffer (4 T kv16
    // >= pv_tile_s8_work_bytes bytes).
    fused = pv_tile_s8_rq(w, b.kv16, nq, b.vpacked, tile_limit, a.dim_v, vz_sums,
                          params.out_multiplier.multiplier, params.out_multiplier.shift, ozp,
                          a.out + ui0 * a.out_stride, a.out_stride, b.dots);
    if (!fused) pv_tile_s8(w, b.kv16, nq, b.vpacked, tile_limit, a.dim_v, b.acc, b.dv16, b.dots);
  }
  for (int32_t t = 0; t < nq; ++t) {
    const auto ut = static_cast<std::size_t>(t);
    int8_t* orow = a.out + (ui0 + ut) * a.out_stride;
    if (b.limits[t] == 0) {
      for (int32_t c = 0; c < a.dim_v; ++c) orow[c] = static_cast<int8_t>(ozp);
      continue;
    }
    if (fused) continue;
    requantize_row_s8(b.acc + ut * b.dv16, a.dim_v, vz_sums[t], params.out_multiplier.multiplier,
                      params.out_multiplier.shift, ozp, orow);
  }
}

// The query-tiled core (causal and key-length masks; no matrix mask): K and
// V packed once, then per tile of T query rows
//   S tile  = qk_tile_s8 (int8 GEMM, sum (q - q_zp) k), requantized per row
//             with the row constant k_zp * sum (q - q_zp) (qk_tile_s8_rq:
//             in the GEMM's epilogue where the level has that form)
//   P rows  = the int8 softmax of each row over its visible keys
//   O tile  = pv_tile_s8 over the weights w = p + 128 (0 past a row's
//             limit), requantized per row with v_zp * sum w (pv_tile_s8_rq:
//             in the GEMM's epilogue where the level has that form)
// Every value is the one the row path computes (same integer sums, same
// requantization and softmax kernels).
void attend_s8_tiled(const SdpaS8Params& params, const AttendS8& a, const AttendMask& m,
                     int32_t row_begin, int32_t row_end, void* ws, const PackedKvS8* packed) {
  constexpr int32_t kT = kSdpaS8QueryTile;
  const auto skv = static_cast<std::size_t>(a.seq_kv);
  // Keys any row can see (the causal limit of the last row is seq_kv).
  const int32_t max_limit = m.key_length;
  const S8Tiles b = carve_tiles(a, packed, max_limit, ws);
  alignas(kSoftmaxS8LutAlign) unsigned char lut[kSoftmaxS8LutBytes];
  softmax_s8_tile_prepare(params.softmax.exp_table, params.softmax.diff_min, max_limit, lut);
  for (int32_t i0 = row_begin; i0 < row_end; i0 += kT) {
    const int32_t nq = row_end - i0 < kT ? row_end - i0 : kT;
    int32_t tile_limit = 0;
    for (int32_t t = 0; t < nq; ++t) {
      const int32_t limit = row_limit_s8(a, m, i0 + t);
      b.limits[t] = limit;
      if (limit > tile_limit) tile_limit = limit;
    }
    if (tile_limit > 0) tile_scores(params, a, b, i0, nq, tile_limit);
    // The softmax of each S row in place as unsigned weights w = p + 128 (0
    // past its limit, up to the tile's rounded to 16: pv_tile_s8's rows).
    const auto tile16 = round_up_s8(static_cast<std::size_t>(tile_limit), 16);
    softmax_s8_tile_w(lut, params.softmax.exp_table, params.softmax.diff_min, b.probs, b.kv16, nq,
                      b.limits, static_cast<int32_t>(tile16), b.qsum);
    for (int32_t t = 0; a.probs != nullptr && t < nq; ++t) {
      const auto ut = static_cast<std::size_t>(t);
      const auto ulimit = static_cast<std::size_t>(b.limits[t]);
      const auto* w = reinterpret_cast<const uint8_t*>(b.probs + ut * b.kv16);
      int8_t* wrow = a.probs + (static_cast<std::size_t>(i0) + ut) * a.probs_stride;
      for (std::size_t j = 0; j < ulimit; ++j) wrow[j] = static_cast<int8_t>(w[j] ^ 0x80u);
      if (ulimit < skv) std::memset(wrow + ulimit, 0x80, skv - ulimit);
    }
    tile_outputs(params, a, b, i0, nq, tile_limit);
  }
}

}  // namespace
#endif

void attend_s8_rows(const SdpaS8Params& params, const AttendS8& a, const AttendMask& m,
                    int32_t row_begin, int32_t row_end, void* ws,
                    [[maybe_unused]] const PackedKvS8* packed) {
#if ATTN_SDPA_S8_QUERY_TILE > 1
  // The tiled core pays a K / V packing per call (none with `packed`): worth
  // it from a few rows.
  if (m.keras == nullptr && m.additive == nullptr && m.boolean == nullptr &&
      a.seq_q >= kSdpaS8TileMinRows && tile_s8_fast()) {
    attend_s8_tiled(params, a, m, row_begin, row_end, ws, packed);
    return;
  }
#endif
  const auto skv = static_cast<std::size_t>(a.seq_kv);
  const auto dv = static_cast<std::size_t>(a.dim_v);
  auto* base = static_cast<unsigned char*>(ws);
  const SdpaS8RowLayout<RawBytes> lay(a.seq_kv, a.dim_k, a.dim_v);
  auto* scores = reinterpret_cast<int8_t*>(base + lay.scores);
  auto* keep = base + lay.keep;
  // V row pointers in softmax_pv_row_s8; int32 dot products before that.
  auto* dots = static_cast<int32_t*>(static_cast<void*>(base + lay.rows));
  void* qrow_packed = base + lay.qrow;

  const int32_t ozp = params.out_zero_point;
  const bool matrix_mask = m.keras != nullptr || m.additive != nullptr || m.boolean != nullptr;

  for (int32_t i = row_begin; i < row_end; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    // Visible keys: j < limit, minus the matrix-masked ones.
    const int32_t limit = row_limit_s8(a, m, i);
    const int32_t kept = matrix_mask ? keep_flags_s8(m, ui * skv, 0, limit, keep) : limit;
    int8_t* orow = a.out + ui * a.out_stride;
    int8_t* wrow = a.probs != nullptr ? a.probs + ui * a.probs_stride : nullptr;
    if (kept == 0) {
      for (std::size_t c = 0; c < dv; ++c) orow[c] = static_cast<int8_t>(ozp);
      if (wrow != nullptr) std::memset(wrow, 0x80, skv);
      continue;
    }
    // sum (q - q_zp), |.| <= 255 * dim_k
    const int32_t sum_q =
        qrow_s8_pack(a.q + ui * a.q_stride, params.q_zero_point, a.dim_k, qrow_packed);
    // S row: BATCH_MATMUL(Q, K^T) requantized to int8.
    scores_s8(params, a, qrow_packed, params.k_zero_point * sum_q, 0, limit,
              matrix_mask ? keep : nullptr, dots, scores);
    softmax_pv_row_s8(params, scores, limit, matrix_mask ? keep : nullptr, a.v, a.v_stride, a.dim_v,
                      a.seq_kv, orow, wrow, ws);
  }
}

}  // namespace detail
}  // namespace attn
