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

// Two vectors per loop iteration, then the last n % 8 floats in a
// tail-predicated loop (WLSTP / LETP: the last iteration's lanes past n are
// off); 7 instructions per 8 floats.
void scale_f32(float* x, int32_t n, float a) {
  float32x4_t t0, t1;
  __asm__ volatile(
      "lsr lr, %[n], #3\n\t"
      "wls lr, lr, 2f\n"
      "1:\n\t"
      "vldrw.32 %q[t0], [%[x]]\n\t"
      "vldrw.32 %q[t1], [%[x], #16]\n\t"
      "vmul.f32 %q[t0], %q[t0], %[a]\n\t"
      "vmul.f32 %q[t1], %q[t1], %[a]\n\t"
      "vstrw.32 %q[t1], [%[x], #16]\n\t"
      "vstrw.32 %q[t0], [%[x]], #32\n\t"
      "le lr, 1b\n"
      "2:\n\t"
      "and %[n], %[n], #7\n\t"
      "wlstp.32 lr, %[n], 4f\n"
      "3:\n\t"
      "vldrw.32 %q[t0], [%[x]]\n\t"
      "vmul.f32 %q[t0], %q[t0], %[a]\n\t"
      "vstrw.32 %q[t0], [%[x]], #16\n\t"
      "letp lr, 3b\n"
      "4:\n"
      : [x] "+r"(x), [n] "+r"(n), [t0] "=&w"(t0), [t1] "=&w"(t1)
      : [a] "r"(a)
      : "lr", "memory");
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
