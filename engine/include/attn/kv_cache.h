// A key/value cache for token-by-token attention, in caller-owned memory.
//
// The cache holds the keys and values of past tokens for num_kv_heads heads of
// head_dim elements, so a decoder step projects only its new tokens
// (mha_decode.h, mha_decode_s8.h). It never allocates: its storage is a byte
// span of kv_cache_bytes(shape) bytes that the caller owns and keeps alive.
//
// Layout (storage rounded up to 64 bytes inside, like scratch):
//   K [num_kv_heads][capacity][head_dim]  then  V [num_kv_heads][capacity][head_dim]
//   (each block 64-byte aligned), element type:
//     kF32  float32
//     kF16  IEEE binary16 storage (round to nearest even from float32, overflow
//           to +-inf, NaN kept); the ops compute in float32
//     kS8   int8 codes, exactly the K/V that the one-shot int8 MHA projects for
//           those tokens (the scales and zero points are the op's params)
//   kv_cache_bytes = 64 + 2 * align64(slots * num_kv_heads * head_dim * elem)
//                  + packed bytes (below); slots = capacity (C32 for packed float)
//
// Packed float (kF32 / kF16 with packed = true): K is kept in blocks of
// kKvCacheKtBlock = 32 slots, each stored transposed, [head_dim][32], instead
// of rows:
//   K [num_kv_heads][C32 / 32][head_dim][32]   (slot j, element x of kv head g
//                                               at (g C32 + j / 32 * 32) head_dim
//                                               + x * 32 + j % 32)
// C32 = capacity rounded up to 32. A decode step's Q.K^T then reads one
// element of many keys per vector and needs no horizontal sums (see
// bench/README.md for the measured steps). V keeps its rows; both blocks are
// sized for C32 slots. The results equal an unpacked cache's within the
// float bound of the tile kernels (another summation order), not bit for
// bit.
//
// Packed int8 (kS8 with packed = true): the cache also keeps each kv head's
// K and V in the int8 tile kernels' packed layouts, updated block by block as
// tokens are appended, so a step whose attention takes the query-tiled core
// (a kv head's group of >= 4 query heads, or a prefill of >= 4 tokens)
// packs nothing: it reads the cache as it is. The layouts are the build's
// kernel set's own (opaque); the natural rows above stay as documented.
//   packed bytes = num_kv_heads * C16 * (round4(head_dim) + round16(head_dim) + 4)
//   C16 = capacity rounded up to 16
// Builds without the tiled int8 core (kSdpaS8QueryTile == 1, attn/config.h:
// ATTN_SDPA_S8_QUERY_TILE) ignore the flag: 0 packed bytes, same results.
// Either way the int8 results are the same bits.
//
// Positions: `position` counts the tokens appended since init/reset (token t
// has absolute position t). Two modes:
//   linear (window = false)  slot = position; appending past `capacity` returns
//                            kCacheFull and writes nothing.
//   sliding window (true)    a ring of `capacity` slots (slot = position mod
//                            capacity): a query at position p sees positions
//                            p - capacity + 1 .. p, itself included. Endless.
// Positions stay below kKvCacheMaxPosition (2^53, where double-precision rotary
// angles stop being exact integers): an append beyond returns kOverflow.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/config.h"
#include "attn/scratch.h"
#include "attn/status.h"

