// Helium (MVE) backend of the float kernels (kernels_f32.h), namespace
// attn::mve: the Cortex-M55 build runs these.
//
// The SDPA core's kernels are Helium: both Q.K^T tiles (qk_tile_t_f32_mve.cpp,
// qk_tile_f32_mve.cpp, with dot_f32), the transposed query tile, the online
// softmax on transposed scores, the row softmax and its passes (max, exp and
// sum, scale) and both P.V updates. The projections and the seq2seq ops'
// vector helpers below are the reference ones, called through here.
#include <cstddef>
#include <cstdint>

#include "kernels/f32/kernels_f32.h"

namespace attn {
namespace mve {

void axpy_f32(float* y, const float* x, int32_t n, float a) { ref::axpy_f32(y, x, n, a); }

void add_f32(float* y, const float* a, const float* b, int32_t n) { ref::add_f32(y, a, b, n); }

void tanh_f32(float* x, int32_t n) { ref::tanh_f32(x, n); }

void linear_f32(const float* x, int32_t rows, int32_t n_in, const float* w, const float* bias,
                int32_t n_out, float* y) {
  ref::linear_f32(x, rows, n_in, w, bias, n_out, y);
}

void dense_f32(const float* x, int32_t rows, int32_t n_in, const float* w, const float* bias,
               int32_t n_out, float* y) {
  ref::dense_f32(x, rows, n_in, w, bias, n_out, y);
}

void gemm_nt_f32(const float* a, std::size_t a_stride, int32_t m, int32_t k, const float* b,
                 std::size_t b_stride, int32_t n, const float* bias, bool accumulate, float* y,
                 std::size_t y_stride) {
  ref::gemm_nt_f32(a, a_stride, m, k, b, b_stride, n, bias, accumulate, y, y_stride);
}

void f16_to_f32(const uint16_t* h, int32_t n, float* f) { ref::f16_to_f32(h, n, f); }

void f32_to_f16(const float* f, int32_t n, uint16_t* h) { ref::f32_to_f16(f, n, h); }

}  // namespace mve
}  // namespace attn
