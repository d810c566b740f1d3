// Helium online-softmax step on the transposed scores (kernels_f32.h,
// namespace attn::mve), st[nk][tq], column i = query i:
//
//   m' = max(m[i], max_j st[j*tq + i])  (NaN skipped)
//   st[j*tq + i] = exp(st[j*tq + i] - m')   (m' = -inf: subtract 0, giving 0)
//   l[i] = l[i] * exp(m[i] - m') + sum_j st[j*tq + i];  m[i] = m'
//   rows i < nq of acc (dv floats, a_stride apart) *= exp(m[i] - m') when the max grew
//
// Four columns per vector (tq is a multiple of 4: the core's tiles are of
// 16): the max, exp and sum run down the columns, no horizontal operation.
// The max is VMAXNM (a NaN operand gives the other one: NaN skipped, as ref;
// of +0 and -0 it gives +0, where ref keeps the first: equal values). The
// exp is ExpPoly (mve_f32.h: exp_poly.h's error bound, the same constants in
// the same order) in inline assembly, 21 instructions per 4 scores with the
// load, store and sum (GCC 12 compiles ExpPoly's intrinsics to 29: each
// predicate moved through a core register and sign-extended, constants
// reloaded from the stack); two vectors per loop iteration.
#include <cstddef>
#include <cstdint>

#include "kernels/f32/kernels_f32.h"
#include "kernels/f32/mve/mve_f32.h"

