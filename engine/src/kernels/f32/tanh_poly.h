// The rational tanh of the Cortex-M float backends (kernels/f32/mcu and
// kernels/f32/mve), for every float x:
//
//   x' = x clamped to [-kClamp, kClamp] (8.5; tanh(8.5) = 1 - 8.3e-8)
//   z = x' x',  z2 = z z
//   tanh(x) = (A1 A2 K) x' / (C1 C2)
//   A1 = z2 + kA1 z + kB1,  A2 = z2 + kA2 z + kB2     (each: one add, one FMA)
//   C1 = z2 + kC1 z + kD1,  C2 = z2 + kC2 z + kD2
//
// A1 A2 K / (C1 C2) = P(z) / Q(z) is the degree (4, 4) rational in z that
// minimises the relative error of tanh(x) / x on [0, 9] (fitted for this file
// by Lawson-weighted least squares in 40-digit arithmetic: 2.1e-8 before
// rounding), written as products of quadratics: P and Q have only negative
// real roots, so every factor is a sum of positive terms, and on a
// two-operand FPU (Cortex-M4: VFMA accumulates into its destination) a
// factor costs two instructions where a Horner step with a constant costs
// two per coefficient (a copy of the constant, then the FMA). K makes the
// ratio 1 at z = 0 with the rounded constants. At the clamp the result
// rounds to exactly 1, so |x| >= 8.5 and +-inf give +-1.
//
// Error, measured against double-precision tanh over every finite float (the
// odd form makes the negative half the mirror of the positive one): at most
// 4.62e-7 |tanh(x)| (3.87 FLT_EPSILON relative, at x = 0.702; 7.5 ulp of the
// results just below 1, where the ulp is half of FLT_EPSILON; subnormal x
// included). Stated bound: kMaxRelEps FLT_EPSILON relative. -0 gives -0; NaN
// propagates. tests/simd checks a dense sweep of the
// scalar form (every float with ATTN_TANH_EVERY_FLOAT=1: the figure above),
// and the board cases check each backend's tanh_f32 against double.
//
// Every step is one add, fused multiply-add, multiply or divide in the order
// written, so the scalar form below, the Helium form (kernels/f32/mve) and the
// host test give the same bits, provided the compiler does not contract
// z2 + kB1 into an FMA with z2's multiply: GCC does in C++ (even across
// statements) unless fp-contract is off, as in the function that loops over
// the scalar form (kernels/f32/mcu); the Helium form is intrinsics, which are
// never contracted.
#pragma once

#include <cmath>

namespace attn {
namespace tanh_poly {

inline constexpr float kClamp = 8.5f;
inline constexpr float kClamp2 = 72.25f;  // kClamp^2: x * x < kClamp2 exactly when |x| < kClamp
inline constexpr float kK = 0.0171723813f;
inline constexpr float kA1 = 1492.573f;
inline constexpr float kB1 = 185646.766f;
inline constexpr float kA2 = 50.7348251f;
inline constexpr float kB2 = 403.394135f;
inline constexpr float kC1 = 397.756622f;
inline constexpr float kD1 = 23371.1172f;
inline constexpr float kC2 = 24.7685108f;
inline constexpr float kD2 = 55.0260086f;
inline constexpr int kMaxRelEps = 4;  // stated bound: kMaxRelEps * FLT_EPSILON * |tanh(x)|

// tanh(x) for |x| < kClamp, z = x * x (see the contract above); k = kK (a
// parameter so that a loop can hold it in a register).
inline float tanh_inside(float x, float z, float k = kK) {
  const float z2 = z * z;
  const float a1 = std::fma(kA1, z, z2 + kB1);
  const float a2 = std::fma(kA2, z, z2 + kB2);
  const float c1 = std::fma(kC1, z, z2 + kD1);
  const float c2 = std::fma(kC2, z, z2 + kD2);
  return ((a1 * a2) * k * x) / (c1 * c2);
}

// tanh(x) for |x| >= kClamp (+-1) and NaN (itself): the rare path.
inline float tanh_outside(float x) { return x != x ? x : std::copysign(1.0f, x); }

// tanh(x) for every float x: one multiply and one compare decide the path
// (NaN: unordered, so outside).
inline float tanh_poly_f32(float x) {
  const float z = x * x;
  return z < kClamp2 ? tanh_inside(x, z) : tanh_outside(x);
}

}  // namespace tanh_poly
}  // namespace attn
