// Luong attention, float32, the attention of one query per batch item
// (internal): what luong_dot_f32, luong_general_f32 and luong_general_f32_step
// share (see attn/luong.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/luong.h"
#include "core/one_query_f32.h"
#include "kernels/f32/kernels_f32.h"

namespace attn {
namespace detail {

// Score blocks: the keys of a block are read twice (scores, then P V), so a
// block is sized to stay in L1 (kCacheBlockBytes of keys, at least 16 keys)
// and never exceeds the score region of the SDPA scratch the op reserves
// (sdpa_f32_scratch_bytes({1, 1, seq, dim, dim}) holds kSdpaQueryTile rows of
// kSdpaKeyBlock scores); the context accumulator follows that region.
inline constexpr int32_t kLuongBlock = kSdpaQueryTile * kSdpaKeyBlock;
inline constexpr std::size_t kLuongCacheBlockBytes = 32768;

// The rows a query attends: score keys k [seq, dim_k] (rows k_stride apart)
// give e_j = q . k_j; values v [seq, dim_v] (rows dim_v apart) give the context.
struct LuongKeys {
  const float* k;
  std::size_t k_stride;
  int32_t dim_k;
  const float* v;
  int32_t dim_v;
};

// context = sum_j softmax(e)_j v_j over j < len, one online-softmax pass (each
// score and its exp computed once, also when weights are requested). core: the
// scratch of luong_dot_f32_scratch_bytes with dim = dim_v, 64-byte aligned.
inline void luong_attend_f32(const float* q, const LuongKeys& keys, int32_t len, int32_t seq,
                             float* context, float* w, void* core) {
  const auto dv = static_cast<std::size_t>(keys.dim_v);
  auto* scores = static_cast<float*>(core);
  auto* acc_bytes = static_cast<unsigned char*>(core) +
                    f32_bytes(static_cast<std::size_t>(kLuongBlock));
  auto* acc = static_cast<float*>(static_cast<void*>(acc_bytes));
  const int32_t widest = keys.dim_k > keys.dim_v ? keys.dim_k : keys.dim_v;
  int32_t block =
      static_cast<int32_t>(kLuongCacheBlockBytes / (4 * static_cast<std::size_t>(widest)));
  block = block < 16 ? 16 : (block > kLuongBlock ? kLuongBlock : block);
  OneQuery one;
  one_query_start(&one, acc, keys.dim_v);
  for (int32_t j0 = 0; j0 < len; j0 += block) {
    const int32_t nk = len - j0 < block ? len - j0 : block;
    const float* kb = keys.k + static_cast<std::size_t>(j0) * keys.k_stride;
    const float* vb = keys.v + static_cast<std::size_t>(j0) * dv;
    kernels::qk_tile_f32(q, static_cast<std::size_t>(keys.dim_k), 1, kb, keys.k_stride, nk,
                         keys.dim_k, scores, static_cast<std::size_t>(nk));
    one_query_block(&one, scores, nk, vb, dv, keys.dim_v, w, j0);
  }
  one_query_finish(one, len, seq, keys.dim_v, context, w);
}

}  // namespace detail
}  // namespace attn
