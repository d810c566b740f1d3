// The KV cache's state functions (see attn/kv_cache.h).
#include "attn/kv_cache.h"

#include <cstring>

#include "core/kv_cache_packed.h"
#include "core/kv_cache_rows.h"
#include "ops/op_helpers.h"

namespace attn {
namespace {

// Checks shared by both appends; kOk when the tokens can be written.
Status check_append(const KvCache* cache, const void* k, const void* v, int32_t n, bool s8) {
  if (cache == nullptr || k == nullptr || v == nullptr || cache->k == nullptr ||
      cache->v == nullptr) {
    return Status::kNullPointer;
  }
  if (n <= 0) return Status::kBadShape;
  if ((cache->shape.element == KvElement::kS8) != s8) return Status::kBadArgument;
  return detail::kv_cache_check_room(*cache, n);
}

}  // namespace

Status kv_cache_init(const KvCacheShape& shape, void* storage, std::size_t bytes, KvCache* cache) {
  if (cache == nullptr || storage == nullptr) return Status::kNullPointer;
  const std::size_t needed = kv_cache_bytes(shape);
  if (needed == 0 || !detail::dims_ok({shape.capacity, shape.num_kv_heads, shape.head_dim})) {
    return Status::kBadShape;
  }
  void* base = detail::aligned_scratch(storage, bytes, needed);
  if (base == nullptr) return Status::kScratchTooSmall;
  KvCache c;
  c.shape = shape;
  c.k = base;
  c.v = static_cast<unsigned char*>(base) + kv_cache_block_bytes64(shape);
  if (kv_cache_k_blocked(shape)) {
    std::memset(c.k, 0, static_cast<std::size_t>(kv_cache_block_bytes64(shape)));
  }
  const uint64_t packed = kv_cache_packed_bytes64(shape);
  if (packed != 0) {
    c.packed = static_cast<unsigned char*>(c.v) + kv_cache_block_bytes64(shape);
    std::memset(c.packed, 0, static_cast<std::size_t>(packed));
  }
  *cache = c;
  return Status::kOk;
}

Status kv_cache_reset(KvCache* cache) {
  if (cache == nullptr) return Status::kNullPointer;
  cache->position = 0;
  cache->next_slot = 0;
  return Status::kOk;
}

Status kv_cache_append_f32(KvCache* cache, const float* k, const float* v, int32_t n) {
  const Status st = check_append(cache, k, v, n, false);
  if (st != Status::kOk) return st;
  const auto stride = static_cast<std::size_t>(cache->shape.num_kv_heads) *
                      static_cast<std::size_t>(cache->shape.head_dim);
  if (cache->shape.element == KvElement::kF16) {
    detail::kv_cache_write(*cache, k, v, stride, n, detail::store_f16);
  } else {
    detail::kv_cache_write(*cache, k, v, stride, n, detail::store_f32);
  }
  detail::kv_cache_advance(cache, n);
  return Status::kOk;
}

Status kv_cache_append_s8(KvCache* cache, const int8_t* k, const int8_t* v, int32_t n) {
  const Status st = check_append(cache, k, v, n, true);
  if (st != Status::kOk) return st;
  const auto stride = static_cast<std::size_t>(cache->shape.num_kv_heads) *
                      static_cast<std::size_t>(cache->shape.head_dim);
  detail::kv_cache_write(*cache, k, v, stride, n, detail::store_s8);
  detail::kv_cache_pack_s8(*cache, n);
  detail::kv_cache_advance(cache, n);
  return Status::kOk;
}

}  // namespace attn
