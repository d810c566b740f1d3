// Cortex-M scalar-FPU tanh (kernels_f32.h, namespace attn::mcu):
//
//   x[i] = tanh(x[i])
//
// The rational form of tanh_poly.h (error <= 4 FLT_EPSILON relative over
// every float: four quadratic factors, three multiplies and a divide; one
// compare of x * x against 8.5^2 and a branch send |x| >= 8.5 and NaN to
// the rare path) instead of the C library's tanhf (about 90 instructions an
// element on Cortex-M4). Compiled without contraction, as tanh_poly.h asks.
#include <cstdint>

#include "kernels/f32/kernels_f32.h"
#include "kernels/f32/tanh_poly.h"

namespace attn {
namespace mcu {

__attribute__((optimize("fp-contract=off"))) void tanh_f32(float* x, int32_t n) {
  namespace tp = ::attn::tanh_poly;
  // K in a register for the whole loop (GCC would reload it from the
  // literal pool every element).
  float k = tp::kK;
  __asm__("" : "+t"(k));
  for (int32_t i = 0; i < n; ++i) {
    const float z = x[i] * x[i];
    x[i] = z < tp::kClamp2 ? tp::tanh_inside(x[i], z, k) : tp::tanh_outside(x[i]);
  }
}

}  // namespace mcu
}  // namespace attn
