// Block repacking of an int8 KV cache's packed section (see kv_cache_packed.h).
#include "core/kv_cache_packed.h"

#include "core/kv_cache_rows.h"
#include "kernels/s8/kernels_s8.h"

namespace attn {
namespace detail {
namespace {

// Block b (slots 16 b .. 16 b + 15) of kv head g from the natural rows: its
// first `rows` slots hold tokens.
void pack_block(const KvCache& c, int32_t g, int32_t b, int32_t rows) {
  const KvCacheShape& s = c.shape;
  const KvPackedOffsets off = kv_packed_offsets(s, g);
  auto* base = static_cast<unsigned char*>(c.packed);
  auto* k = reinterpret_cast<int8_t*>(base + off.k);
  auto* ksum = static_cast<int32_t*>(static_cast<void*>(base + off.ksum));
  auto* v = reinterpret_cast<int8_t*>(base + off.v);
  const int32_t r16 = 16 * b;
  const std::size_t natural = kv_cache_offset(s, g, r16);
  const auto hd = static_cast<std::size_t>(s.head_dim);
  kpack_s8(static_cast<const int8_t*>(c.k) + natural, hd, rows, s.head_dim,
           k + kpack_s8_bytes(r16, s.head_dim), ksum + r16);
  vpack_s8(static_cast<const int8_t*>(c.v) + natural, hd, rows, s.head_dim,
           v + vpack_s8_offset(r16, s.head_dim));
}

}  // namespace

void kv_cache_pack_s8(const KvCache& c, int32_t n) {
  if (c.packed == nullptr) return;
  const KvCacheShape& s = c.shape;
  // Slots holding tokens once these are written: a linear cache (or a ring
  // not yet full) fills them in order from 0.
  const int64_t end = c.position + n;
  const int32_t filled = end >= s.capacity ? s.capacity : static_cast<int32_t>(end);
  const int32_t first = s.window && n > s.capacity ? n - s.capacity : 0;
  int32_t last_block = -1;
  for (int32_t t = first; t < n; ++t) {
    const int32_t b = kv_cache_slot(c, t) / 16;
    if (b == last_block) continue;  // consecutive slots share blocks
    last_block = b;
    const int32_t left = filled - 16 * b;
    for (int32_t g = 0; g < s.num_kv_heads; ++g) pack_block(c, g, b, left < 16 ? left : 16);
  }
}

}  // namespace detail
}  // namespace attn
