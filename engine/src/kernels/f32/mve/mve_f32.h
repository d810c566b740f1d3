// Helium (MVE) helpers of the Cortex-M55 float kernels (kernels/f32/mve).
//
// Helium has 8 vector registers of 4 floats (q0-q7), and its multiply-adds
// take one operand from a core register: VFMA Qd, Qn, Rm adds Qn * Rm (a
// float in r0-r12) to every lane of Qd. The kernels build on that form: one
// operand of each product is a vector, the other a scalar loaded with an
// ordinary LDR, so a block of accumulators needs only the vectors it
// multiplies. Tails use the lane predicate VCTP (vctp32q(n): the first n
// lanes) on loads and stores, never a scalar loop.
#pragma once

#include <arm_mve.h>

#include <cstddef>
#include <cstdint>

#include "kernels/f32/exp_poly.h"

namespace attn {
namespace mve {

inline std::size_t Sz(int32_t i) { return static_cast<std::size_t>(i); }

// The first n < 4 lanes of p, the rest 0 / the first n lanes of v into p.
inline float32x4_t LoadN(const float* p, int32_t n) { return vldrwq_z_f32(p, vctp32q(n)); }
inline void StoreN(float* p, float32x4_t v, int32_t n) { vstrwq_p_f32(p, v, vctp32q(n)); }

// v[0] + v[1] + v[2] + v[3] (pairs first: (v0 + v1) + (v2 + v3)).
inline float ReduceSum(float32x4_t v) {
  const float32x4_t pairs = vaddq_f32(v, vrev64q_f32(v));
  return vgetq_lane_f32(pairs, 0) + vgetq_lane_f32(pairs, 2);
}

// exp(x) for x <= 0, exp_poly.h's algorithm with its constants in its order
// (so its error bound, kMaxUlp on [-87.3, 0], and the same results as the
// other backends' ExpPoly): clamp at kLo (NaN passes), n = round(x log2e) by
// the magic number, Cody-Waite r, 1 + r + r^2 P(r), times 2^n from t's bits.
// The constants are scalar operands (VFMA / VFMAS / VSUB with a core
// register) or splatted right before their one use, so that no vector
// register holds a constant across a loop: the 8 stay for the data.
inline float32x4_t ExpPoly(float32x4_t x) {
  namespace ep = ::attn::exp_poly;
  // kLo > x, not x < kLo: Helium's LT holds for unordered lanes (NaN), GT not.
  const float32x4_t lo = vdupq_n_f32(ep::kLo);
  x = vpselq_f32(lo, x, vcmpgtq_f32(lo, x));
  const float32x4_t t = vfmasq_n_f32(vdupq_n_f32(ep::kLog2e), x, ep::kMagic);  // log2e x + magic
  const float32x4_t n = vsubq_n_f32(t, ep::kMagic);
  float32x4_t r = vfmaq_n_f32(x, n, -ep::kLn2Hi);
  r = vfmaq_n_f32(r, n, -ep::kLn2Lo);
  float32x4_t p = vfmasq_n_f32(vdupq_n_f32(ep::kP2), r, ep::kP3);  // kP2 r + kP3
  p = vfmasq_n_f32(p, r, ep::kP4);
  p = vfmasq_n_f32(p, r, ep::kP5);
  const float32x4_t e = vaddq_n_f32(vfmaq_f32(r, p, vmulq_f32(r, r)), 1.0f);
  const uint32x4_t bits = vshlq_n_u32(vaddq_n_u32(vreinterpretq_u32_f32(t), 127u), 23);
  return vmulq_f32(e, vreinterpretq_f32_u32(bits));
}

// x > m ? x : m per lane (a NaN x leaves m).
inline float32x4_t MaxSkipNaN(float32x4_t x, float32x4_t m) {
  return vpselq_f32(x, m, vcmpgtq_f32(x, m));
}

}  // namespace mve
}  // namespace attn
