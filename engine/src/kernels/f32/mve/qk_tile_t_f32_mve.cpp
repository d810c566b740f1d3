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
//
// The SDPA core's case (tq = 16, 3 keys) runs its x loop in inline assembly,
// two steps per iteration in 20 instructions for 12 VFMAs: 3 LDRD (each key's
// two floats, post-indexed), 4 VLDRW (one post-indexed by two rows of qt),
// 12 VFMA and the loop end LE. GCC 12 compiles the same loop from intrinsics
// to 28 (a separate LDR per float and an add per pointer) or, scheduling the
// loads early, spills an accumulator to the stack.
#include <cstddef>
#include <cstdint>

#include "kernels/f32/kernels_f32.h"
#include "kernels/f32/mve/mve_f32.h"

namespace attn {
namespace mve {
namespace {

constexpr int kQkKeys = 3;  // KB of the full blocks

// The x loop of a 3-key block with tq = 16, two steps per iteration
// (pairs >= 1): a<g>[c] += qt[x*16 + 4g ..] * k<c>[x] for x < 2 pairs. The
// first VLDRW moves q two rows on; row x's second vector and row x + 1's two
// are then at negative offsets from it (literal: GCC allows 30 operands).
void qk_pairs_3keys_tq16(const float*& q, const float* k0, const float* k1, const float* k2,
                         int32_t pairs, float32x4_t a0[3], float32x4_t a1[3]) {
  float32x4_t a00 = a0[0], a10 = a0[1], a20 = a0[2];
  float32x4_t a01 = a1[0], a11 = a1[1], a21 = a1[2];
  float32x4_t t0, t1;
  uint32_t s0, s1, s2, s3, s4, s5;
  __asm__ volatile(
      "dls lr, %[n]\n"
      "1:\n\t"
      "ldrd %[s0], %[s1], [%[k0]], #8\n\t"
      "ldrd %[s2], %[s3], [%[k1]], #8\n\t"
      "ldrd %[s4], %[s5], [%[k2]], #8\n\t"
      "vldrw.32 %q[t0], [%[q]], #128\n\t"
      "vldrw.32 %q[t1], [%[q], #-112]\n\t"
      "vfma.f32 %q[a00], %q[t0], %[s0]\n\t"
      "vfma.f32 %q[a01], %q[t1], %[s0]\n\t"
      "vfma.f32 %q[a10], %q[t0], %[s2]\n\t"
      "vfma.f32 %q[a11], %q[t1], %[s2]\n\t"
      "vfma.f32 %q[a20], %q[t0], %[s4]\n\t"
      "vfma.f32 %q[a21], %q[t1], %[s4]\n\t"
      "vldrw.32 %q[t0], [%[q], #-64]\n\t"
      "vldrw.32 %q[t1], [%[q], #-48]\n\t"
      "vfma.f32 %q[a00], %q[t0], %[s1]\n\t"
      "vfma.f32 %q[a01], %q[t1], %[s1]\n\t"
      "vfma.f32 %q[a10], %q[t0], %[s3]\n\t"
      "vfma.f32 %q[a11], %q[t1], %[s3]\n\t"
      "vfma.f32 %q[a20], %q[t0], %[s5]\n\t"
      "vfma.f32 %q[a21], %q[t1], %[s5]\n\t"
      "le lr, 1b\n"
      : [a00] "+w"(a00), [a01] "+w"(a01), [a10] "+w"(a10), [a11] "+w"(a11), [a20] "+w"(a20),
        [a21] "+w"(a21), [t0] "=&w"(t0), [t1] "=&w"(t1), [s0] "=&r"(s0), [s1] "=&r"(s1),
        [s2] "=&r"(s2), [s3] "=&r"(s3), [s4] "=&r"(s4), [s5] "=&r"(s5), [q] "+r"(q), [k0] "+r"(k0),
        [k1] "+r"(k1), [k2] "+r"(k2)
      : [n] "r"(pairs)
      : "lr", "memory");
  a0[0] = a00, a0[1] = a10, a0[2] = a20;
  a1[0] = a01, a1[1] = a11, a1[2] = a21;
}

// Keys [0, KB) x queries [0, 8) of the tile. kTq: tq when it is the core's
// 16 (the 3-key blocks then run qk_pairs_3keys_tq16), else 0 (tq at run
// time). Two steps of x per iteration, two query vectors live at a time.
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
  if constexpr (KB == 3 && kTq == 16) {
    if (d >= 2) qk_pairs_3keys_tq16(q, kr[0], kr[1], kr[2], d / 2, a0, a1);
    x = d / 2 * 2;
  }
  for (; x + 2 <= d; x += 2, q += 2 * tq) {
    float k0[KB], k1[KB];
#pragma GCC unroll 4
    for (int c = 0; c < KB; ++c) {
      k0[c] = kr[c][x];
      k1[c] = kr[c][x + 1];
    }
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
    if (nk - j == 2)
      qk_block_t<2, kTq>(qt + g, t, d, k + Sz(j) * k_stride, k_stride, st + Sz(j) * t + g);
    if (nk - j == 1)
      qk_block_t<1, kTq>(qt + g, t, d, k + Sz(j) * k_stride, k_stride, st + Sz(j) * t + g);
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