namespace attn {
namespace mve {
namespace {

// Optimised builds only (the asm takes 14 core registers, more than a -O0
// build leaves); -O0 runs exp_columns below for every tq.
#if defined(__OPTIMIZE__)
// One vector of a column: x = exp(x - m) at [p], s += x, p to the next key
// row. Seven vector registers (x, t, n, pl and the loop's m, lo, s), ten
// constants in core registers.
#define ATTN_MVE_EXP_STEP                \
  "vldrw.32 %q[x], [%[p]]\n\t"           \
  "vsub.f32 %q[x], %q[x], %q[m]\n\t"     \
  "vcmp.f32 gt, %q[lo], %q[x]\n\t"       \
  "vpsel %q[x], %q[lo], %q[x]\n\t"       \
  "vdup.32 %q[t], %[log2e]\n\t"          \
  "vfmas.f32 %q[t], %q[x], %[magic]\n\t" \
  "vsub.f32 %q[n], %q[t], %[magic]\n\t"  \
  "vfma.f32 %q[x], %q[n], %[nhi]\n\t"    \
  "vfma.f32 %q[x], %q[n], %[nlo]\n\t"    \
  "vdup.32 %q[pl], %[p2]\n\t"            \
  "vfmas.f32 %q[pl], %q[x], %[p3]\n\t"   \
  "vfmas.f32 %q[pl], %q[x], %[p4]\n\t"   \
  "vfmas.f32 %q[pl], %q[x], %[p5]\n\t"   \
  "vmul.f32 %q[n], %q[x], %q[x]\n\t"     \
  "vfma.f32 %q[x], %q[pl], %q[n]\n\t"    \
  "vadd.f32 %q[x], %q[x], %[one]\n\t"    \
  "vadd.i32 %q[t], %q[t], %[bias]\n\t"   \
  "vshl.i32 %q[t], %q[t], #23\n\t"       \
  "vmul.f32 %q[x], %q[x], %q[t]\n\t"     \
  "vstrw.32 %q[x], [%[p]], %[row]\n\t"   \
  "vadd.f32 %q[s], %q[s], %q[x]\n\t"

// st[j*16 + i] = exp(st[j*16 + i] - m_use[i]) for j < nk, the 4 columns at
// col (tq = 16, the core's tiles); returns their sums. Two keys per loop
// iteration, then the last one of an odd nk.
float32x4_t exp_columns_tq16(float* col, int32_t nk, float32x4_t m_use) {
  namespace ep = ::attn::exp_poly;
  float32x4_t s = vdupq_n_f32(0.0f);
  const float32x4_t lo = vdupq_n_f32(ep::kLo);
  float32x4_t x, t, n, pl;
  int32_t odd = nk;
  __asm__ volatile(
      "wls lr, %[pairs], 2f\n"
      "1:\n\t" ATTN_MVE_EXP_STEP ATTN_MVE_EXP_STEP
      "le lr, 1b\n"
      "2:\n\t"
      "lsls %[odd], %[odd], #31\n\t"
      "beq 3f\n\t" ATTN_MVE_EXP_STEP "3:\n"
      : [s] "+w"(s), [x] "=&w"(x), [t] "=&w"(t), [n] "=&w"(n), [pl] "=&w"(pl), [p] "+r"(col),
        [odd] "+r"(odd)
      : [m] "w"(m_use), [lo] "w"(lo), [log2e] "r"(ep::kLog2e), [magic] "r"(ep::kMagic),
        [nhi] "r"(-ep::kLn2Hi), [nlo] "r"(-ep::kLn2Lo), [p2] "r"(ep::kP2), [p3] "r"(ep::kP3),
        [p4] "r"(ep::kP4), [p5] "r"(ep::kP5), [one] "r"(1.0f), [bias] "r"(127u), [row] "n"(64),
        [pairs] "r"(nk >> 1)
      : "lr", "cc", "memory");
  return s;
}
#undef ATTN_MVE_EXP_STEP
#endif  // __OPTIMIZE__

// The same for any tq (a multiple of 4), with ExpPoly's intrinsics.
float32x4_t exp_columns(float* col, std::size_t tq, int32_t nk, float32x4_t m_use) {
  float32x4_t s = vdupq_n_f32(0.0f);
  for (int32_t j = 0; j < nk; ++j, col += tq) {
    const float32x4_t e = ExpPoly(vsubq_f32(vldrwq_f32(col), m_use));
    vstrwq_f32(col, e);
    s = vaddq_f32(s, e);
  }
  return s;
}

// mx[i] = max(m[i], max_j st[j*tq + i]) for i < w <= 16 (NaN skipped). tq
// = 16 (the core's tiles): a key row is 4 vectors, one running max each, 9
// instructions per row; otherwise one column vector at a time.
void column_max(const float* st, std::size_t tq, std::size_t w, int32_t nk, const float* m,
                float* mx) {
  if (tq == 16) {
    float32x4_t b0 = vldrwq_f32(m), b1 = vldrwq_f32(m + 4), b2 = vldrwq_f32(m + 8),
                b3 = vldrwq_f32(m + 12), x;
    __asm__ volatile(
        "wls lr, %[n], 2f\n"
        "1:\n\t"
        "vldrw.32 %q[x], [%[p]], #16\n\t"
        "vmaxnm.f32 %q[b0], %q[b0], %q[x]\n\t"
        "vldrw.32 %q[x], [%[p]], #16\n\t"
        "vmaxnm.f32 %q[b1], %q[b1], %q[x]\n\t"
        "vldrw.32 %q[x], [%[p]], #16\n\t"
        "vmaxnm.f32 %q[b2], %q[b2], %q[x]\n\t"
        "vldrw.32 %q[x], [%[p]], #16\n\t"
        "vmaxnm.f32 %q[b3], %q[b3], %q[x]\n\t"
        "le lr, 1b\n"
        "2:\n"
        : [b0] "+w"(b0), [b1] "+w"(b1), [b2] "+w"(b2), [b3] "+w"(b3), [x] "=&w"(x), [p] "+r"(st)
        : [n] "r"(nk)
        : "lr", "memory");
    vstrwq_f32(mx, b0);
    vstrwq_f32(mx + 4, b1);
    vstrwq_f32(mx + 8, b2);
    vstrwq_f32(mx + 12, b3);
    return;
  }
  for (std::size_t g = 0; g < w; g += 4) {
    float32x4_t b = vldrwq_f32(m + g);
    for (int32_t j = 0; j < nk; ++j) b = vmaxnmq_f32(b, vldrwq_f32(st + Sz(j) * tq + g));
    vstrwq_f32(mx + g, b);
  }
}

}  // namespace

void softmax_t_f32(float* st, int32_t tq, int32_t nk, float* m, float* l, int32_t nq, float* acc,
                   std::size_t a_stride, int32_t dv) {
  const std::size_t t = Sz(tq);
  for (std::size_t g0 = 0; g0 < t; g0 += 16) {
    // Columns [g0, g0 + 16) (the core's tiles: all of them): their new max
    // first, then each vector of 4 columns.
    const std::size_t w = t - g0 < 16 ? t - g0 : 16;
    alignas(16) float mx[16];
    column_max(st + g0, t, w, nk, m + g0, mx);
    for (std::size_t g = g0; g < g0 + w; g += 4) {
      const float32x4_t m_old = vldrwq_f32(m + g);
      const float32x4_t m_new = vldrwq_f32(mx + (g - g0));
      // A column with nothing visible yet subtracts 0: exp(-inf - 0) = 0.
      const mve_pred16_t none = vcmpltq_n_f32(m_new, -3.0e38f);
      const float32x4_t m_use = vpselq_f32(vdupq_n_f32(0.0f), m_new, none);
#if defined(__OPTIMIZE__)
      const float32x4_t s = t == 16 ? exp_columns_tq16(st + g, nk, m_use)
                                    : exp_columns(st + g, t, nk, m_use);
#else
      const float32x4_t s = exp_columns(st + g, t, nk, m_use);
#endif
      // alpha: 1 for a column with nothing visible (acc and l unchanged), else exp(m_old - m_new).
      const float32x4_t alpha =
          vpselq_f32(vdupq_n_f32(1.0f), ExpPoly(vsubq_f32(m_old, m_use)), none);
      vstrwq_f32(l + g, vfmaq_f32(s, vldrwq_f32(l + g), alpha));
      vstrwq_f32(m + g, m_new);
      float a[4];
      vstrwq_f32(a, alpha);
      for (std::size_t i = g; i < g + 4 && static_cast<int32_t>(i) < nq; ++i) {
        if (a[i - g] != 1.0f) scale_f32(acc + i * a_stride, dv, a[i - g]);
      }
    }
  }
}

}  // namespace mve
}  // namespace attn
