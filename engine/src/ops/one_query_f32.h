// Attention of one query over one batch item's keys, for the seq2seq ops
// (Bahdanau, Luong) whose scores are not a scaled q . k (internal).
//
// The caller computes the scores of a block of keys; one_query_block runs one
// online-softmax step on them (online_softmax_update: running max m, sum l,
// acc += P V) and, when weights are requested, keeps the block's exp(e_j - m)
// in the weights row (earlier blocks rescaled by exp(m_old - m_new) when the max
// grows, as acc is); one_query_finish writes context = acc / l and scales the
// weights by 1 / l. Every score and every exp is computed once, and the weights
// need no scratch beyond one block.
#pragma once

#include <cstddef>
#include <cstdint>

namespace attn {
namespace detail {

struct OneQuery {
  float m;     // running max (-inf before the first key)
  float l;     // running sum of exp(e_j - m)
  float* acc;  // [dim_v] unnormalised context
};

// Starts a query: m = -inf, l = 0, acc = 0.
void one_query_start(OneQuery* q, float* acc, int32_t dim_v);

// scores[j] = e_{j0 + j} of keys [j0, j0 + nk) (overwritten), keys visited in
// order from j0 = 0; v = those keys' values; weights = the whole row or null.
void one_query_block(OneQuery* q, float* scores, int32_t nk, const float* v, std::size_t v_stride,
                     int32_t dim_v, float* weights, int32_t j0);

// context[c] = acc[c] / l (0 when len == 0); weights (if not null):
// exp(e_j - m) / l for j < len, 0 for len <= j < seq.
void one_query_finish(const OneQuery& q, int32_t len, int32_t seq, int32_t dim_v, float* context,
                      float* weights);

}  // namespace detail
}  // namespace attn
