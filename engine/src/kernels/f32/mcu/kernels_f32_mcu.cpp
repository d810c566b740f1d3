// Cortex-M scalar-FPU backend of the float kernels (kernels_f32.h), namespace
// attn::mcu: the Cortex-M4/M7/M33 build runs these (and the Cortex-M55's
// with ATTN_SIMD=mcu; its default is the Helium backend, kernels/f32/mve).
//
// The SDPA core's hot loops, Q.K^T and P.V, are register-blocked
// (qk_tile_f32_mcu.cpp, pv_tile_f32_mcu.cpp) and its exp pass uses the
// shared polynomial exp (exp_sub_sum_f32_mcu.cpp); the seq2seq ops' tanh and
// add are tanh_f32_mcu.cpp and add_f32_mcu.cpp. Every other kernel is the
// reference one, called through here (the projections and axpy through
// ref_forwards_f32-inl.h, shared with the Helium backend).
#include <cstddef>
#include <cstdint>

#include "kernels/f32/kernels_f32.h"

namespace attn {
namespace mcu {

float dot_f32(const float* a, const float* b, int32_t n) { return ref::dot_f32(a, b, n); }

float max_f32(const float* x, int32_t n) { return ref::max_f32(x, n); }

void softmax_f32(float* x, int32_t n) { ref::softmax_f32(x, n); }

void transpose_scale_f32(const float* q, std::size_t q_stride, int32_t nq, int32_t d, float scale,
                         float* qt, int32_t tq) {
  ref::transpose_scale_f32(q, q_stride, nq, d, scale, qt, tq);
}

void qk_tile_t_f32(const float* qt, int32_t tq, int32_t d, const float* k, std::size_t k_stride,
                   int32_t nk, float* st) {
  ref::qk_tile_t_f32(qt, tq, d, k, k_stride, nk, st);
}

void softmax_t_f32(float* st, int32_t tq, int32_t nk, float* m, float* l, int32_t nq, float* acc,
                   std::size_t a_stride, int32_t dv) {
  ref::softmax_t_f32(st, tq, nk, m, l, nq, acc, a_stride, dv);
}

void pv_tile_t_f32(const float* pt, int32_t tq, int32_t nq, int32_t nk, const float* v,
                   std::size_t v_stride, int32_t dv, float* acc, std::size_t a_stride) {
  ref::pv_tile_t_f32(pt, tq, nq, nk, v, v_stride, dv, acc, a_stride);
}

void scale_f32(float* x, int32_t n, float a) { ref::scale_f32(x, n, a); }

// axpy_f32, linear_f32, dense_f32, gemm_nt_f32, gemm_nt_f16w_f32,
// qk_tile_f16k_f32, pv_tile_f16v_f32, qk_tile_kt_f32, qk_tile_kt_f16_f32: ref,
// as in the Helium backend.
#include "kernels/f32/ref_forwards_f32-inl.h"

void f32_to_f16(const float* f, int32_t n, uint16_t* h) { ref::f32_to_f16(f, n, h); }

}  // namespace mcu
}  // namespace attn
