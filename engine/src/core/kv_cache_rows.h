// Row access to a KV cache for the decode ops and the append functions
// (internal). Slot s of kv head g starts at element (g * capacity + s) *
// head_dim of the K or V block (a packed float cache's K: transposed blocks,
// kv_cache_kt_offset); position p lives in slot p (linear) or p mod
// capacity (window).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "attn/kv_cache.h"
#include "attn/status.h"
#include "kernels/f32/kernels_f32.h"

namespace attn {
namespace detail {

// kOk when n > 0 new tokens fit: kCacheFull (linear cache past capacity) or
// kOverflow (past kKvCacheMaxPosition) otherwise.
inline Status kv_cache_check_room(const KvCache& c, int32_t n) {
  if (c.position > kKvCacheMaxPosition - n) return Status::kOverflow;
  if (!c.shape.window && c.position + n > c.shape.capacity) return Status::kCacheFull;
  return Status::kOk;
}

// The slot of the token at position + t (0 <= t), in 32-bit arithmetic (no
// 64-bit division helper on Cortex-M).
inline int32_t kv_cache_slot(const KvCache& c, int32_t t) {
  const int32_t slot = c.next_slot + t;
  return c.shape.window ? slot % c.shape.capacity : slot;
}

// Moves the position on by n appended tokens.
inline void kv_cache_advance(KvCache* c, int32_t n) {
  c->position += n;
  c->next_slot = kv_cache_slot(*c, n);
}

// Element stores of a converted row: function objects, so that
// kv_cache_write calls them directly at every optimisation level (a function
// pointer stays an indirect call at -Os, which the Cortex-M stack analysis
// cannot follow).
// The float stores also write a row `step` elements apart (a blocked K).
struct StoreF32 {
  void operator()(void* block, std::size_t off, const float* src, int32_t n) const {
    float* d = static_cast<float*>(block) + off;
    for (int32_t i = 0; i < n; ++i) d[i] = src[i];
  }
  void operator()(void* block, std::size_t off, std::size_t step, const float* src,
                  int32_t n) const {
    float* d = static_cast<float*>(block) + off;
    for (int32_t i = 0; i < n; ++i) d[static_cast<std::size_t>(i) * step] = src[i];
  }
};
struct StoreF16 {
  void operator()(void* block, std::size_t off, const float* src, int32_t n) const {
    kernels::f32_to_f16(src, n, static_cast<uint16_t*>(block) + off);
  }
  // Through the kernel 32 elements at a time, then scattered.
  void operator()(void* block, std::size_t off, std::size_t step, const float* src,
                  int32_t n) const {
    uint16_t* d = static_cast<uint16_t*>(block) + off;
    uint16_t h[32];
    for (int32_t i0 = 0; i0 < n; i0 += 32) {
      const int32_t m = n - i0 < 32 ? n - i0 : 32;
      kernels::f32_to_f16(src + i0, m, h);
      for (int32_t i = 0; i < m; ++i) d[static_cast<std::size_t>(i0 + i) * step] = h[i];
    }
  }
};
struct StoreS8 {
  void operator()(void* block, std::size_t off, const int8_t* src, int32_t n) const {
    int8_t* d = static_cast<int8_t*>(block) + off;
    for (int32_t i = 0; i < n; ++i) d[i] = src[i];
  }
};
inline constexpr StoreF32 store_f32{};
inline constexpr StoreF16 store_f16{};
inline constexpr StoreS8 store_s8{};

// Element offset of (kv head g, slot) in the K or V block.
inline std::size_t kv_cache_offset(const KvCacheShape& s, int32_t g, int32_t slot) {
  return (static_cast<std::size_t>(g) * static_cast<std::size_t>(s.capacity) +
          static_cast<std::size_t>(slot)) *
         static_cast<std::size_t>(s.head_dim);
}

// Element offset of (kv head g, slot) in a blocked K (kv_cache_k_blocked):
// the slot's element x is kKvCacheKtBlock elements after element x - 1.
inline std::size_t kv_cache_kt_offset(const KvCacheShape& s, int32_t g, int32_t slot) {
  constexpr auto b = static_cast<std::size_t>(kKvCacheKtBlock);
  const auto slots = static_cast<std::size_t>(kv_cache_slots64(s));
  const auto j = static_cast<std::size_t>(slot);
  return (static_cast<std::size_t>(g) * slots + j / b * b) * static_cast<std::size_t>(s.head_dim) +
         j % b;
}

// Keys a query at `position` sees: position + 1, at most capacity in a window.
inline int32_t kv_cache_visible(const KvCacheShape& s, int64_t position) {
  return s.window && position >= s.capacity ? s.capacity : static_cast<int32_t>(position + 1);
}

// New tokens' rows for an attention over the cache (the decode ops' cores,
// core/attend_cache_f32.h and core/attend_cache_s8.h): queries and output rows
// [tokens, heads * head_dim] of `stride` elements (head h at column h *
// head_dim), the tokens at positions pos0 .. pos0 + tokens - 1 with their K/V
// already in the cache: any number of tokens in a linear cache (causal), one
// in a window. T is float or int8_t.
template <class T>
struct CacheAttendRows {
  const KvCache* cache = nullptr;
  const T* q = nullptr;
  T* out = nullptr;
  std::size_t stride = 0;
  int32_t heads = 0;
  int32_t tokens = 0;
  int64_t pos0 = 0;
};

// Writes rows [0, n) of k and v ([n, G * hd], row stride `stride` elements) as
// the tokens at positions position .. position + n - 1 (window: only the last
// capacity of them), converted by `store(dst, src, count)`. Does not move
// the position. T is float (kF32 / kF16 caches) or int8_t.
template <class T, class Store>
void kv_cache_write(const KvCache& c, const T* k, const T* v, std::size_t stride, int32_t n,
                    Store store) {
  const KvCacheShape& s = c.shape;
  const int32_t first = s.window && n > s.capacity ? n - s.capacity : 0;
  const auto hd = static_cast<std::size_t>(s.head_dim);
  const bool k_blocked = kv_cache_k_blocked(s);  // a packed float cache
  for (int32_t t = first; t < n; ++t) {
    const int32_t slot = kv_cache_slot(c, t);
    for (int32_t g = 0; g < s.num_kv_heads; ++g) {
      const std::size_t src = static_cast<std::size_t>(t) * stride +
                              static_cast<std::size_t>(g) * hd;
      const std::size_t dst = kv_cache_offset(s, g, slot);
      store(c.v, dst, v + src, s.head_dim);
      if constexpr (std::is_same<T, float>::value) {
        if (k_blocked) {
          store(c.k, kv_cache_kt_offset(s, g, slot), kKvCacheKtBlock, k + src, s.head_dim);
          continue;
        }
      }
      store(c.k, dst, k + src, s.head_dim);
    }
  }
}

}  // namespace detail
}  // namespace attn
