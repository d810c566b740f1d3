// Helium row-major Q.K^T tile and dot product (kernels_f32.h, namespace
// attn::mve): the core's row layout (decode, tiles of up to 4 queries).
//
//   s[i*s_stride + j] = sum_d q[i*q_stride + d] * k[j*k_stride + d],  i < nq, j < nk
//   dot_f32(a, b, n) = sum_i a[i] * b[i]
//
// Both operands run along d, so the vectors do too: a block of 4 keys keeps 4
// vectors of partial sums while d runs (per step one query vector, 4 key
// vectors, 4 VFMAs; the last d % 4 elements are one predicated step, VCTP),
// then each vector is summed across its lanes. The order of the additions
// differs from ref (4 partial sums per score): within the test's bound of
// n eps sum |q_d k_d|.
#include <cstddef>
#include <cstdint>

#include "kernels/f32/kernels_f32.h"
#include "kernels/f32/mve/mve_f32.h"

namespace attn {
namespace mve {
namespace {

// s[c] = q . k_c for keys c < KB (rows k_stride apart), d floats each.
template <int KB>
void qk_row_block(const float* q, const float* k, std::size_t k_stride, int32_t d, float* s) {
  float32x4_t acc[KB];
#pragma GCC unroll 4
  for (int c = 0; c < KB; ++c) acc[c] = vdupq_n_f32(0.0f);
  int32_t x = 0;
  for (; x + 4 <= d; x += 4) {
    const float32x4_t qv = vldrwq_f32(q + x);
#pragma GCC unroll 4
    for (int c = 0; c < KB; ++c) acc[c] = vfmaq_f32(acc[c], qv, vldrwq_f32(k + Sz(c) * k_stride + Sz(x)));
  }
  if (x < d) {
    const float32x4_t qv = LoadN(q + x, d - x);
#pragma GCC unroll 4
    for (int c = 0; c < KB; ++c) acc[c] = vfmaq_f32(acc[c], qv, LoadN(k + Sz(c) * k_stride + Sz(x), d - x));
  }
#pragma GCC unroll 4
  for (int c = 0; c < KB; ++c) s[c] = ReduceSum(acc[c]);
}

}  // namespace

float dot_f32(const float* a, const float* b, int32_t n) {
  float s;
  qk_row_block<1>(a, b, 0, n, &s);
  return s;
}

void qk_tile_f32(const float* q, std::size_t q_stride, int32_t nq, const float* k,
                 std::size_t k_stride, int32_t nk, int32_t d, float* s, std::size_t s_stride) {
  for (int32_t i = 0; i < nq; ++i, q += q_stride, s += s_stride) {
    int32_t j = 0;
    for (; j + 4 <= nk; j += 4) qk_row_block<4>(q, k + Sz(j) * k_stride, k_stride, d, s + j);
    for (; j < nk; ++j) qk_row_block<1>(q, k + Sz(j) * k_stride, k_stride, d, s + j);
  }
}

}  // namespace mve
}  // namespace attn
