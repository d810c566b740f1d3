// The packed section of an int8 KV cache (KvCacheShape::packed) after every
// append: each kv head's packed K, key sums and V equal this build's kpack_s8 /
// vpack_s8 of the slots holding tokens, packed whole from the natural rows.
// Appends of 1 to 33 tokens through kv_cache_append_s8, linear and in a
// window that wraps (a block refilled beside tokens of the lap before), with
// head dims that exercise the kernels' edges (20: neither 8 nor 16 divides it)
// and their whole vectors (32). Builds without the tiled int8 core keep no
// packed section (null).
#include <cstring>

#include "attn/kv_cache.h"
#include "attn/sdpa_s8.h"
#include "case.h"
#include "core/kv_cache_packed.h"
#include "core/kv_cache_rows.h"
#include "kernels/s8/kernels_s8.h"

namespace {

using attn_test::Rng;

constexpr int kMaxCap = 40;
constexpr int kMaxG = 2;
constexpr int kMaxHd = 32;
constexpr int kC16 = 48;
constexpr int kChunks[] = {1, 5, 16, 3, 33, 2, 7};

constexpr std::size_t kStoreBytes =
    attn::kv_cache_bytes({kMaxCap, kMaxG, kMaxHd, attn::KvElement::kS8, false, true});
constexpr std::size_t kRows = 33 * kMaxG * kMaxHd;

// The case's buffers, from the case arena (not static: the boards' RAM).
struct Buffers {
  unsigned char* store;
  int8_t *k, *v, *kp, *vp;
  int32_t* ksum;
};

std::size_t uz(int i) { return static_cast<std::size_t>(i); }

// Head g's packed section against packing its `filled` natural slots whole.
void check_head(attn_test::Context& ctx, const Buffers& b, const attn::KvCache& c, int g,
                int filled) {
  namespace d = attn::detail;
  const int hd = c.shape.head_dim;
  const attn::detail::PackedKvS8 p = d::kv_packed_head(c, g);
  const std::size_t at = d::kv_cache_offset(c.shape, g, 0);
  std::memset(b.kp, 0, uz(kC16 * kMaxHd));
  std::memset(b.vp, 0, uz(kC16 * kMaxHd));
  std::memset(b.ksum, 0, uz(kC16) * sizeof(int32_t));
  d::kpack_s8(static_cast<const int8_t*>(c.k) + at, uz(hd), filled, hd, b.kp, b.ksum);
  d::vpack_s8(static_cast<const int8_t*>(c.v) + at, uz(hd), filled, hd, b.vp);
  const int f16 = (filled + 15) / 16 * 16;
  ATTN_EXPECT_TRUE(std::memcmp(p.k, b.kp, d::kpack_s8_bytes(filled, hd)) == 0);
  ATTN_EXPECT_TRUE(std::memcmp(p.ksum, b.ksum, uz(filled) * sizeof(int32_t)) == 0);
  ATTN_EXPECT_TRUE(std::memcmp(p.v, b.vp, d::vpack_s8_offset(f16, hd)) == 0);
}

void check_packed(attn_test::Context& ctx, int capacity, int kv_heads, int hd, bool window,
                  uint32_t seed) {
  attn_test::Arena arena;
  const Buffers b{arena.alloc<unsigned char>(kStoreBytes),
                  arena.alloc<int8_t>(kRows),
                  arena.alloc<int8_t>(kRows),
                  arena.alloc<int8_t>(uz(kC16 * kMaxHd)),
                  arena.alloc<int8_t>(uz(kC16 * kMaxHd)),
                  arena.alloc<int32_t>(uz(kC16))};
  ATTN_ASSERT_TRUE(arena.ok());
  const attn::KvCacheShape s{capacity, kv_heads, hd, attn::KvElement::kS8, window, true};
  attn::KvCache c;
  ATTN_ASSERT_TRUE(attn::kv_cache_init(s, b.store, kStoreBytes, &c) == attn::Status::kOk);
  if (attn::kSdpaS8QueryTile <= 1) {
    ATTN_EXPECT_TRUE(c.packed == nullptr);
    return;
  }
  ATTN_ASSERT_TRUE(c.packed != nullptr);
  Rng r(seed);
  int64_t position = 0;
  for (int pass = 0; pass < 3; ++pass) {
    for (int n : kChunks) {
      if (!window && position + n > capacity) n = static_cast<int>(capacity - position);
      if (n == 0) break;
      for (int i = 0; i < n * kv_heads * hd; ++i) {
        b.k[i] = static_cast<int8_t>(r.range(-128, 127));
        b.v[i] = static_cast<int8_t>(r.range(-128, 127));
      }
      ATTN_ASSERT_TRUE(attn::kv_cache_append_s8(&c, b.k, b.v, n) == attn::Status::kOk);
      position += n;
      const int filled = position < capacity ? static_cast<int>(position) : capacity;
      for (int g = 0; g < kv_heads; ++g) check_head(ctx, b, c, g, filled);
    }
  }
  ATTN_EXPECT_TRUE(window || position == capacity);
}

}  // namespace

ATTN_CASE(KvCachePacked, LinearMatchesWholePackingAfterEveryAppend) {
  check_packed(ctx, kMaxCap, 2, 20, false, 31);
  check_packed(ctx, 33, 1, kMaxHd, false, 32);
}

ATTN_CASE(KvCachePacked, WindowMatchesWholePackingAfterEveryAppend) {
  check_packed(ctx, 37, 2, 20, true, 33);
  check_packed(ctx, 18, 1, kMaxHd, true, 34);
  check_packed(ctx, 7, 2, 8, true, 35);
}
