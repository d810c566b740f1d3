// Helium transposed Q.K^T tile (kernels_f32.h, namespace attn::mve):
//
//   st[j*tq + i] = sum_x qt[x*tq + i] * k[j*k_stride + x],  i < tq, j < nk
//
// Queries along the vector: a block of 2 query vectors (8 queries) x KB keys
// keeps its 2*KB score vectors in registers (KB = 3: 6 accumulators and the 2
// query vectors fill the 8) while x runs; per step it loads the 2 query
// vectors of row x of qt and one float of each key (an LDR), and does 2*KB
// VFMAs with the key's float as the scalar operand: 2 + KB loads per 2*KB
// VFMAs, no horizontal sum. Every score is one accumulator summed in x order
// with an FMA per term, as ref. tq is a multiple of 8 (the core's tiles: of
// 16); the last nk % 3 keys take a 2- or 1-key block.
#include <cstddef>
#include <cstdint>

#include "kernels/f32/kernels_f32.h"
#include "kernels/f32/mve/mve_f32.h"

namespace attn {
namespace mve {
namespace {

constexpr int kQkKeys = 3;  // KB of the full blocks

// Keys [0, KB) x queries [0, 8) of the tile. kTq: tq as a constant (the
// core's tile, 16), so that row x of qt is an immediate offset of one pointer
// (VLDRW [r, #imm] with writeback); 0: tq at run time. Two steps of x per
// iteration: each key's two floats are one LDRD.
template <int KB, int kTq>
void qk_block_t(const float* qt, std::size_t tq_run, int32_t d, const float* k,
                std::size_t k_stride, float* st) {
  const std::size_t tq = kTq != 0 ? Sz(kTq) : tq_run;
  const float* kr[KB];
  float32x4_t a0[KB], a1[KB];
#pragma GCC unroll 4
  for (int c = 0; c < KB; ++c) {
    kr[c] = k + Sz(c) * k_stride;
    a0[c] = vdupq_n_f32(0.0f);
    a1[c] = vdupq_n_f32(0.0f);
  }
  const float* q = qt;
  int32_t x = 0;
  for (; x + 2 <= d; x += 2, q += 2 * tq) {
    float k0[KB], k1[KB];
#pragma GCC unroll 4
    for (int c = 0; c < KB; ++c) LoadPair(kr[c] + x, &k0[c], &k1[c]);
    // Row x, then row x + 1: two query vectors live at a time (6 + 2 = 8).
    float32x4_t q0 = vldrwq_f32(q);
    float32x4_t q1 = vldrwq_f32(q + 4);
#pragma GCC unroll 4
    for (int c = 0; c < KB; ++c) {
      a0[c] = vfmaq_n_f32(a0[c], q0, k0[c]);
      a1[c] = vfmaq_n_f32(a1[c], q1, k0[c]);
    }
    q0 = vldrwq_f32(q + tq);
    q1 = vldrwq_f32(q + tq + 4);
#pragma GCC unroll 4
    for (int c = 0; c < KB; ++c) {
      a0[c] = vfmaq_n_f32(a0[c], q0, k1[c]);
      a1[c] = vfmaq_n_f32(a1[c], q1, k1[c]);
    }
  }
  if (x < d) {
    const float32x4_t q0 = vldrwq_f32(q);
    const float32x4_t q1 = vldrwq_f32(q + 4);
#pragma GCC unroll 4
    for (int c = 0; c < KB; ++c) {
      a0[c] = vfmaq_n_f32(a0[c], q0, kr[c][x]);
      a1[c] = vfmaq_n_f32(a1[c], q1, kr[c][x]);
    }
  }
#pragma GCC unroll 4
  for (int c = 0; c < KB; ++c) {
    vstrwq_f32(st + Sz(c) * tq, a0[c]);
    vstrwq_f32(st + Sz(c) * tq + 4, a1[c]);
  }
}

template <int kTq>
void qk_tile_t(const float* qt, std::size_t t, int32_t d, const float* k, std::size_t k_stride,
               int32_t nk, float* st) {
  for (std::size_t g = 0; g < t; g += 8) {
    int32_t j = 0;
    for (; j + kQkKeys <= nk; j += kQkKeys) {
      qk_block_t<kQkKeys, kTq>(qt + g, t, d, k + Sz(j) * k_stride, k_stride, st + Sz(j) * t + g);
    }
    if (nk - j == 2) qk_block_t<2, kTq>(qt + g, t, d, k + Sz(j) * k_stride, k_stride, st + Sz(j) * t + g);
    if (nk - j == 1) qk_block_t<1, kTq>(qt + g, t, d, k + Sz(j) * k_stride, k_stride, st + Sz(j) * t + g);
  }
}

}  // namespace

void qk_tile_t_f32(const float* qt, int32_t tq, int32_t d, const float* k, std::size_t k_stride,
                   int32_t nk, float* st) {
  if (tq == 16) {
    qk_tile_t<16>(qt, Sz(tq), d, k, k_stride, nk, st);
  } else {
    qk_tile_t<0>(qt, Sz(tq), d, k, k_stride, nk, st);
  }
}

}  // namespace mve
}  // namespace attn