namespace attn {

enum class KvElement : int32_t {
  kF32 = 0,
  kF16 = 1,
  kS8 = 2,
};

inline constexpr int64_t kKvCacheMaxPosition = int64_t{1} << 53;

// Slots per transposed K block of a packed float cache.
inline constexpr int32_t kKvCacheKtBlock = 32;

struct KvCacheShape {
  int32_t capacity = 0;  // token slots (the window size in sliding-window mode)
  int32_t num_kv_heads = 0;
  int32_t head_dim = 0;
  KvElement element = KvElement::kF32;
  bool window = false;  // sliding window of `capacity` positions (ring buffer)
  bool packed = false;  // keep K/V in the layouts the kernels read best (see above)
};

constexpr std::size_t kv_element_bytes(KvElement e) {
  return e == KvElement::kF32 ? 4 : (e == KvElement::kF16 ? 2 : (e == KvElement::kS8 ? 1 : 0));
}

// True when K is kept in transposed blocks of kKvCacheKtBlock slots (a packed
// float cache).
constexpr bool kv_cache_k_blocked(const KvCacheShape& s) {
  return s.packed && (s.element == KvElement::kF32 || s.element == KvElement::kF16);
}

// Token slots a K or V block is sized for: capacity, rounded up to
// kKvCacheKtBlock when K is blocked.
constexpr uint64_t kv_cache_slots64(const KvCacheShape& s) {
  const auto c = static_cast<uint64_t>(s.capacity);
  constexpr auto b = static_cast<uint64_t>(kKvCacheKtBlock);
  return kv_cache_k_blocked(s) ? (c + b - 1) / b * b : c;
}

// Bytes of one of the K or V blocks (64-byte aligned), 0 for a bad shape.
constexpr uint64_t kv_cache_block_bytes64(const KvCacheShape& s) {
  if (s.capacity <= 0 || s.num_kv_heads <= 0 || s.head_dim <= 0 ||
      kv_element_bytes(s.element) == 0) {
    return 0;
  }
  const uint64_t n =
      sat::mul(sat::mul(kv_cache_slots64(s), static_cast<uint64_t>(s.num_kv_heads)),
               sat::mul(static_cast<uint64_t>(s.head_dim), kv_element_bytes(s.element)));
  return n > sat::kMax - (kAlign - 1) ? sat::kMax : (n + kAlign - 1) / kAlign * kAlign;
}

// One kv head's parts of the packed K/V section, C16 = capacity rounded up to
// 16 slots: K C16 round4(hd) bytes, C16 int32 key sums, V C16 round16(hd)
// bytes (each a multiple of 64; {} for a bad shape). The section holds every
// head's K, then every head's key sums, then every head's V.
struct KvPackedHeadBytes {
  uint64_t k = 0, ksum = 0, v = 0;
};
constexpr KvPackedHeadBytes kv_cache_packed_head_bytes(const KvCacheShape& s) {
  if (s.capacity <= 0 || s.head_dim <= 0) return {};
  const uint64_t c16 = (static_cast<uint64_t>(s.capacity) + 15) / 16 * 16;
  const uint64_t hd = static_cast<uint64_t>(s.head_dim);
  return {c16 * ((hd + 3) / 4 * 4), 4 * c16, c16 * ((hd + 15) / 16 * 16)};
}

// Bytes of the packed K/V section: num_kv_heads times a head's parts; 0
// unless a kS8 cache is packed on a build with the tiled int8 core.
constexpr uint64_t kv_cache_packed_bytes64(const KvCacheShape& s) {
  if (!s.packed || s.element != KvElement::kS8 || ATTN_SDPA_S8_QUERY_TILE <= 1 ||
      kv_cache_block_bytes64(s) == 0) {
    return 0;
  }
  const KvPackedHeadBytes h = kv_cache_packed_head_bytes(s);
  return sat::mul(static_cast<uint64_t>(s.num_kv_heads), sat::add(sat::add(h.k, h.ksum), h.v));
}

constexpr std::size_t kv_cache_bytes(const KvCacheShape& s) {
  const uint64_t block = kv_cache_block_bytes64(s);
  return block == 0 ? 0
                    : sat::to_size(sat::add(sat::add(kAlign, sat::mul(2, block)),
                                            kv_cache_packed_bytes64(s)));
}

// The cache state. Fill it with kv_cache_init; the ops update `position`.
struct KvCache {
  KvCacheShape shape{};
  void* k = nullptr;       // K block (64-byte aligned, inside the caller's storage)
  void* v = nullptr;       // V block
  void* packed = nullptr;  // the packed K/V section, or null (kv_cache_packed_bytes64)
  int64_t position = 0;
  int32_t next_slot = 0;  // slot of `position` (position mod capacity in window mode)
};

// Points *cache at `storage` (any alignment) for `shape`, position 0. The
// contents of the storage are not read before they are written (init zeroes
// the packed int8 section and a packed float cache's K block, whose blocks'
// unused lanes the score kernels read).
// Returns kOk, or without writing: kNullPointer (cache or storage null),
// kBadShape (a dimension <= 0 or above the engine's limit, a bad element),
// kScratchTooSmall (bytes < kv_cache_bytes(shape)).
Status kv_cache_init(const KvCacheShape& shape, void* storage, std::size_t bytes, KvCache* cache);

// position = 0 (the slots are overwritten by later appends, never cleared).
// kNullPointer when cache is null.
Status kv_cache_reset(KvCache* cache);

// Appends n tokens' keys and values: k and v are [n, num_kv_heads * head_dim]
// rows (head h in columns h*head_dim ..), converted to the cache element
// (kF32 / kF16 caches). In window mode only the last `capacity` of them stay.
// Returns kOk, or without writing anything: kNullPointer, kBadShape (n <= 0),
// kBadArgument (a kS8 cache: use kv_cache_append_s8), kCacheFull (linear
// cache with position + n > capacity), kOverflow (position + n beyond
// kKvCacheMaxPosition).
Status kv_cache_append_f32(KvCache* cache, const float* k, const float* v, int32_t n);

// The same for a kS8 cache and int8 codes (kBadArgument for another element).
Status kv_cache_append_s8(KvCache* cache, const int8_t* k, const int8_t* v, int32_t n);

}  // namespace attn
