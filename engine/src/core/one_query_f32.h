// Attention of one query over one batch item's keys, for the seq2seq ops
// (Bahdanau, Luong) whose scores are not a scaled q . k (internal).
//
// The caller computes the scores of a block of keys; one_query_block runs one
// online-softmax step on them (online_softmax_update: running max m, sum l,
// acc += P V) and, when weights are requested, keeps the block's exp(e_j - m)
// in the weights row (earlier blocks rescaled by exp(m_old - m_new) when the max
// grows, as acc is); one_query_finish writes context = acc / l and scales the
// weights by 1 / l. Every score and every exp is computed once, and the weights
// need no scratch beyond one block. Inline: no call level is added to the
// ops' worst-case stack (tests/baremetal/ops/stack_budget.json).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "core/attend_f32.h"
#include "kernels/f32/exp_poly.h"
#include "kernels/f32/kernels_f32.h"

namespace attn {
namespace detail {

struct OneQuery {
  float m;     // running max (-inf before the first key)
  float l;     // running sum of exp(e_j - m)
  float* acc;  // [dim_v] unnormalised context
};

// Starts a query: m = -inf, l = 0, acc = 0.
inline void one_query_start(OneQuery* q, float* acc, int32_t dim_v) {
  q->m = -std::numeric_limits<float>::infinity();
  q->l = 0.0f;
  q->acc = acc;
  for (int32_t c = 0; c < dim_v; ++c) acc[c] = 0.0f;
}

// scores[j] = e_{j0 + j} of keys [j0, j0 + nk) (overwritten), keys visited in
// order from j0 = 0; v = those keys' values; weights = the whole row or null.
inline void one_query_block(OneQuery* q, float* scores, int32_t nk, const float* v,
                            std::size_t v_stride, int32_t dim_v, float* weights, int32_t j0) {
  const float m_old = q->m;
  online_softmax_update(scores, 0, 1, nk, v, v_stride, dim_v, &q->m, &q->l, q->acc, 0);
  if (weights == nullptr) return;
  // The earlier keys' exp(e_j - m_old) follow the max like acc and l do.
  if (j0 > 0 && q->m != m_old) {
    kernels::scale_f32(weights, j0, exp_poly::exp_poly_f32(m_old - q->m));
  }
  float* wb = weights + j0;
  for (int32_t j = 0; j < nk; ++j) wb[j] = scores[j];
}

// context[c] = acc[c] / l (0 when len == 0); weights (if not null):
// exp(e_j - m) / l for j < len, 0 for len <= j < seq.
inline void one_query_finish(const OneQuery& q, int32_t len, int32_t seq, int32_t dim_v,
                             float* context, float* weights) {
  const float inv_l = len == 0 ? 0.0f : 1.0f / q.l;
  for (int32_t c = 0; c < dim_v; ++c) context[c] = q.acc[c] * inv_l;
  if (weights == nullptr) return;
  kernels::scale_f32(weights, len, inv_l);
  for (int32_t j = len; j < seq; ++j) weights[j] = 0.0f;
}

// The key split of one query (the Bahdanau and Luong ops with an executor):
// part p ran one_query_block over keys [begins[p], ends[p]) from its own
// one_query_start, its weights (when requested) being exp(e_j - m_p) in
// those columns of the row. one_query_merge merges the parts in part order
// as attend_f32_merge_parts merges key ranges (m = max of the maxima; l and
// acc rescaled by exp(m_p - m) and summed), then writes
//   context = acc / l,   weights_j = w_j exp(m_p - m) / l   (0 from len on).
// The same terms as one pass over the keys, summed in another order, with one
// more rescaling exp per part: within the float bound that holds for any
// summation order. len >= 1.
inline constexpr int32_t kOneQueryMaxParts = 8;

inline void one_query_merge(OneQuery* parts, const int32_t* begins, const int32_t* ends, int32_t n,
                            int32_t len, int32_t seq, int32_t dim_v, float* context,
                            float* weights) {
  float m_part[kOneQueryMaxParts];
  for (int32_t p = 0; p < n; ++p) m_part[p] = parts[p].m;
  OneQuery& q0 = parts[0];
  for (int32_t p = 1; p < n; ++p) {
    OneQuery& qp = parts[p];
    const float m_new = qp.m > q0.m ? qp.m : q0.m;
    rescale_state(m_new, &q0.m, &q0.l, q0.acc, dim_v);
    rescale_state(m_new, &qp.m, &qp.l, qp.acc, dim_v);
    q0.l += qp.l;
    for (int32_t c = 0; c < dim_v; ++c) q0.acc[c] += qp.acc[c];
  }
  const float inv_l = 1.0f / q0.l;
  for (int32_t c = 0; c < dim_v; ++c) context[c] = q0.acc[c] * inv_l;
  if (weights == nullptr) return;
  for (int32_t p = 0; p < n; ++p) {
    kernels::scale_f32(weights + begins[p], ends[p] - begins[p],
                       exp_poly::exp_poly_f32(m_part[p] - q0.m) * inv_l);
  }
  for (int32_t j = len; j < seq; ++j) weights[j] = 0.0f;
}

}  // namespace detail
}  // namespace attn
