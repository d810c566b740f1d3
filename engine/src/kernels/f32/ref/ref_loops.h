// Scalar pieces the reference float kernels share with each other
// (kernels_f32_ref.cpp, gemm_f32_ref.cpp) and with the Cortex-M scalar-FPU
// backend (mcu/exp_sub_sum_f32_mcu.cpp): one loop each, whatever the element
// type or the exp.
#pragma once

#include <cstdint>

#include "kernels/f32/f16.h"

namespace attn {
namespace ref_loops {

// K, V and weight elements as floats: float32 as is, binary16 widened
// (f16::to_f32, exact).
inline float widen(float x) { return x; }
inline float widen(uint16_t h) { return f16::to_f32(h); }

// The exp pass of the row softmax with the exp `exp` (a float -> float
// function object: libm's expf in ref, exp_poly.h's polynomial in mcu):
//
//   x[i] = exp(x[i] - m) for every i < n; returns sum_i x[i]
//
// The sum adds in index order.
template <class Exp>
inline float exp_sub_sum(float* x, int32_t n, float m, Exp exp) {
  float sum = 0.0f;
  for (int32_t i = 0; i < n; ++i) {
    x[i] = exp(x[i] - m);
    sum += x[i];
  }
  return sum;
}

}  // namespace ref_loops
}  // namespace attn
