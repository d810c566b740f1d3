// The packed K/V section of an int8 KV cache (internal; attn/kv_cache.h,
// KvCacheShape::packed): per kv head g, K in kpack_s8's layout with its key
// sums and V in vpack_s8's layout, over C16 = round16(capacity) slots, so the
// query-tiled int8 core reads a kv head's keys and values without packing:
//   K    [G][C16 * round4(hd)]   bytes, kv head g at g * C16 * round4(hd)
//   ksum [G][C16]                int32
//   V    [G][C16 * round16(hd)]  bytes (the kernel set's own V layout within)
// Every part a multiple of 64 bytes: the section starts 64-byte aligned (after
// the natural V block), so each head's parts do too.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/kv_cache.h"

namespace attn {
namespace detail {

// A kv head's packed K, key sums and V (all null when the cache keeps none).
struct KvPackedHead {
  int8_t* k = nullptr;
  int32_t* ksum = nullptr;
  int8_t* v = nullptr;
};

inline std::size_t kv_packed_slots(const KvCacheShape& s) {
  return (static_cast<std::size_t>(s.capacity) + 15) / 16 * 16;
}

inline KvPackedHead kv_packed_head(const KvCache& c, int32_t g) {
  KvPackedHead p;
  if (c.packed == nullptr) return p;
  const KvCacheShape& s = c.shape;
  const std::size_t c16 = kv_packed_slots(s);
  const auto hd = static_cast<std::size_t>(s.head_dim);
  const auto heads = static_cast<std::size_t>(s.num_kv_heads);
  const auto ug = static_cast<std::size_t>(g);
  const std::size_t k_bytes = c16 * ((hd + 3) / 4 * 4);
  const std::size_t v_bytes = c16 * ((hd + 15) / 16 * 16);
  auto* base = static_cast<unsigned char*>(c.packed);
  p.k = reinterpret_cast<int8_t*>(base + ug * k_bytes);
  p.ksum = static_cast<int32_t*>(static_cast<void*>(base + heads * k_bytes)) + ug * c16;
  p.v = reinterpret_cast<int8_t*>(base + heads * (k_bytes + 4 * c16) + ug * v_bytes);
  return p;
}

// Packs again the 16-slot blocks that hold the n tokens just written from
// position c.position on (kv_cache_write, before kv_cache_advance), from the
// natural rows: every written slot of each block (kv_cache_init zeroed the
// rest). No-op when the cache keeps no packed section.
void kv_cache_pack_s8(const KvCache& c, int32_t n);

}  // namespace detail
}  // namespace attn
