// Float32 kernels: the few primitives every float op is built from.
//
// Ops call these through namespace attn::kernels, an alias of the backend the
// build selects (ATTN_SIMD=ref|hwy|xsimd|mcu|mve sets ATTN_BACKEND). The
// portable reference implementation lives in namespace attn::ref (kernels/ref/)
// and is always compiled: it is the oracle every optimized backend is tested
// against.
//
// Conventions: row-major matrices; `*_stride` is the distance in elements
// between consecutive rows; counts are >= 0 and pointers valid for the ranges
// they describe (the ops validate, kernels trust).
//
// Vector length: the SIMD kernels hold for any lane count, including SVE's
// run-time length (Highway uses 4..64 floats). The transposed tiles' width tq
// stays a multiple of 16 whatever the lanes: when the lanes do not divide tq
// (SVE at 1024 or 2048 bits) the last vector of queries is partial (masked
// loads and stores), so no scratch size depends on the vector length.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/kv_cache.h"

#define ATTN_DECLARE_F32_KERNELS                                                                   \
  /* sum_i a[i] * b[i] */                                                                          \
  float dot_f32(const float* a, const float* b, int32_t n);                                        \
  /* s[i*s_stride + j] = sum_d q[i*q_stride + d] * k[j*k_stride + d],  i < nq, j < nk */           \
  void qk_tile_f32(const float* q, std::size_t q_stride, int32_t nq, const float* k,               \
                   std::size_t k_stride, int32_t nk, int32_t d, float* s, std::size_t s_stride);   \
  /* max_i x[i] (n >= 1; NaN elements are skipped unless all are NaN) */                           \
  float max_f32(const float* x, int32_t n);                                                        \
  /* x[i] = exp(x[i] - m) for every i (exp(-inf) = 0); returns sum_i x[i] */                       \
  float exp_sub_sum_f32(float* x, int32_t n, float m);                                             \
  /* Row softmax in place, n >= 0: m = max_f32(x, n); x[i] = exp(x[i] - m) / sum_j exp(x[j] - */   \
  /* m) (the reciprocal of the sum times each exp). -inf entries give 0; an all -inf row gives */  \
  /* all 0 (what the ops write for a fully masked row); a NaN or +inf entry makes the row NaN. */  \
  /* One dispatched call: max, exp and sum, scale (the row is in L1 after the max pass). */        \
  void softmax_f32(float* x, int32_t n);                                                           \
  /* acc[i*a_stride + c] += sum_j p[i*p_stride + j] * v[j*v_stride + c],  i < nq, c < dv */        \
  void pv_tile_f32(const float* p, std::size_t p_stride, int32_t nq, int32_t nk, const float* v,   \
                   std::size_t v_stride, int32_t dv, float* acc, std::size_t a_stride);            \
  /* Transposed tiles (the SDPA core's layout: queries along the vector, tq a multiple of 16). */  \
  /* qt[x*tq + i] = scale * q[i*q_stride + x] for i < nq, 0 for nq <= i < tq;  x < d */            \
  void transpose_scale_f32(const float* q, std::size_t q_stride, int32_t nq, int32_t d,            \
                           float scale, float* qt, int32_t tq);                                    \
  /* st[j*tq + i] = sum_d qt[d*tq + i] * k[j*k_stride + d],  i < tq, j < nk */                     \
  void qk_tile_t_f32(const float* qt, int32_t tq, int32_t d, const float* k, std::size_t k_stride, \
                     int32_t nk, float* st);                                                       \
  /* Online-softmax step on st[nk][tq] (column i = query i): m' = max(m[i], max_j st[j*tq+i]) */   \
  /* (NaN skipped); st[j*tq+i] = exp(st[j*tq+i] - m') (all 0 when m' = -inf); l[i] = l[i] * */     \
  /* exp(m[i] - m') + sum_j st[j*tq+i]; rows i < nq of acc (dv floats, stride a_stride) are */     \
  /* scaled by exp(m[i] - m') when the max grew; m[i] = m'. */                                     \
  void softmax_t_f32(float* st, int32_t tq, int32_t nk, float* m, float* l, int32_t nq,            \
                     float* acc, std::size_t a_stride, int32_t dv);                                \
  /* acc[i*a_stride + c] += sum_j pt[j*tq + i] * v[j*v_stride + c],  i < nq <= tq, c < dv */       \
  void pv_tile_t_f32(const float* pt, int32_t tq, int32_t nq, int32_t nk, const float* v,          \
                     std::size_t v_stride, int32_t dv, float* acc, std::size_t a_stride);          \
  /* y[i] += a * x[i] */                                                                           \
  void axpy_f32(float* y, const float* x, int32_t n, float a);                                     \
  /* x[i] *= a */                                                                                  \
  void scale_f32(float* x, int32_t n, float a);                                                    \
  /* y[i] = a[i] + b[i] */                                                                         \
  void add_f32(float* y, const float* a, const float* b, int32_t n);                               \
  /* x[i] = tanh(x[i]) */                                                                          \
  void tanh_f32(float* x, int32_t n);                                                              \
  /* y[m, n] = x[m, :] . w[n, :] + bias[n]: PyTorch nn.Linear, w is [n_out, n_in], bias may be */  \
  /* null */                                                                                       \
  void linear_f32(const float* x, int32_t rows, int32_t n_in, const float* w, const float* bias,   \
                  int32_t n_out, float* y);                                                        \
  /* y[m, n] = sum_k x[m, k] * w[k, n] + bias[n]: Keras Dense, w is [n_in, n_out], bias may be */  \
  /* null */                                                                                       \
  void dense_f32(const float* x, int32_t rows, int32_t n_in, const float* w, const float* bias,    \
                 int32_t n_out, float* y);                                                         \
  /* y[i*y_stride + j] = (accumulate ? y[i*y_stride + j] : 0) + (bias ? bias[j] : 0) + sum_x */    \
  /* a[i*a_stride + x] * b[j*b_stride + x],  i < m, j < n, x < k: y = a b^T, b's rows are the */   \
  /* outputs (linear_f32 with strides, e.g. one head's slice of a weight). SIMD backends pack */   \
  /* panels of b on the stack (8 KiB, gemm_f32-inl.h) from 5 rows of a on; up to 4 rows read */    \
  /* b's rows in place, each output the same bits whatever range of b a call covers. */            \
  void gemm_nt_f32(const float* a, std::size_t a_stride, int32_t m, int32_t k, const float* b,     \
                   std::size_t b_stride, int32_t n, const float* bias, bool accumulate, float* y,  \
                   std::size_t y_stride);                                                          \
  /* gemm_nt_f32 with b as binary16 bits (float16 weights: half the bytes a decode step */         \
  /* reads), float32 math: y[i*y_stride + j] = (accumulate ? y : 0) + (bias ? bias[j] : 0) */      \
  /* + sum_x a[i*a_stride + x] * f16::to_f32(b[j*b_stride + x]). The widening is exact (NaN */     \
  /* halves widen quiet): gemm_nt_f32's result on the widened b within its bound. The SIMD */      \
  /* backends run gemm_nt_f32's code on it (same blocking and order: its bits), widening in */     \
  /* registers (F16C, NEON FCVTL, SVE FCVT): b's rows in place up to 4 rows of a, else packed. */  \
  void gemm_nt_f16w_f32(const float* a, std::size_t a_stride, int32_t m, int32_t k,                \
                        const uint16_t* b, std::size_t b_stride, int32_t n, const float* bias,     \
                        bool accumulate, float* y, std::size_t y_stride);                          \
  /* qk_tile_f32 and pv_tile_f32 with K or V as binary16 bits (the float16 KV cache), float32 */   \
  /* math: each element widened exactly as it is read (f16::to_f32; NaN halves widen quiet). */    \
  /* The result of qk_tile_f32 / pv_tile_f32 on the widened rows within their bound; the SIMD */   \
  /* backends run those kernels' own code on it (same blocks and order: their bits), widening */   \
  /* in registers (F16C, NEON FCVTL, SVE FCVT) instead of through a float copy of the block. */    \
  void qk_tile_f16k_f32(const float* q, std::size_t q_stride, int32_t nq, const uint16_t* k,       \
                        std::size_t k_stride, int32_t nk, int32_t d, float* s,                     \
                        std::size_t s_stride);                                                     \
  void pv_tile_f16v_f32(const float* p, std::size_t p_stride, int32_t nq, int32_t nk,              \
                        const uint16_t* v, std::size_t v_stride, int32_t dv, float* acc,           \
                        std::size_t a_stride);                                                     \
  /* s[i*s_stride + j] = sum_x q[i*q_stride + x] * kt[(j/B)*B*d + x*B + j%B], i < nq, j < nk, */   \
  /* B = kKtBlock: qk_tile_f32 with K in blocks of B keys stored transposed ([d][B] each; a */     \
  /* packed float KV cache's K, attn/kv_cache.h), so that a vector holds one x of many keys and */ \
  /* the scores need no horizontal sums. kt points at a block's start; blocks are whole (the */    \
  /* lanes past nk are read, never stored). Bound: qk_tile_f32's. The f16 form: binary16 kt, */    \
  /* widened exactly as read. */                                                                   \
  void qk_tile_kt_f32(const float* q, std::size_t q_stride, int32_t nq, const float* kt,           \
                      int32_t nk, int32_t d, float* s, std::size_t s_stride);                      \
  void qk_tile_kt_f16_f32(const float* q, std::size_t q_stride, int32_t nq, const uint16_t* kt,    \
                          int32_t nk, int32_t d, float* s, std::size_t s_stride);                  \
  /* h[i] = binary16 bits of f[i], i < n: round to nearest even, overflow to inf, NaN quiet */     \
  /* with its top payload bits (f16::from_f32). Every backend gives the reference's bits. */       \
  void f32_to_f16(const float* f, int32_t n, uint16_t* h);

namespace attn {
// Keys per transposed K block of qk_tile_kt_f32: the packed float cache's
// layout (attn/kv_cache.h).
inline constexpr int32_t kKtBlock = kKvCacheKtBlock;

namespace ref {
// f[i] = the float32 of binary16 bits h[i], i < n: exact, a NaN quiet with its
// sign and payload (f16::to_f32, kernels/f32/f16.h). Only a reference: the
// float16 cache's tile kernels (qk_tile_f16k_f32, pv_tile_f16v_f32) widen in
// registers instead; tests and benchmarks use it to build widened operands.
void f16_to_f32(const uint16_t* h, int32_t n, float* f);
}  // namespace ref
}  // namespace attn

// The selected backend's namespace (ref, hwy, xsimd, mcu or mve), set by the build.
#ifndef ATTN_BACKEND
#define ATTN_BACKEND ref
#endif

namespace attn {
namespace ref {
ATTN_DECLARE_F32_KERNELS
}  // namespace ref
namespace ATTN_BACKEND {
ATTN_DECLARE_F32_KERNELS
}  // namespace ATTN_BACKEND
namespace kernels = ATTN_BACKEND;
}  // namespace attn
