// Attention of new tokens over an int8 KV cache (internal): the core of
// mha_decode_s8 (see attn/mha_decode_s8.h). Integer arithmetic only.
//
// One token (a decode step): one int8 core item per kv head, its rows the
// group's query heads (q and out columns g * group * hd .., rows hd apart),
// every cached key visible to each, so each kv head's K/V are read once for
// its whole group. Several tokens (a prefill, linear cache): one item per
// query head, its rows the tokens, causal from pos0. The items go through
// attend_s8_run (query chunks per task, or the exact key split).
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/kv_cache.h"
#include "attn/parallel.h"
#include "attn/sdpa_s8.h"

namespace attn {
namespace detail {

// The tokens' int8 queries and output rows, both [tokens, heads * head_dim]
// rows of `stride` codes, tokens at positions pos0 .. pos0 + tokens - 1 with
// their K/V already in the cache (a window: one token).
struct CacheAttendS8 {
  const KvCache* cache = nullptr;
  const int8_t* q = nullptr;
  int8_t* out = nullptr;
  std::size_t stride = 0;
  int32_t heads = 0;
  int32_t tokens = 0;
  int64_t pos0 = 0;
};

// slices: 64-byte aligned, ex.workers slices of at least
// sdpa_s8_core_bytes(capacity, head_dim, head_dim) bytes.
void attend_cache_s8(const Executor& ex, const SdpaS8Params& params, const CacheAttendS8& a,
                     void* slices);

}  // namespace detail
}  // namespace attn
