// The packed K/V section of an int8 KV cache (internal; attn/kv_cache.h,
// KvCacheShape::packed): per kv head g, K in kpack_s8's layout with its key
// sums and V in vpack_s8's layout, over C16 = round16(capacity) slots, so the
// query-tiled int8 core reads a kv head's keys and values without packing:
//   K    [G][C16 * round4(hd)]   bytes
//   ksum [G][C16]                int32
//   V    [G][C16 * round16(hd)]  bytes (the kernel set's own V layout within)
// (kv_cache_packed_head_bytes). Every part a multiple of 64 bytes: the section
// starts 64-byte aligned (after the natural V block), so each head's parts do
// too.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/kv_cache.h"
#include "core/attend_s8.h"

namespace attn {
namespace detail {

// Kv head g's packed K, key sums and V as byte offsets from the section's
// start (each part at the offsets of kv_cache_packed_head_bytes; the section
// exists, so they fit size_t).
struct KvPackedOffsets {
  std::size_t k, ksum, v;
};
inline KvPackedOffsets kv_packed_offsets(const KvCacheShape& s, int32_t g) {
  const KvPackedHeadBytes h = kv_cache_packed_head_bytes(s);
  const auto k = static_cast<std::size_t>(h.k);
  const auto ksum = static_cast<std::size_t>(h.ksum);
  const auto v = static_cast<std::size_t>(h.v);
  const auto heads = static_cast<std::size_t>(s.num_kv_heads);
  const auto ug = static_cast<std::size_t>(g);
  return {ug * k, heads * k + ug * ksum, heads * (k + ksum) + ug * v};
}

// Kv head g's packed K, key sums and V for the readers (all null when the
// cache keeps none).
inline PackedKvS8 kv_packed_head(const KvCache& c, int32_t g) {
  if (c.packed == nullptr) return {};
  const KvPackedOffsets off = kv_packed_offsets(c.shape, g);
  const auto* base = static_cast<const unsigned char*>(c.packed);
  PackedKvS8 p;
  p.k = reinterpret_cast<const int8_t*>(base + off.k);
  p.ksum = static_cast<const int32_t*>(static_cast<const void*>(base + off.ksum));
  p.v = reinterpret_cast<const int8_t*>(base + off.v);
  return p;
}

// Packs again the 16-slot blocks that hold the n tokens just written from
// position c.position on (kv_cache_write, before kv_cache_advance), from the
// natural rows: every written slot of each block (kv_cache_init zeroed the
// rest). No-op when the cache keeps no packed section.
void kv_cache_pack_s8(const KvCache& c, int32_t n);

}  // namespace detail
}  // namespace attn
