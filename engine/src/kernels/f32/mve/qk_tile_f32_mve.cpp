// Helium row-major Q.K^T tile and dot product (kernels_f32.h, namespace
// attn::mve): the core's row layout (decode, tiles of up to 4 queries).
//
//   s[i*s_stride + j] = sum_d q[i*q_stride + d] * k[j*k_stride + d],  i < nq, j < nk
//   dot_f32(a, b, n) = sum_i a[i] * b[i]
//
// Both operands run along d, so the vectors do too: a block of 4 keys keeps 4
// vectors of partial sums while d runs (per step one query vector, 4 key
// vectors, 4 VFMAs; the last d % 4 elements are one predicated step, VCTP),
// then each vector is summed across its lanes. The order of the additions
// differs from ref (4 partial sums per score): within the test's bound of
// n eps sum |q_d k_d|.
#include <cstddef>
#include <cstdint>

#include "kernels/f32/kernels_f32.h"
#include "kernels/f32/mve/mve_f32.h"

namespace attn {
namespace mve {
namespace {

// s[c] = q . k_c for keys c < KB (rows k_stride apart), d floats each.
// The d loop of a 4-key block, 4 floats of d per iteration (steps >= 1):
// 5 post-indexed VLDRW and 4 VFMA, then LE: 10 instructions for 4 VFMAs
// (GCC 12 compiles it from intrinsics to 16, an address add per load).
inline void qk_row_steps_4keys(const float*& q, const float* kr[4], int32_t steps,
                               float32x4_t acc[4]) {
  float32x4_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
  float32x4_t t, u;
  const float *k0 = kr[0], *k1 = kr[1], *k2 = kr[2], *k3 = kr[3];
  __asm__ volatile(
      "dls lr, %[n]\n"
      "1:\n\t"
      "vldrw.32 %q[t], [%[q]], #16\n\t"
      "vldrw.32 %q[u], [%[k0]], #16\n\t"
      "vfma.f32 %q[a0], %q[t], %q[u]\n\t"
      "vldrw.32 %q[u], [%[k1]], #16\n\t"
      "vfma.f32 %q[a1], %q[t], %q[u]\n\t"
      "vldrw.32 %q[u], [%[k2]], #16\n\t"
      "vfma.f32 %q[a2], %q[t], %q[u]\n\t"
      "vldrw.32 %q[u], [%[k3]], #16\n\t"
      "vfma.f32 %q[a3], %q[t], %q[u]\n\t"
      "le lr, 1b\n"
      : [a0] "+w"(a0), [a1] "+w"(a1), [a2] "+w"(a2), [a3] "+w"(a3), [t] "=&w"(t), [u] "=&w"(u),
        [q] "+r"(q), [k0] "+r"(k0), [k1] "+r"(k1), [k2] "+r"(k2), [k3] "+r"(k3)
      : [n] "r"(steps)
      : "lr", "memory");
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
  kr[0] = k0, kr[1] = k1, kr[2] = k2, kr[3] = k3;
}

template <int KB>
void qk_row_block(const float* q, const float* k, std::size_t k_stride, int32_t d, float* s) {
  const float* kr[KB];
  float32x4_t acc[KB];
#pragma GCC unroll 4
  for (int c = 0; c < KB; ++c) {
    kr[c] = k + Sz(c) * k_stride;
    acc[c] = vdupq_n_f32(0.0f);
  }
  int32_t steps = d >> 2;
  if constexpr (KB == 4) {
    if (steps > 0) qk_row_steps_4keys(q, kr, steps, acc);
    steps = 0;
  }
  for (; steps > 0; --steps) {
    const float32x4_t qv = vldrwq_f32(q);
    q += 4;
#pragma GCC unroll 4
    for (int c = 0; c < KB; ++c) {
      acc[c] = vfmaq_f32(acc[c], qv, vldrwq_f32(kr[c]));
      kr[c] += 4;
    }
  }
  if ((d & 3) != 0) {
    const float32x4_t qv = LoadN(q, d & 3);
#pragma GCC unroll 4
    for (int c = 0; c < KB; ++c) acc[c] = vfmaq_f32(acc[c], qv, LoadN(kr[c], d & 3));
  }
#pragma GCC unroll 4
  for (int c = 0; c < KB; ++c) s[c] = ReduceSum(acc[c]);
}

}  // namespace

float dot_f32(const float* a, const float* b, int32_t n) {
  float s;
  qk_row_block<1>(a, b, 0, n, &s);
  return s;
}

void qk_tile_f32(const float* q, std::size_t q_stride, int32_t nq, const float* k,
                 std::size_t k_stride, int32_t nk, int32_t d, float* s, std::size_t s_stride) {
  for (int32_t i = 0; i < nq; ++i, q += q_stride, s += s_stride) {
    int32_t j = 0;
    for (; j + 4 <= nk; j += 4) qk_row_block<4>(q, k + Sz(j) * k_stride, k_stride, d, s + j);
    for (; j < nk; ++j) qk_row_block<1>(q, k + Sz(j) * k_stride, k_stride, d, s + j);
  }
}

}  // namespace mve
}  // namespace attn
