// Attention of new tokens over a KV cache, float32 (internal): the core of
// mha_decode_f32 (the math, the tiles and the key split: attn/mha_decode.h).
//
// Rows of a kv head g's tiles are (token t, query head h) of g's group, row
// i = t * group + (h - g * group), kSdpaQueryTile rows per tile; a row of
// token t sees the cache's keys below kv_cache_visible(pos0 + t). Per tile:
// the scaled query rows, then per block of keys (block_keys(rows) of them) the
// scores Q K^T (qk_tile_f32; qk_tile_f16k_f32 for a kF16 cache), masked per
// row past its visible keys, one online-softmax step (online_softmax_rows),
// acc += P V (pv_tile_f32; pv_tile_f16v_f32); out = acc / l.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/kv_cache.h"
#include "attn/mha_decode.h"
#include "attn/parallel.h"
#include "core/kv_cache_rows.h"

namespace attn {
namespace detail {

// The tokens' projected queries and output rows (see CacheAttendRows).
using CacheAttendF32 = CacheAttendRows<float>;

// Bytes of one worker's slice (MhaDecodeF32Layout of the cache's head_dim).
std::size_t attend_cache_f32_slice_bytes(const KvCacheShape& cache);

// The number of key ranges per kv head for `workers` (1: tasks per (kv
// head, tile), no key split).
int32_t attend_cache_f32_key_parts(const CacheAttendF32& a, int32_t workers);

// Every (kv head, tile) of `a` through ex (serially on this thread without
// one, or when the build has ATTN_PARALLEL 0), or the key split of
// attend_cache_f32_key_parts. slices: 64-byte aligned, ex.workers slices of
// attend_cache_f32_slice_bytes.
void attend_cache_f32(const Executor& ex, const CacheAttendF32& a, void* slices);

}  // namespace detail
}  // namespace attn
