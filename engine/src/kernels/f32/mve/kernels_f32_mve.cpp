// Helium (MVE) backend of the float kernels (kernels_f32.h), namespace
// attn::mve: the Cortex-M55 build runs these.
//
// The SDPA core's kernels are Helium: both Q.K^T tiles (qk_tile_t_f32_mve.cpp,
// qk_tile_f32_mve.cpp, with dot_f32), the transposed query tile, the online
// softmax on transposed scores, the row softmax and its passes (max, exp and
// sum, scale), both P.V updates, and the seq2seq ops' add and tanh
// (tanh_f32_mve.cpp). The projections and axpy are the reference ones
// (ref_forwards_f32-inl.h, shared with the mcu backend).
#include <cstddef>
#include <cstdint>

#include "kernels/f32/kernels_f32.h"

namespace attn {
namespace mve {

// axpy_f32, linear_f32, dense_f32, gemm_nt_f32, gemm_nt_f16w_f32,
// qk_tile_f16k_f32, pv_tile_f16v_f32, qk_tile_kt_f32, qk_tile_kt_f16_f32: ref.
#include "kernels/f32/ref_forwards_f32-inl.h"

void f32_to_f16(const float* f, int32_t n, uint16_t* h) { ref::f32_to_f16(f, n, h); }

}  // namespace mve
}  // namespace attn
