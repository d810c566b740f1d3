// Cortex-M scalar-FPU exp pass of the row softmax (kernels_f32.h, namespace
// attn::mcu):
//
//   x[i] = exp(x[i] - m) for every i (exp(-inf) = 0); returns sum_i x[i]
//
// With the polynomial exp every SIMD backend uses (exp_poly.h: error <= 3 ulp
// on [-87.3, 0], 0 below -88; about 20 FPU instructions) instead of libm's
// expf, which the Q.K^T and P.V blocks left as most of a float SDPA's
// instructions. ref's loop (ref/ref_loops.h): the sum adds in index order.
#include <cstdint>

#include "kernels/f32/exp_poly.h"
#include "kernels/f32/kernels_f32.h"
#include "kernels/f32/ref/ref_loops.h"

namespace attn {
namespace mcu {

float exp_sub_sum_f32(float* x, int32_t n, float m) {
  return ref_loops::exp_sub_sum(x, n, m, [](float v) { return exp_poly::exp_poly_f32(v); });
}

}  // namespace mcu
}  // namespace attn
