// The float kernels both Cortex-M backends (kernels/f32/mcu and
// kernels/f32/mve) take from ref, one forwarder each: the projections
// (float32 and float16 weights), axpy, the float16 cache's Q.K^T and P.V
// tiles, and the packed float cache's Q.K^T tiles. Included once inside each
// backend's namespace (kernels_f32_mcu.cpp, kernels_f32_mve.cpp), after
// kernels/f32/kernels_f32.h. A kernel that a backend gains moves out of this
// list into that backend (and the other backend's own forwarders).
//
// Not a normal header: the includer opens the namespace (attn::mcu or
// attn::mve), then includes this file; no include guard, each backend's
// translation unit includes it once. Definitions in a header by design.
// NOLINTBEGIN(misc-definitions-in-headers)

void axpy_f32(float* y, const float* x, int32_t n, float a) { ref::axpy_f32(y, x, n, a); }

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

void gemm_nt_f16w_f32(const float* a, std::size_t a_stride, int32_t m, int32_t k, const uint16_t* b,
                      std::size_t b_stride, int32_t n, const float* bias, bool accumulate, float* y,
                      std::size_t y_stride) {
  ref::gemm_nt_f16w_f32(a, a_stride, m, k, b, b_stride, n, bias, accumulate, y, y_stride);
}

void qk_tile_f16k_f32(const float* q, std::size_t q_stride, int32_t nq, const uint16_t* k,
                      std::size_t k_stride, int32_t nk, int32_t d, float* s, std::size_t s_stride) {
  ref::qk_tile_f16k_f32(q, q_stride, nq, k, k_stride, nk, d, s, s_stride);
}

void pv_tile_f16v_f32(const float* p, std::size_t p_stride, int32_t nq, int32_t nk,
                      const uint16_t* v, std::size_t v_stride, int32_t dv, float* acc,
                      std::size_t a_stride) {
  ref::pv_tile_f16v_f32(p, p_stride, nq, nk, v, v_stride, dv, acc, a_stride);
}

void qk_tile_kt_f32(const float* q, std::size_t q_stride, int32_t nq, const float* kt, int32_t nk,
                    int32_t d, float* s, std::size_t s_stride) {
  ref::qk_tile_kt_f32(q, q_stride, nq, kt, nk, d, s, s_stride);
}

void qk_tile_kt_f16_f32(const float* q, std::size_t q_stride, int32_t nq, const uint16_t* kt,
                        int32_t nk, int32_t d, float* s, std::size_t s_stride) {
  ref::qk_tile_kt_f16_f32(q, q_stride, nq, kt, nk, d, s, s_stride);
}

// NOLINTEND(misc-definitions-in-headers)
