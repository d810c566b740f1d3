// Helium (MVE) tanh and add of the seq2seq ops (kernels_f32.h, namespace
// attn::mve): Bahdanau's tanh(M_j + query W1) per (key, unit).
//
//   add_f32:  y[i] = a[i] + b[i]
//   tanh_f32: x[i] = tanh(x[i])
//
// tanh is tanh_poly.h's rational form on four lanes, with its constants in
// its order, so the same bits as the scalar form (error <= 4 FLT_EPSILON
// relative over every float): x clamped to [-8.5, 8.5] by VMINNM / VMAXNM
// (where the result rounds to +-1), the four quadratic factors as an add and
// an FMA with a core-register constant each, and the divide as four scalar
// VDIVs on the lanes (Helium has no vector divide or reciprocal estimate;
// q0-q7 are s0-s31, so the lanes need no moves). A NaN lane, which the clamp
// would turn into 8.5, is put back afterwards. Tails: lane predicates.
#include <arm_mve.h>

#include <cstdint>

#include "kernels/f32/kernels_f32.h"
#include "kernels/f32/mve/mve_f32.h"
#include "kernels/f32/tanh_poly.h"

namespace attn {
namespace mve {
namespace {

// n[i] / d[i] per lane, correctly rounded (VDIV.F32 on s0-s3 / s4-s7).
inline float32x4_t DivLanes(float32x4_t n, float32x4_t d) {
  register float32x4_t qn __asm__("q0") = n;
  register float32x4_t qd __asm__("q1") = d;
  __asm__(
      "vdiv.f32 s0, s0, s4\n\t"
      "vdiv.f32 s1, s1, s5\n\t"
      "vdiv.f32 s2, s2, s6\n\t"
      "vdiv.f32 s3, s3, s7"
      : "+w"(qn)
      : "w"(qd));
  return qn;
}

inline float32x4_t TanhPoly(float32x4_t x) {
  namespace tp = ::attn::tanh_poly;
  const float32x4_t xc =
      vmaxnmq_f32(vminnmq_f32(x, vdupq_n_f32(tp::kClamp)), vdupq_n_f32(-tp::kClamp));
  const float32x4_t z = vmulq_f32(xc, xc);
  const float32x4_t z2 = vmulq_f32(z, z);
  const float32x4_t a1 = vfmaq_n_f32(vaddq_n_f32(z2, tp::kB1), z, tp::kA1);
  const float32x4_t a2 = vfmaq_n_f32(vaddq_n_f32(z2, tp::kB2), z, tp::kA2);
  const float32x4_t c1 = vfmaq_n_f32(vaddq_n_f32(z2, tp::kD1), z, tp::kC1);
  const float32x4_t c2 = vfmaq_n_f32(vaddq_n_f32(z2, tp::kD2), z, tp::kC2);
  const float32x4_t num = vmulq_f32(vmulq_n_f32(vmulq_f32(a1, a2), tp::kK), xc);
  const float32x4_t y = DivLanes(num, vmulq_f32(c1, c2));
  return vpselq_f32(y, x, vcmpeqq_f32(x, x));  // NaN lanes: x
}

}  // namespace

void add_f32(float* y, const float* a, const float* b, int32_t n) {
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(y + i, vaddq_f32(vld1q_f32(a + i), vld1q_f32(b + i)));
  if (i < n) StoreN(y + i, vaddq_f32(LoadN(a + i, n - i), LoadN(b + i, n - i)), n - i);
}

void tanh_f32(float* x, int32_t n) {
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(x + i, TanhPoly(vld1q_f32(x + i)));
  if (i < n) StoreN(x + i, TanhPoly(LoadN(x + i, n - i)), n - i);
}

}  // namespace mve
}  // namespace attn
