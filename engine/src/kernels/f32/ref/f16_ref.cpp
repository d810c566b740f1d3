// Reference f16_to_f32 / f32_to_f16 (contract in kernels/f32/kernels_f32.h):
// the scalar conversions of kernels/f32/f16.h, one element at a time.
#include <cstdint>

#include "kernels/f32/f16.h"
#include "kernels/f32/kernels_f32.h"

namespace attn {
namespace ref {

void f16_to_f32(const uint16_t* h, int32_t n, float* f) {
  for (int32_t i = 0; i < n; ++i) f[i] = f16::to_f32(h[i]);
}

void f32_to_f16(const float* f, int32_t n, uint16_t* h) {
  for (int32_t i = 0; i < n; ++i) h[i] = f16::from_f32(f[i]);
}

}  // namespace ref
}  // namespace attn
