// Helium row softmax and its passes (kernels_f32.h, namespace attn::mve):
//
//   max_f32(x, n)            = max_i x[i]  (NaN skipped unless all are NaN)
//   exp_sub_sum_f32(x, n, m): x[i] = exp(x[i] - m), returns sum_i x[i]
//   scale_f32(x, n, a):       x[i] *= a
//   softmax_f32(x, n):        x[i] = exp(x[i] - max) / sum_j exp(x[j] - max)
//
// Four floats per vector; the last n % 4 are one predicated vector (VCTP),
// whose lanes past n are neither stored nor counted. The exp is ExpPoly
// (mve_f32.h: exp_poly.h's error bound). The sums add 4 lanes in parallel
// (an order other than ref's: within n eps of the sum).
#include <cstddef>
#include <cstdint>

#include "kernels/f32/kernels_f32.h"
#include "kernels/f32/mve/mve_f32.h"

namespace attn {
namespace mve {

float max_f32(const float* x, int32_t n) {
  const float kNegInf = -__builtin_inff();
  float32x4_t m = vdupq_n_f32(kNegInf);
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) m = MaxSkipNaN(vldrwq_f32(x + i), m);
  if (i < n) {  // lanes past n never win: the compare is predicated
    const mve_pred16_t p = vctp32q(n - i);
    const float32x4_t v = vldrwq_z_f32(x + i, p);
    m = vpselq_f32(v, m, vcmpgtq_m_f32(v, m, p));
  }
  const float m01 = vgetq_lane_f32(m, 0) > vgetq_lane_f32(m, 1) ? vgetq_lane_f32(m, 0)
                                                                : vgetq_lane_f32(m, 1);
  const float m23 = vgetq_lane_f32(m, 2) > vgetq_lane_f32(m, 3) ? vgetq_lane_f32(m, 2)
                                                                : vgetq_lane_f32(m, 3);
  const float r = m01 > m23 ? m01 : m23;
  // All -inf (masked) or all NaN: the reference's answer (x[0], or the NaN).
  return r == kNegInf ? ref::max_f32(x, n) : r;
}

float exp_sub_sum_f32(float* x, int32_t n, float m) {
  float32x4_t s = vdupq_n_f32(0.0f);
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const float32x4_t e = ExpPoly(vsubq_n_f32(vldrwq_f32(x + i), m));
    vstrwq_f32(x + i, e);
    s = vaddq_f32(s, e);
  }
  if (i < n) {
    const mve_pred16_t p = vctp32q(n - i);
    const float32x4_t e = ExpPoly(vsubq_n_f32(vldrwq_z_f32(x + i, p), m));
    vstrwq_p_f32(x + i, e, p);
    s = vaddq_m_f32(s, s, e, p);  // lanes past n keep s
  }
  return ReduceSum(s);
}

void scale_f32(float* x, int32_t n, float a) {
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) vstrwq_f32(x + i, vmulq_n_f32(vldrwq_f32(x + i), a));
  if (i < n) StoreN(x + i, vmulq_n_f32(LoadN(x + i, n - i), a), n - i);
}

void softmax_f32(float* x, int32_t n) {
  if (n <= 0) return;
  const float m = max_f32(x, n);
  if (m == -__builtin_inff()) {  // every entry masked: all 0
    for (int32_t i = 0; i < n; i += 4) StoreN(x + i, vdupq_n_f32(0.0f), n - i < 4 ? n - i : 4);
    return;
  }
  const float sum = exp_sub_sum_f32(x, n, m);  // >= 1: the max's own exp(0)
  scale_f32(x, n, 1.0f / sum);
}

}  // namespace mve
}  // namespace attn
