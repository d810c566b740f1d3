// TFLite's int8 requantization on four int32 lanes with NEON (internal):
//   requantize(x) = RoundingDivideByPOT(SRDHM(x * 2^left, multiplier), right) + zero_point
// (MultiplyByQuantizedMultiplier; left = max(shift, 0), right = max(-shift, 0));
// the clamp to int8 is a saturating narrowing.
// Bit-identical to q::requantize: VQRDMULH is SRDHM, and VRSHL rounds ties up,
// so one is subtracted from negative values first when shifting right (ties
// away from zero).
#pragma once

#include <arm_neon.h>

#include <cstdint>

namespace attn {
namespace detail {

// (Members always inlined: every caller, whatever its target, gets its own copy.)
// Four int32 vectors (16 lanes, in order) to int8 with saturation: the clamp
// of the requantization.
inline __attribute__((always_inline)) int8x16_t narrow_s32x4_s8(int32x4_t a, int32x4_t b,
                                                                int32x4_t c, int32x4_t d) {
  const int16x8_t lo = vcombine_s16(vqmovn_s32(a), vqmovn_s32(b));
  const int16x8_t hi = vcombine_s16(vqmovn_s32(c), vqmovn_s32(d));
  return vcombine_s8(vqmovn_s16(lo), vqmovn_s16(hi));
}

struct RequantizeNeon {
  int32x4_t left, neg_right, zero_point;
  int32_t multiplier;
  RequantizeNeon(int32_t mult, int32_t shift, int32_t zp)
      : left(vdupq_n_s32(shift > 0 ? shift : 0)),
        neg_right(vdupq_n_s32(shift > 0 ? 0 : shift)),
        zero_point(vdupq_n_s32(zp)),
        multiplier(mult) {}
  // The same for a known sign of the shift: kMode -1 shift < 0 (right shift
  // only), 1 shift >= 0 (left shift only): one instruction fewer per vector.
  template <int kMode>
  __attribute__((always_inline)) int32x4_t apply(int32x4_t x) const {
    if (kMode > 0) return vaddq_s32(vqrdmulhq_n_s32(vshlq_s32(x, left), multiplier), zero_point);
    x = vqrdmulhq_n_s32(x, multiplier);
    return vrshlq_s32(vqaddq_s32(x, vshrq_n_s32(x, 31)), neg_right);
  }
  // 16 lanes of apply<kMode> to int8 with the clamp. After a right shift
  // (kMode -1) |x| <= 2^30, so x + zero_point cannot wrap and is added with
  // saturation after the first narrowing (8 lanes per add, same bits).
  template <int kMode>
  __attribute__((always_inline)) int8x16_t to_s8(const int32x4_t (&v)[4]) const {
    const int32x4_t a = apply<kMode>(v[0]), b = apply<kMode>(v[1]), c = apply<kMode>(v[2]),
                    d = apply<kMode>(v[3]);
    if (kMode > 0) return narrow_s32x4_s8(a, b, c, d);
    const int16x8_t zp16 = vdupq_n_s16(static_cast<int16_t>(vgetq_lane_s32(zero_point, 0)));
    const int16x8_t lo = vqaddq_s16(vqmovn_high_s32(vqmovn_s32(a), b), zp16);
    const int16x8_t hi = vqaddq_s16(vqmovn_high_s32(vqmovn_s32(c), d), zp16);
    return vqmovn_high_s16(vqmovn_s16(lo), hi);
  }
  __attribute__((always_inline)) int32x4_t operator()(int32x4_t x) const {
    x = vshlq_s32(x, left);              // wrapping, as the scalar form
    x = vqrdmulhq_n_s32(x, multiplier);  // SRDHM
    const int32x4_t fixup = vshrq_n_s32(vandq_s32(x, neg_right), 31);
    x = vrshlq_s32(vqaddq_s32(x, fixup), neg_right);
    return vaddq_s32(x, zero_point);
  }
};

}  // namespace detail
}  // namespace attn
