// The fast exp every float backend shares, for arguments x in [-88, 0] (the
// max-subtracted softmax scores and the exp(-2|x|) inside tanh).
//
//   n = round(x * log2(e))              (the "magic number" rounding)
//   r = x - n * ln(2)                   (Cody-Waite, two constants: |r| <= ln(2)/2)
//   exp(r) = 1 + r + r^2 * P(r)         (P: degree 3, fitted for this file to
//                                        minimise the relative error of exp on
//                                        |r| <= ln(2)/2: 1.05e-7 before rounding)
//   exp(x) = exp(r) * 2^n               (2^n built in the exponent bits)
//
// Domain and error (measured against double-precision exp):
//   x in [-87.3, 0]: error <= 3 ulp of the result (kMaxUlp); the worst seen
//     over every float of [-87.3, 0] is 2.26 ulp (tests/simd checks a dense
//     sweep through each backend, and every float with
//     ATTN_EXP_EVERY_FLOAT=1). A degree-5 P (the previous form) gave 2 ulp
//     for two more FMAs per vector: float softmax does not need them;
//   x in [-88, -87.3): the result is subnormal or 0, absolute error < 2^-126;
//   x < -88, including -inf: the argument is clamped to -88, giving 0;
//   NaN propagates; x > 0 is outside the contract (valid up to ~ +88 with the
//   same relative error, but the softmax never asks).
//
// exp_poly_f32 below is the scalar form (ref-compatible backends, tails in
// tests); the SIMD forms in kernels/generic/kernels_f32-inl.h evaluate the
// same constants in the same order.
#pragma once

#include <cstdint>
#include <cstring>

namespace attn {
namespace exp_poly {

inline constexpr float kLo = -88.0f;  // clamp: exp(kLo) rounds to 0 below
inline constexpr float kLog2e = 1.44269504088896341f;
inline constexpr float kMagic = 12582912.0f;   // 1.5 * 2^23: rounds to integer
inline constexpr float kLn2Hi = 0.693359375f;  // ln 2 = kLn2Hi + kLn2Lo
inline constexpr float kLn2Lo = -2.12194440e-4f;
inline constexpr float kP2 = 8.312525228e-3f;  // P(r) = ((kP2 r + kP3) r + kP4) r + kP5
inline constexpr float kP3 = 4.189011455e-2f;
inline constexpr float kP4 = 1.666711420e-1f;
inline constexpr float kP5 = 4.999923110e-1f;
inline constexpr int kMaxUlp = 3;  // stated bound on [-87.3, 0]

// The AVX-512 form (kernels_f32-inl.h ExpPolyTable32: the policies whose
// kExpTable32 is true, i.e. Highway's AVX3 / AVX3_DL targets and xsimd built
// for AVX-512), same error bound kMaxUlp (worst seen over every float of
// [-87.3, 0]: 1.79 ulp; 6 FMA-pipe operations per vector instead of 9):
//   t = x * log2e + 1.5 * 2^18         (ulp 2^-5: t = 1.5 * 2^18 + k / 32, k =
//                                       round(32 x log2e), whose low bits are t's)
//   u = t - 1.5 * 2^18 = k / 32        (exact)
//   r = x - u * ln(2)                  (Cody-Waite, the constants above: |r| <= ln(2)/64)
//   s = 2^(k / 32) = 2^floor(u) * T[k mod 32]   (exact, in the integer unit:
//       one vpermt2ps of kExp2Table32Bits by t's low 5 bits, plus t's bits
//       shifted left by 18, which put floor(u) in the exponent field and
//       (k mod 32) << 18 into the mantissa, that the table entries subtract)
//   exp(x) = s + s (r (kQ1 + kQ2 r))    for x >= kLoTable32, else 0 (one FMA
//                                       with s: no subnormal intermediate)
// kLoTable32 = ln(2^-126) rounded down: from there on floor(u) >= -126, so s
// is a normal float (the product rounds to the nearest subnormal, if any);
// below it (and for -inf) the last FMA's zero-mask gives exactly 0, an
// absolute error < 2^-126 as in the generic form's [-88, -87.3); NaN
// propagates (the mask keeps unordered lanes).
// kQ1, kQ2: fitted for this file to the relative error of exp on
// |r| <= 1.02 ln(2)/64 (5.7e-8 before rounding).
inline constexpr float kLoTable32 = -87.3365478515625f;  // <= ln(2^-126) = -87.33654475...
inline constexpr float kMagic32 = 393216.0f;             // 1.5 * 2^18: rounds to 1/32
inline constexpr float kQ1 = 1.0000152587890625f;
inline constexpr float kQ2 = 0.500000536441803f;
// The bits of 2^(j / 32) rounded to float, minus j << 18 (see s above; a
// test checks every entry against exp2).
alignas(64) inline constexpr uint32_t kExp2Table32Bits[32] = {
    0x3F800000u, 0x3F7ECD87u, 0x3F7DAAC3u, 0x3F7C980Fu, 0x3F7B95C2u, 0x3F7AA43Au, 0x3F79C3D3u,
    0x3F78F4F0u, 0x3F7837F0u, 0x3F778D3Au, 0x3F76F532u, 0x3F767043u, 0x3F75FED7u, 0x3F75A15Bu,
    0x3F75583Fu, 0x3F7523F6u, 0x3F7504F3u, 0x3F74FBAFu, 0x3F7508A4u, 0x3F752C4Du, 0x3F75672Au,
    0x3F75B9BEu, 0x3F76248Cu, 0x3F76A81Eu, 0x3F7744FDu, 0x3F77FBB8u, 0x3F78CCDFu, 0x3F79B907u,
    0x3F7AC0C7u, 0x3F7BE4BAu, 0x3F7D257Du, 0x3F7E83B3u};

// 2^n from t = x * log2e + kMagic: the low mantissa bits of t hold n.
inline float pow2_from_magic(float t) {
  uint32_t bits;
  std::memcpy(&bits, &t, sizeof bits);
  bits = (bits + 127u) << 23;
  float r;
  std::memcpy(&r, &bits, sizeof r);
  return r;
}

// exp(x) for x <= 0 (see the contract above).
inline float exp_poly_f32(float x) {
  x = x < kLo ? kLo : x;  // NaN compares false and passes through
  const float t = x * kLog2e + kMagic;
  const float n = t - kMagic;
  float r = x - n * kLn2Hi;
  r = r - n * kLn2Lo;
  float p = kP2;
  p = p * r + kP3;
  p = p * r + kP4;
  p = p * r + kP5;
  const float e = (p * (r * r) + r) + 1.0f;
  return e * pow2_from_magic(t);
}

}  // namespace exp_poly
}  // namespace attn
