// Cortex-M scalar-FPU P.V update (kernels_f32.h, namespace attn::mcu):
//
//   acc[i*a_stride + c] += sum_j p[i*p_stride + j] * v[j*v_stride + c],  i < nq, c < dv
//
// Register-blocked: a block of R queries x C output columns holds its R*C
// accumulators in FPU registers (4 x 4 = 16 of s0-s31) while the keys j run,
// so each key loads R probabilities and C values for R*C fused
// multiply-adds, and acc is read and written once per block instead of once
// per key (ref). Every accumulator still adds its terms in key order with an
// FMA each: the results are those of ref::pv_tile_f32 bit for bit (same
// contraction). Edges: the last nq % 4 queries and dv % 4 columns take
// 1-wide blocks.
#include <cstddef>
#include <cstdint>

#include "kernels/f32/kernels_f32.h"
#include "kernels/f32/mcu/block_f32_mcu.h"

namespace attn {
namespace mcu {
namespace {

// The tile's operands as given: a block finds its rows and columns from
// them, so a call passes this, two indices and nk in registers (no stack
// arguments; the struct is the caller's only frame beyond saved registers).
struct PvTile {
  const float* p;
  std::size_t p_stride;
  const float* v;
  std::size_t v_stride;
  float* acc;
  std::size_t a_stride;
};

// acc rows [i, i+R) x columns [c, c+C) += p rows [i, i+R) times v[.][c, c+C).
template <int R, int C>
ATTN_MCU_LEAF void pv_block(const PvTile& t, int32_t i, int32_t c, int32_t nk) {
  const float* pr[R];
  float sum[R][C];
  float* const acc = t.acc + static_cast<std::size_t>(i) * t.a_stride + c;
  float* row = acc;
  ATTN_MCU_UNROLL
  for (int r = 0; r < R; ++r) {
    pr[r] = t.p + static_cast<std::size_t>(i + r) * t.p_stride;
    ATTN_MCU_UNROLL
    for (int x = 0; x < C; ++x) sum[r][x] = row[x];
    row += t.a_stride;
    ATTN_MCU_OPAQUE(row);
  }
  const float* v = t.v + c;
  const std::size_t v_stride = t.v_stride;
  for (int32_t j = nk; j > 0; --j) {
    float pv[R];
    float vv[C];
    ATTN_MCU_UNROLL
    for (int r = 0; r < R; ++r) pv[r] = *pr[r]++;
    ATTN_MCU_UNROLL
    for (int x = 0; x < C; ++x) vv[x] = v[x];
    v += v_stride;
    ATTN_MCU_UNROLL
    for (int r = 0; r < R; ++r) {
      ATTN_MCU_UNROLL
      for (int x = 0; x < C; ++x) sum[r][x] += pv[r] * vv[x];
    }
  }
  row = acc;
  ATTN_MCU_UNROLL
  for (int r = 0; r < R; ++r) {
    ATTN_MCU_UNROLL
    for (int x = 0; x < C; ++x) row[x] = sum[r][x];
    row += t.a_stride;
    ATTN_MCU_OPAQUE(row);
  }
}

// Query rows [i, i+R): 4-column blocks, then single columns.
template <int R>
ATTN_MCU_INLINE void pv_rows(const PvTile& t, int32_t i, int32_t nk, int32_t dv) {
  int32_t c = 0;
  for (; c + kMcuBlock <= dv; c += kMcuBlock) pv_block<R, kMcuBlock>(t, i, c, nk);
  for (; c < dv; ++c) pv_block<R, 1>(t, i, c, nk);
}

}  // namespace

ATTN_MCU_OUTER void pv_tile_f32(const float* p, std::size_t p_stride, int32_t nq, int32_t nk,
                                const float* v, std::size_t v_stride, int32_t dv, float* acc,
                                std::size_t a_stride) {
  const PvTile t{p, p_stride, v, v_stride, acc, a_stride};
  int32_t i = 0;
  for (; i + kMcuBlock <= nq; i += kMcuBlock) pv_rows<kMcuBlock>(t, i, nk, dv);
  for (; i < nq; ++i) pv_rows<1>(t, i, nk, dv);
}

}  // namespace mcu
}  // namespace attn
