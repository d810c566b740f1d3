// Reference gemm_nt_f32 (contract in kernels/kernels_f32.h): one dot product
// per output element, in the order bias, then the products by x.
#include <cstddef>
#include <cstdint>

#include "kernels/f32/kernels_f32.h"

namespace attn {
namespace ref {

void gemm_nt_f32(const float* a, std::size_t a_stride, int32_t m, int32_t k, const float* b,
                 std::size_t b_stride, int32_t n, const float* bias, bool accumulate, float* y,
                 std::size_t y_stride) {
  for (int32_t i = 0; i < m; ++i) {
    const float* ar = a + static_cast<std::size_t>(i) * a_stride;
    float* yr = y + static_cast<std::size_t>(i) * y_stride;
    for (int32_t j = 0; j < n; ++j) {
      float s = bias != nullptr ? bias[j] : 0.0f;
      s += dot_f32(ar, b + static_cast<std::size_t>(j) * b_stride, k);
      yr[j] = accumulate ? yr[j] + s : s;
    }
  }
}

}  // namespace ref
}  // namespace attn
