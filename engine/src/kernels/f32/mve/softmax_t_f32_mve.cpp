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
// The exp is ExpPoly (mve_f32.h: exp_poly.h's error bound).
#include <cstddef>
#include <cstdint>

#include "kernels/f32/kernels_f32.h"
#include "kernels/f32/mve/mve_f32.h"

namespace attn {
namespace mve {

void softmax_t_f32(float* st, int32_t tq, int32_t nk, float* m, float* l, int32_t nq, float* acc,
                   std::size_t a_stride, int32_t dv) {
  const std::size_t t = Sz(tq);
  for (std::size_t g = 0; g < t; g += 4) {
    const float32x4_t m_old = vldrwq_f32(m + g);
    float32x4_t b0 = m_old, b1 = m_old;
    int32_t j = 0;
    for (; j + 2 <= nk; j += 2) {
      b0 = MaxSkipNaN(vldrwq_f32(st + Sz(j) * t + g), b0);
      b1 = MaxSkipNaN(vldrwq_f32(st + Sz(j + 1) * t + g), b1);
    }
    if (j < nk) b0 = MaxSkipNaN(vldrwq_f32(st + Sz(j) * t + g), b0);
    const float32x4_t m_new = MaxSkipNaN(b1, b0);
    // A column with nothing visible yet subtracts 0: exp(-inf - 0) = 0.
    const mve_pred16_t none = vcmpltq_n_f32(m_new, -3.0e38f);
    const float32x4_t m_use = vpselq_f32(vdupq_n_f32(0.0f), m_new, none);
    float32x4_t s = vdupq_n_f32(0.0f);
    float* col = st + g;
    for (j = 0; j < nk; ++j, col += t) {
      const float32x4_t e = ExpPoly(vsubq_f32(vldrwq_f32(col), m_use));
      vstrwq_f32(col, e);
      s = vaddq_f32(s, e);
    }
    // alpha: 1 for a column with nothing visible (acc and l unchanged), else exp(m_old - m_new).
    const float32x4_t alpha = vpselq_f32(vdupq_n_f32(1.0f), ExpPoly(vsubq_f32(m_old, m_use)), none);
    vstrwq_f32(l + g, vfmaq_f32(s, vldrwq_f32(l + g), alpha));
    vstrwq_f32(m + g, m_new);
    float a[4];
    vstrwq_f32(a, alpha);
    for (std::size_t i = g; i < g + 4 && static_cast<int32_t>(i) < nq; ++i) {
      if (a[i - g] != 1.0f) scale_f32(acc + i * a_stride, dv, a[i - g]);
    }
  }
}

}  // namespace mve
}  // namespace attn
