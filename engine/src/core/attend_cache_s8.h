// Attention of new tokens over an int8 KV cache (internal): the core of
// mha_decode_s8 (see attn/mha_decode_s8.h). Integer arithmetic only
// (compiled into mha_decode_s8.cpp, which tests/int8 checks for soft-float).
//
// One token (a decode step): one int8 core item per kv head, its rows the
// group's query heads (q and out columns g * group * hd .., rows hd apart),
// every cached key visible to each, so each kv head's K/V are read once for
// its whole group. Several tokens (a prefill, linear cache): one item per
// query head, its rows the tokens, causal from pos0. The items go through
// attend_s8_run (query chunks per task, or the exact key split). A packed
// cache (attn/kv_cache.h) gives the query-tiled core each kv head's packed
// K/V, so no step packs the cache.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/config.h"
#include "attn/kv_cache.h"
#include "attn/parallel.h"
#include "attn/sdpa_s8.h"
#include "core/attend_s8.h"
#include "core/kv_cache_packed.h"
#include "core/kv_cache_rows.h"

namespace attn {
namespace detail {

// The tokens' int8 queries and output rows (see CacheAttendRows).
using CacheAttendS8 = CacheAttendRows<int8_t>;

// Item i: kv head i with its group's query heads as rows (one token), or
// query head i with the tokens as rows.
inline AttendS8Item cache_item(const CacheAttendS8& a, int32_t seq_kv, int32_t i) {
  const KvCacheShape& cs = a.cache->shape;
  const auto hd = static_cast<std::size_t>(cs.head_dim);
  const int32_t group = a.heads / cs.num_kv_heads;
  const bool grouped = a.tokens == 1;
  const int32_t h = grouped ? i * group : i;
  const std::size_t col = static_cast<std::size_t>(h) * hd;
  const int32_t g = grouped ? i : h / group;
  const std::size_t kv = kv_cache_offset(cs, g, 0);
  AttendS8Item it;
  it.a.q = a.q + col;
  it.a.q_stride = grouped ? hd : a.stride;
  it.a.k = static_cast<const int8_t*>(a.cache->k) + kv;
  it.a.k_stride = hd;
  it.a.v = static_cast<const int8_t*>(a.cache->v) + kv;
  it.a.v_stride = hd;
  it.a.out = a.out + col;
  it.a.out_stride = it.a.q_stride;
  it.a.seq_q = grouped ? group : a.tokens;
  it.a.seq_kv = seq_kv;
  it.a.dim_k = cs.head_dim;
  it.a.dim_v = cs.head_dim;
  it.packed = kv_packed_head(*a.cache, g);
  it.mask.causal = !grouped && !cs.window;
  it.mask.key_length = seq_kv;
  return it;
}

// slices: 64-byte aligned, ex.workers slices of at least
// sdpa_s8_core_bytes(capacity, head_dim, head_dim, the cache packed) bytes. Inlined into its
// caller (mha_decode_s8's step loop): no frame of its own on the Cortex-M
// stack path (tests/baremetal/ops/stack_budget.json).
__attribute__((always_inline)) inline void attend_cache_s8(const Executor& ex,
                                                           const SdpaS8Params& params,
                                                           const CacheAttendS8& a, void* slices) {
  const KvCacheShape& cs = a.cache->shape;
  // Linear: keys 0 .. pos0 + tokens - 1, causal (offset pos0). Window (one
  // token): every valid slot of the ring, none masked.
  const int32_t seq_kv = kv_cache_visible(cs, a.pos0 + a.tokens - 1);
  const bool grouped = a.tokens == 1;
  const int32_t items = grouped ? cs.num_kv_heads : a.heads;
#if ATTN_PARALLEL
  const auto item = [&](int32_t i) { return cache_item(a, seq_kv, i); };
  attend_s8_run(ex, params, items, grouped ? a.heads / cs.num_kv_heads : a.tokens, seq_kv,
                cs.head_dim, item, slices);
#else
  // One item at a time on this thread (attend_s8_run's serial loop, without
  // its callable: the Cortex-M stack budgets count this frame).
  (void)ex;
  for (int32_t i = 0; i < items; ++i) {
    const AttendS8Item it = cache_item(a, seq_kv, i);
    attend_s8_rows(params, it.a, it.mask, 0, it.a.seq_q, slices, packed_of(it));
  }
#endif
}

}  // namespace detail
}  // namespace attn
