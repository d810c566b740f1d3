// The streaming-softmax attention core shared by every float op (internal).
//
// For one batch item, with s_ij = scale * q_i . k_j + mask_ij:
//   out_i = sum_j softmax_j(s_ij) v_j
// Queries are taken kSdpaQueryTile rows at a time; keys in blocks of
// kSdpaKeyBlock. For each block the running row max m_i, the running sum
// l_i = sum exp(s_ij - m_i) and the unnormalised output acc_i are updated
// (acc_i and l_i rescaled by exp(m_old - m_new) when the max grows); out_i =
// acc_i / l_i at the end. Key blocks that a causal mask or key length removes
// for the whole query tile are never visited.
//
// Two layouts of a tile: with a SIMD query tile (kSdpaQueryTile a multiple of
// 16) tiles of more than 4 queries keep the scaled queries transposed [d][tq]
// and the scores [key][tq] (tq = queries rounded up to 16), so the Q.K^T,
// softmax and P.V kernels run with queries along the vector (qk_tile_t,
// softmax_t, pv_tile_t: no horizontal sums); smaller tiles (decode) and ref
// builds keep rows [query][.] (qk_tile, max, exp_sub_sum, pv_tile).
//
// A tile whose visible keys fit one block skips the online rescaling: its
// probabilities are normalised before P.V (rows, in SIMD builds: softmax_f32
// per row; the transposed layout: softmax_t, then 1 / l_i), which accumulates
// straight into the output rows.
//
// When weights are requested a second pass recomputes each score block and
// writes (or accumulates, for head-averaged MHA weights) exp(s - m_i) / l_i;
// a one-block row tile writes its probabilities directly instead.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/attend_mask.h"

namespace attn {
namespace detail {

struct AttendF32 {
  const float* q = nullptr;
  std::size_t q_stride = 0;
  const float* k = nullptr;
  std::size_t k_stride = 0;
  const float* v = nullptr;
  std::size_t v_stride = 0;
  float* out = nullptr;
  std::size_t out_stride = 0;
  float* weights = nullptr;        // optional [seq_q, seq_kv], row stride seq_kv
  bool accumulate_weights = false;  // weights += alpha * p instead of weights = alpha * p
  float weights_alpha = 1.0f;
  int32_t seq_q = 0;
  int32_t seq_kv = 0;
  int32_t dim_k = 0;
  int32_t dim_v = 0;
  float scale = 1.0f;
};

// Runs the core. `scratch` is 64-byte aligned and holds at least
// sdpa_f32_scratch_bytes({1, seq_q, seq_kv, dim_k, dim_v}) - 64 bytes.
void attend_f32(const AttendF32& a, const AttendMask& mask, void* scratch);

// One online-softmax step for nq rows and a block of nk keys: s holds the
// block's scores (masked = -inf) and is overwritten with exp(s - m_new); the
// running max m, sum l and accumulators acc (rows of dim_v) are rescaled when
// the max grows, then acc += P V. Rows with no visible key yet are unchanged.
void online_softmax_update(float* s, std::size_t s_stride, int32_t nq, int32_t nk,
                           const float* v, std::size_t v_stride, int32_t dim_v, float* m,
                           float* l, float* acc, std::size_t acc_stride);

}  // namespace detail
}  // namespace attn
