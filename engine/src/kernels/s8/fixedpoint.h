// int8 fixed-point primitives with TensorFlow Lite's bits (see docs/INT8.md).
//
// These are the integer building blocks of every int8 op: the Q31 multiplier
// arithmetic of TFLite's requantization (SaturatingRoundingDoublingHighMul,
// RoundingDivideByPOT, MultiplyByQuantizedMultiplier) and gemmlowp's
// fixed-point exp_on_negative_values and one_over_one_plus_x_for_x_in_0_1 that
// TFLite's reference softmax and CMSIS-NN's arm_softmax_s8 share.
//
// The reference C code relies on signed shifts and additions wrapping like
// 32-bit two's complement hardware. Here every operation that could overflow
// or shift into the sign bit is written with unsigned arithmetic or with a
// floor division, so the results are the same bits with no undefined (and no
// implementation-defined) behaviour in C++17. None of these functions use
// floating point.
#pragma once

#include <cstdint>

namespace attn {
namespace q {

inline constexpr int32_t kInt32Min = INT32_MIN;
inline constexpr int32_t kInt32Max = INT32_MAX;

// Two's complement wrapping add / sub / left shift (what the int32 reference
// code does on every real machine).
constexpr int32_t wrap_add(int32_t a, int32_t b) {
  const uint32_t u = static_cast<uint32_t>(a) + static_cast<uint32_t>(b);
  return u <= 0x7fffffffu ? static_cast<int32_t>(u)
                          : static_cast<int32_t>(static_cast<int64_t>(u) - (int64_t{1} << 32));
}
constexpr int32_t wrap_sub(int32_t a, int32_t b) {
  const uint32_t u = static_cast<uint32_t>(a) - static_cast<uint32_t>(b);
  return u <= 0x7fffffffu ? static_cast<int32_t>(u)
                          : static_cast<int32_t>(static_cast<int64_t>(u) - (int64_t{1} << 32));
}
// x * 2^shift modulo 2^32, shift in [0, 31].
constexpr int32_t wrap_shl(int32_t x, int shift) {
  const uint32_t u = static_cast<uint32_t>(x) << shift;
  return u <= 0x7fffffffu ? static_cast<int32_t>(u)
                          : static_cast<int32_t>(static_cast<int64_t>(u) - (int64_t{1} << 32));
}

// Arithmetic right shift, floor(x / 2^shift), shift in [0, 31].
constexpr int32_t asr(int32_t x, int shift) { return x >= 0 ? (x >> shift) : ~(~x >> shift); }

// SaturatingRoundingDoublingHighMul: round(a * b / 2^31) with ties towards
// +infinity, i.e. floor((a*b + 2^30) / 2^31); a = b = INT32_MIN gives INT32_MAX
// (the only overflowing case). Same bits as Arm's VQRDMULH.
// (gemmlowp writes it as (ab + nudge) / 2^31 with a sign-dependent nudge and
// a truncating division; for every int64 ab that equals the floor form used
// here, which compiles to one multiply, one add and one shift.)
constexpr int32_t srdhm(int32_t a, int32_t b) {
  if (a == kInt32Min && b == kInt32Min) return kInt32Max;
  const int64_t t = static_cast<int64_t>(a) * static_cast<int64_t>(b) + (int64_t{1} << 30);
  return static_cast<int32_t>(t >= 0 ? (t >> 31) : ~(~t >> 31));  // floor(t / 2^31)
}

// RoundingDivideByPOT: x / 2^exponent rounded to nearest, ties away from zero;
// exponent in [0, 31].
constexpr int32_t rounding_divide_by_pot(int32_t x, int exponent) {
  const uint32_t mask = static_cast<uint32_t>((uint64_t{1} << exponent) - 1u);
  const uint32_t remainder = static_cast<uint32_t>(x) & mask;
  const uint32_t threshold = (mask >> 1) + (x < 0 ? 1u : 0u);
  return asr(x, exponent) + (remainder > threshold ? 1 : 0);
}

// gemmlowp's SaturatingRoundingMultiplyByPOT for a positive exponent: x * 2^e
// saturated to [INT32_MIN, INT32_MAX]; exponent in [1, 30].
constexpr int32_t saturating_shl(int32_t x, int exponent) {
  const int32_t threshold = static_cast<int32_t>((int64_t{1} << (31 - exponent)) - 1);
  if (x > threshold) return kInt32Max;
  if (x < -threshold) return kInt32Min;
  return wrap_shl(x, exponent);
}

// gemmlowp's RoundingHalfSum for int32: (a + b + sign(a + b)) / 2, truncated.
constexpr int32_t rounding_half_sum(int32_t a, int32_t b) {
  const int64_t sum = static_cast<int64_t>(a) + static_cast<int64_t>(b);
  const int64_t sign = sum >= 0 ? 1 : -1;
  return static_cast<int32_t>((sum + sign) / 2);
}

// TFLite's MultiplyByQuantizedMultiplier (the double-rounding form):
//   RoundingDivideByPOT(SRDHM(x * 2^max(shift, 0), multiplier), max(-shift, 0))
// shift in [-31, 30]; the left shift wraps modulo 2^32 as the reference does.
constexpr int32_t multiply_by_quantized_multiplier(int32_t x, int32_t multiplier, int shift) {
  const int left = shift > 0 ? shift : 0;
  const int right = shift > 0 ? 0 : -shift;
  return rounding_divide_by_pot(srdhm(wrap_shl(x, left), multiplier), right);
}

// Requantize an int32 accumulator to int8: multiply, add the output zero
// point, clamp to [lo, hi].
constexpr int32_t requantize(int32_t acc, int32_t multiplier, int shift, int32_t zero_point,
                             int32_t lo = -128, int32_t hi = 127) {
  const int32_t v = wrap_add(multiply_by_quantized_multiplier(acc, multiplier, shift), zero_point);
  return v < lo ? lo : (v > hi ? hi : v);
}

// Number of leading zero bits of a 32-bit value (32 for 0).
constexpr int clz32(uint32_t x) {
  if (x == 0) return 32;
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_clz(x);
#else
  int n = 0;
  while ((x & 0x80000000u) == 0) {
    x <<= 1;
    ++n;
  }
  return n;
#endif
}

// gemmlowp's exp_on_interval_between_negative_one_quarter_and_0_excl:
// a in Q0.31, a in [-1/4, 0); returns exp(a) in Q0.31.
constexpr int32_t exp_on_interval_between_negative_one_quarter_and_0_excl(int32_t a) {
  constexpr int32_t kConstantTerm = 1895147668;     // exp(-1/8)
  constexpr int32_t kConstantOneThird = 715827883;  // 1/3
  const int32_t x = wrap_add(a, int32_t{1} << 28);  // x = a + 1/8
  const int32_t x2 = srdhm(x, x);
  const int32_t x3 = srdhm(x2, x);
  const int32_t x4 = srdhm(x2, x2);
  const int32_t x4_over_4 = rounding_divide_by_pot(x4, 2);
  const int32_t poly =
      rounding_divide_by_pot(wrap_add(srdhm(wrap_add(x4_over_4, x3), kConstantOneThird), x2), 1);
  return wrap_add(kConstantTerm, srdhm(kConstantTerm, wrap_add(x, poly)));
}

// gemmlowp's exp_on_negative_values with 5 integer bits (the softmax's
// kScaledDiffIntegerBits): a in Q5.26, a <= 0; returns exp(a) in Q0.31
// (INT32_MAX for a == 0).
constexpr int32_t exp_on_negative_values_q5_26(int32_t a) {
  constexpr int kFractionalBits = 26;
  constexpr int32_t kOneQuarter = int32_t{1} << (kFractionalBits - 2);
  const int32_t a_mod_quarter_minus_one_quarter =
      wrap_sub(static_cast<int32_t>(static_cast<uint32_t>(a) & (kOneQuarter - 1)), kOneQuarter);
  // Rescale<0> from 5 integer bits: saturating multiply by 2^5.
  int32_t result = exp_on_interval_between_negative_one_quarter_and_0_excl(
      saturating_shl(a_mod_quarter_minus_one_quarter, 5));
  const uint32_t remainder = static_cast<uint32_t>(wrap_sub(a_mod_quarter_minus_one_quarter, a));
  // exp(-2^k) in Q0.31 for k = -2 .. 4, selected by bits 24 .. 30 of remainder.
  constexpr int32_t kMultipliers[7] = {1672461947, 1302514674, 790015084, 290630308,
                                       39332535,   720401,     242};
  for (int k = 0; k < 7; ++k) {
    if ((remainder & (uint32_t{1} << (kFractionalBits - 2 + k))) != 0) {
      result = srdhm(result, kMultipliers[k]);
    }
  }
  return a == 0 ? kInt32Max : result;
}

// 1 in Q2.29.
constexpr int32_t kOneQ2 = int32_t{1} << 29;

// The Newton-Raphson reciprocal both functions below share: for
// half_denominator = (1 + a) / 2 (a in Q0.31, [0, 1)), returns x ~ 1 /
// half_denominator in Q2.29: x0 = 48/17 - 32/17 half_denominator, then
// three steps x += x (1 - half_denominator x), the product Q4.27 rescaled
// (saturating) to Q2.29.
constexpr int32_t reciprocal_half_denominator_q2_29(int32_t half_denominator) {
  constexpr int32_t kConstant48Over17 = 1515870810;      // Q2.29
  constexpr int32_t kConstantNeg32Over17 = -1010580540;  // Q2.29
  int32_t x = wrap_add(kConstant48Over17, srdhm(half_denominator, kConstantNeg32Over17));
  for (int i = 0; i < 3; ++i) {
    const int32_t one_minus = wrap_sub(kOneQ2, srdhm(half_denominator, x));
    x = wrap_add(x, saturating_shl(srdhm(x, one_minus), 2));
  }
  return x;
}

// gemmlowp's one_over_one_plus_x_for_x_in_0_1: a in Q0.31, a in [0, 1);
// returns 1 / (1 + a) in Q0.31 (three Newton-Raphson steps in Q2.29).
constexpr int32_t one_over_one_plus_x_for_x_in_0_1(int32_t a) {
  const int32_t x = reciprocal_half_denominator_q2_29(rounding_half_sum(a, kInt32Max));
  // ExactMulByPot<-1> then Rescale<0> from 1 integer bit.
  return saturating_shl(x, 1);
}

// gemmlowp's one_minus_x_over_one_plus_x_for_x_in_0_1: a in Q0.31, [0, 1);
// returns (1 - a) / (1 + a) in Q0.31.
constexpr int32_t one_minus_x_over_one_plus_x_for_x_in_0_1(int32_t a) {
  const int32_t x = reciprocal_half_denominator_q2_29(rounding_half_sum(a, kInt32Max));
  // Rescale<0>(x - 1) from 2 integer bits.
  return saturating_shl(wrap_sub(x, kOneQ2), 2);
}

// gemmlowp's tanh with 4 integer bits (TFLite's int8 TANH): a in Q4.27,
// returns tanh(a) in Q0.31. tanh(-|a|) = -(1 - e) / (1 + e), e = exp(-2|a|):
// the Q4.27 raw value read as Q5.26 is 2a.
constexpr int32_t tanh_q4_27(int32_t a) {
  if (a == 0) return 0;
  const int32_t n = a < 0 ? a : -a;  // |a| < 2^31: a != INT32_MIN in TFLite's range
  const int32_t t = one_minus_x_over_one_plus_x_for_x_in_0_1(exp_on_negative_values_q5_26(n));
  return a < 0 ? -t : t;
}

// TFLite's GetReciprocal: for x > 0 in Q(integer_bits).(31 - integer_bits),
// returns a Q0.31 value r and *num_bits_over_unit such that
// 1/x = r * 2^-num_bits_over_unit (approximately).
// Every caller passes a sum of exponentials that includes exp(0), so x > 0;
// x == 0 (which would shift by 32) gives r = 0 and *num_bits_over_unit = 0.
constexpr int32_t get_reciprocal(int32_t x, int integer_bits, int* num_bits_over_unit) {
  if (x == 0) {
    *num_bits_over_unit = 0;
    return 0;
  }
  const int headroom_plus_one = clz32(static_cast<uint32_t>(x));
  *num_bits_over_unit = integer_bits - headroom_plus_one;
  const int32_t shifted_sum_minus_one = static_cast<int32_t>(
      static_cast<int64_t>(static_cast<uint32_t>(x) << headroom_plus_one) - (int64_t{1} << 31));
  return one_over_one_plus_x_for_x_in_0_1(shifted_sum_minus_one);
}

}  // namespace q
}  // namespace attn
