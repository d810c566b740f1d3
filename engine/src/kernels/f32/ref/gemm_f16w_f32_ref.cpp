// Reference gemm_nt_f16w_f32 (contract in kernels/f32/kernels_f32.h): the
// loops of the reference gemm_nt_f32 (gemm_f32_ref.cpp, dot_f32 of
// kernels_f32_ref.cpp) with each element of b widened by f16::to_f32 (exact)
// as it is read: one dot product per output element, in the order bias, then
// the products by x. (The compiler may still contract or vectorize the two
// loops differently, so the bits of ref::gemm_nt_f32 on the widened b are not
// promised: its bound is.)
#include <cstddef>
#include <cstdint>

#include "kernels/f32/f16.h"
#include "kernels/f32/kernels_f32.h"

namespace attn {
namespace ref {

void gemm_nt_f16w_f32(const float* a, std::size_t a_stride, int32_t m, int32_t k, const uint16_t* b,
                      std::size_t b_stride, int32_t n, const float* bias, bool accumulate, float* y,
                      std::size_t y_stride) {
  for (int32_t i = 0; i < m; ++i) {
    const float* ar = a + static_cast<std::size_t>(i) * a_stride;
    float* yr = y + static_cast<std::size_t>(i) * y_stride;
    for (int32_t j = 0; j < n; ++j) {
      const uint16_t* br = b + static_cast<std::size_t>(j) * b_stride;
      float dot = 0.0f;
      for (int32_t x = 0; x < k; ++x) dot += ar[x] * f16::to_f32(br[x]);
      float s = bias != nullptr ? bias[j] : 0.0f;
      s += dot;
      yr[j] = accumulate ? yr[j] + s : s;
    }
  }
}

}  // namespace ref
}  // namespace attn
