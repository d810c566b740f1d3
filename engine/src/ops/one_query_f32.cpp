// One query's streaming softmax for Bahdanau and Luong (see one_query_f32.h).
#include "ops/one_query_f32.h"

#include <limits>

#include "kernels/exp_poly.h"
#include "kernels/kernels_f32.h"
#include "ops/attend_f32.h"

namespace attn {
namespace detail {

void one_query_start(OneQuery* q, float* acc, int32_t dim_v) {
  q->m = -std::numeric_limits<float>::infinity();
  q->l = 0.0f;
  q->acc = acc;
  for (int32_t c = 0; c < dim_v; ++c) acc[c] = 0.0f;
}

void one_query_block(OneQuery* q, float* scores, int32_t nk, const float* v, std::size_t v_stride,
                     int32_t dim_v, float* weights, int32_t j0) {
  const float m_old = q->m;
  online_softmax_update(scores, 0, 1, nk, v, v_stride, dim_v, &q->m, &q->l, q->acc, 0);
  if (weights == nullptr) return;
  // The earlier keys' exp(e_j - m_old) follow the max like acc and l do.
  if (j0 > 0 && q->m != m_old) kernels::scale_f32(weights, j0, exp_poly::exp_poly_f32(m_old - q->m));
  float* wb = weights + j0;
  for (int32_t j = 0; j < nk; ++j) wb[j] = scores[j];
}

void one_query_finish(const OneQuery& q, int32_t len, int32_t seq, int32_t dim_v, float* context,
                      float* weights) {
  const float inv_l = len == 0 ? 0.0f : 1.0f / q.l;
  for (int32_t c = 0; c < dim_v; ++c) context[c] = q.acc[c] * inv_l;
  if (weights == nullptr) return;
  kernels::scale_f32(weights, len, inv_l);
  for (int32_t j = len; j < seq; ++j) weights[j] = 0.0f;
}

}  // namespace detail
}  // namespace attn
