// Reference gemm_nt_f32 and gemm_nt_f16w_f32 (contracts in
// kernels/f32/kernels_f32.h): one loop over b's element type. Each output is
// one dot product in index order (as dot_f32 of kernels_f32_ref.cpp), each
// element of b widened to float32 as it is read (f16::to_f32 for binary16,
// exact), added to the bias, then to y when accumulating.
#include <cstddef>
#include <cstdint>

#include "kernels/f32/kernels_f32.h"
#include "kernels/f32/ref/ref_loops.h"

namespace attn {
namespace ref {
namespace {

using ref_loops::widen;

template <class TB>
void gemm_nt(const float* a, std::size_t a_stride, int32_t m, int32_t k, const TB* b,
             std::size_t b_stride, int32_t n, const float* bias, bool accumulate, float* y,
             std::size_t y_stride) {
  for (int32_t i = 0; i < m; ++i) {
    const float* ar = a + static_cast<std::size_t>(i) * a_stride;
    float* yr = y + static_cast<std::size_t>(i) * y_stride;
    for (int32_t j = 0; j < n; ++j) {
      const TB* br = b + static_cast<std::size_t>(j) * b_stride;
      float dot = 0.0f;
      for (int32_t x = 0; x < k; ++x) dot += ar[x] * widen(br[x]);
      float s = bias != nullptr ? bias[j] : 0.0f;
      s += dot;
      yr[j] = accumulate ? yr[j] + s : s;
    }
  }
}

}  // namespace

void gemm_nt_f32(const float* a, std::size_t a_stride, int32_t m, int32_t k, const float* b,
                 std::size_t b_stride, int32_t n, const float* bias, bool accumulate, float* y,
                 std::size_t y_stride) {
  gemm_nt(a, a_stride, m, k, b, b_stride, n, bias, accumulate, y, y_stride);
}

void gemm_nt_f16w_f32(const float* a, std::size_t a_stride, int32_t m, int32_t k, const uint16_t* b,
                      std::size_t b_stride, int32_t n, const float* bias, bool accumulate, float* y,
                      std::size_t y_stride) {
  gemm_nt(a, a_stride, m, k, b, b_stride, n, bias, accumulate, y, y_stride);
}

}  // namespace ref
}  // namespace attn
