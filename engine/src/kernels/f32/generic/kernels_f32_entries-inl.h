// The float kernels of kernels_f32.h (dot_f32 ... f32_to_f16) as entry
// points of one SIMD backend: each instantiates its generic template
// (kernels_f32-inl.h, gemm_f32-inl.h, f16_f32-inl.h) with the backend's
// vector policy.
//
// Not a normal header: the includer opens the namespace the entries belong to
// (Highway: the per-target namespace, once per target; xsimd: the backend's
// namespace), where `Ops` names its policy and `generic` the namespace of the
// templates, then includes this file.

// Definitions in a header by design: each backend's one translation unit
// includes it once per target namespace, so no definition is seen twice.
// NOLINTBEGIN(misc-definitions-in-headers)

float dot_f32(const float* a, const float* b, int32_t n) { return generic::Dot<Ops>(a, b, n); }
void qk_tile_f32(const float* q, std::size_t q_stride, int32_t nq, const float* k,
                 std::size_t k_stride, int32_t nk, int32_t d, float* s, std::size_t s_stride) {
  generic::QkTile<Ops>(q, q_stride, nq, k, k_stride, nk, d, s, s_stride);
}
float max_f32(const float* x, int32_t n) { return generic::Max<Ops>(x, n); }
float exp_sub_sum_f32(float* x, int32_t n, float m) { return generic::ExpSubSum<Ops>(x, n, m); }
void softmax_f32(float* x, int32_t n) { generic::Softmax<Ops>(x, n); }
void pv_tile_f32(const float* p, std::size_t p_stride, int32_t nq, int32_t nk, const float* v,
                 std::size_t v_stride, int32_t dv, float* acc, std::size_t a_stride) {
  generic::PvTile<Ops>(p, p_stride, nq, nk, v, v_stride, dv, acc, a_stride);
}
void transpose_scale_f32(const float* q, std::size_t q_stride, int32_t nq, int32_t d, float scale,
                         float* qt, int32_t tq) {
  generic::TransposeScale<Ops>(q, q_stride, nq, d, scale, qt, tq);
}
void qk_tile_t_f32(const float* qt, int32_t tq, int32_t d, const float* k, std::size_t k_stride,
                   int32_t nk, float* st) {
  generic::QkTileT<Ops>(qt, tq, d, k, k_stride, nk, st);
}
void softmax_t_f32(float* st, int32_t tq, int32_t nk, float* m, float* l, int32_t nq, float* acc,
                   std::size_t a_stride, int32_t dv) {
  generic::SoftmaxT<Ops>(st, tq, nk, m, l, nq, acc, a_stride, dv);
}
void pv_tile_t_f32(const float* pt, int32_t tq, int32_t nq, int32_t nk, const float* v,
                   std::size_t v_stride, int32_t dv, float* acc, std::size_t a_stride) {
  generic::PvTileT<Ops>(pt, tq, nq, nk, v, v_stride, dv, acc, a_stride);
}
void axpy_f32(float* y, const float* x, int32_t n, float a) { generic::Axpy<Ops>(y, x, n, a); }
void scale_f32(float* x, int32_t n, float a) { generic::Scale<Ops>(x, n, a); }
void add_f32(float* y, const float* a, const float* b, int32_t n) {
  generic::AddVec<Ops>(y, a, b, n);
}
void tanh_f32(float* x, int32_t n) { generic::Tanh<Ops>(x, n); }
void linear_f32(const float* x, int32_t rows, int32_t n_in, const float* w, const float* bias,
                int32_t n_out, float* y) {
  generic::GemmNT<Ops>(x, generic::Sz(n_in), rows, n_in, w, generic::Sz(n_in), n_out, bias, false,
                       y, generic::Sz(n_out));
}
void dense_f32(const float* x, int32_t rows, int32_t n_in, const float* w, const float* bias,
               int32_t n_out, float* y) {
  generic::GemmDense<Ops>(x, rows, n_in, w, bias, n_out, y);
}
void gemm_nt_f32(const float* a, std::size_t a_stride, int32_t m, int32_t k, const float* b,
                 std::size_t b_stride, int32_t n, const float* bias, bool accumulate, float* y,
                 std::size_t y_stride) {
  generic::GemmNT<Ops>(a, a_stride, m, k, b, b_stride, n, bias, accumulate, y, y_stride);
}
void gemm_nt_f16w_f32(const float* a, std::size_t a_stride, int32_t m, int32_t k, const uint16_t* b,
                      std::size_t b_stride, int32_t n, const float* bias, bool accumulate, float* y,
                      std::size_t y_stride) {
  generic::GemmNT<Ops>(a, a_stride, m, k, b, b_stride, n, bias, accumulate, y, y_stride);
}

void qk_tile_f16k_f32(const float* q, std::size_t q_stride, int32_t nq, const uint16_t* k,
                      std::size_t k_stride, int32_t nk, int32_t d, float* s, std::size_t s_stride) {
  generic::QkTile<Ops>(q, q_stride, nq, k, k_stride, nk, d, s, s_stride);
}
void pv_tile_f16v_f32(const float* p, std::size_t p_stride, int32_t nq, int32_t nk,
                      const uint16_t* v, std::size_t v_stride, int32_t dv, float* acc,
                      std::size_t a_stride) {
  generic::PvTile<Ops>(p, p_stride, nq, nk, v, v_stride, dv, acc, a_stride);
}
void qk_tile_kt_f32(const float* q, std::size_t q_stride, int32_t nq, const float* kt, int32_t nk,
                    int32_t d, float* s, std::size_t s_stride) {
  generic::QkTileKt<Ops>(q, q_stride, nq, kt, nk, d, s, s_stride);
}
void qk_tile_kt_f16_f32(const float* q, std::size_t q_stride, int32_t nq, const uint16_t* kt,
                        int32_t nk, int32_t d, float* s, std::size_t s_stride) {
  generic::QkTileKt<Ops>(q, q_stride, nq, kt, nk, d, s, s_stride);
}
void f32_to_f16(const float* f, int32_t n, uint16_t* h) { generic::F32ToF16<Ops>(f, n, h); }

// NOLINTEND(misc-definitions-in-headers)
