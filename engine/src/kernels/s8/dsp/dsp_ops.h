// Small helpers of the Cortex-M DSP-extension int8 kernels (internal; only
// compiled into the DSP kernel set): the single instructions GCC 12 does not
// form from C, unaligned word loads, and the requantization of one int32
// (TFLite's MultiplyByQuantizedMultiplier + zero point + clamp) in its
// general form (the tile kernels' short form for small accumulators is
// dsp/tile_dsp.h's RqDouble).
#pragma once

#include <cstdint>
#include <cstring>

#include <arm_acle.h>

#include "kernels/s8/fixedpoint.h"

namespace attn {
namespace detail {
namespace dsp {

// SXTB16 of the odd bytes (the ROR #8 operand form, which GCC 12
// does not fold from a C rotate).
inline int16x2_t sxtb16_ror8(uint32_t x) {
  int16x2_t r;
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(x));
  return r;
}
inline int16x2_t sxtb16(uint32_t x) { return __sxtb16(static_cast<int8x4_t>(x)); }
// SXTAB16 of the odd bytes: a + (sign-extended bytes 1 and 3 of x), per halfword.
inline int16x2_t sxtab16_ror8(int16x2_t a, uint32_t x) {
  int16x2_t r;
  __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(a), "r"(x));
  return r;
}

// PKHBT / PKHTB: pack_lo(a, b) = (a[15:0], b[15:0]); pack_hi(a, b) =
// (a[31:16], b[31:16]), first argument in the low half.
inline uint32_t pack_lo(uint32_t a, uint32_t b) {
  uint32_t r;
  __asm__("pkhbt %0, %1, %2, lsl #16" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
inline uint32_t pack_hi(uint32_t a, uint32_t b) {
  uint32_t r;
  __asm__("pkhtb %0, %1, %2, asr #16" : "=r"(r) : "r"(b), "r"(a));
  return r;
}

inline uint32_t load4(const void* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);  // unaligned word load (LDR allows it on M4/M7/M33)
  return v;
}

// requantize(x, multiplier, shift, zero_point) of fixedpoint.h, every int32 x.
struct Requant {
  int32_t multiplier, left, right, zero_point;
  Requant(int32_t m, int32_t shift, int32_t zp)
      : multiplier(m), left(shift > 0 ? shift : 0), right(shift > 0 ? 0 : -shift), zero_point(zp) {}
  int32_t operator()(int32_t x) const {
    const int32_t y = q::wrap_shl(x, left);
    // SRDHM = floor((y m + 2^30) / 2^31) (fixedpoint.h): SMULL and a 64-bit
    // add; y m never overflows int64 and m > 0 excludes the saturating case.
    const int64_t t = static_cast<int64_t>(y) * multiplier + (int64_t{1} << 30);
    const auto h = static_cast<int32_t>(t >> 31);
    // RoundingDivideByPOT without overflow: floor part plus the rounding bit.
    const uint32_t mask = (uint32_t{1} << right) - 1u;  // right <= 31
    const uint32_t threshold = (mask >> 1) + (static_cast<uint32_t>(h) >> 31);
    const int32_t v = (h >> right) + ((static_cast<uint32_t>(h) & mask) > threshold ? 1 : 0);
    return __ssat(q::wrap_add(v, zero_point), 8);  // the reference wraps, then clamps
  }
};

}  // namespace dsp
}  // namespace detail
}  // namespace attn
