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

// Keys per score block for these keys (see kLuongBlock).
inline int32_t luong_block(const LuongKeys& keys) {
  const int32_t widest = keys.dim_k > keys.dim_v ? keys.dim_k : keys.dim_v;
  int32_t block =
      static_cast<int32_t>(kLuongCacheBlockBytes / (4 * static_cast<std::size_t>(widest)));
  block = block < 16 ? 16 : (block > kLuongBlock ? kLuongBlock : block);
  return block;
}

// The core's buffers: kLuongBlock scores, then the context accumulator.
struct LuongCore {
  float* scores;
  float* acc;
};
inline LuongCore luong_core(void* core) {
  auto* acc = static_cast<unsigned char*>(core) + f32_bytes(static_cast<std::size_t>(kLuongBlock));
  return LuongCore{static_cast<float*>(core), static_cast<float*>(static_cast<void*>(acc))};
}

// The online softmax of q over keys [begin, end) (begin a multiple of
// `block`) into `one`, a block at a time; w: the weights row or null (its
// columns [begin, end) are written).
__attribute__((always_inline)) inline void luong_keys_f32(const float* q, const LuongKeys& keys,
                                                          int32_t begin, int32_t end, int32_t block,
                                                          OneQuery* one, float* scores, float* w) {
  const auto dv = static_cast<std::size_t>(keys.dim_v);
  for (int32_t j0 = begin; j0 < end; j0 += block) {
    const int32_t nk = end - j0 < block ? end - j0 : block;
    const float* kb = keys.k + static_cast<std::size_t>(j0) * keys.k_stride;
    const float* vb = keys.v + static_cast<std::size_t>(j0) * dv;
    kernels::qk_tile_f32(q, static_cast<std::size_t>(keys.dim_k), 1, kb, keys.k_stride, nk,
                         keys.dim_k, scores, static_cast<std::size_t>(nk));
    one_query_block(one, scores, nk, vb, dv, keys.dim_v, w != nullptr ? w + begin : nullptr,
                    j0 - begin);
  }
}

// context = sum_j softmax(e)_j v_j over j < len, one online-softmax pass (each
// score and its exp computed once, also when weights are requested). core: the
// scratch of luong_dot_f32_scratch_bytes with dim = dim_v, 64-byte aligned.
inline void luong_attend_f32(const float* q, const LuongKeys& keys, int32_t len, int32_t seq,
                             float* context, float* w, void* core) {
  const LuongCore c = luong_core(core);
  OneQuery one;
  one_query_start(&one, c.acc, keys.dim_v);
  luong_keys_f32(q, keys, 0, len, luong_block(keys), &one, c.scores, w);
  one_query_finish(one, len, seq, keys.dim_v, context, w);
}

// A Luong op's batch for the parallel run: per item b the query row
// queries + b * query_stride (with proj_w: projected first, q' = proj_w q,
// proj_w [dim_k, query_dim]), score keys k + b * k_item (rows k_stride
// apart, dim_k wide) and values args.keys [batch, seq, dim_v].
struct LuongF32Job {
  const LuongF32Args* args;
  int32_t batch, seq;
  const float* queries;
  std::size_t query_stride;
  const float* proj_w;
  int32_t query_dim;
  const float* k;
  std::size_t k_item, k_stride;
  int32_t dim_k, dim_v;
};

// The job through an executor of more than one worker (context_f32_split.h;
// luong_f32_parallel.cpp). scratch: 64-byte aligned, workers slices of
// (proj_w ? align64(4 * dim_k) : 0) + SdpaF32Layout(dim_v, dim_v).bytes.
void luong_f32_parallel(const Executor& ex, const LuongF32Job& job, void* scratch);

}  // namespace detail
}  // namespace attn
