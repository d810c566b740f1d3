// Attention of new tokens over a KV cache, float32 (see attend_cache_f32.h).
#include "core/attend_cache_f32.h"

#include <cmath>
#include <limits>

#include "attn/config.h"
#include "attn/scratch.h"
#include "attn/sdpa.h"
#include "core/attend_f32.h"
#include "core/index.h"
#include "core/key_range.h"
#include "core/kv_cache_rows.h"
#include "kernels/f32/kernels_f32.h"

namespace attn {
namespace detail {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();
constexpr auto kRows = static_cast<std::size_t>(kSdpaQueryTile);
constexpr int32_t kBlock = kDecodeKeyBlock;
static_assert(kBlock % kKvCacheKtBlock == 0, "key blocks start at a blocked K's blocks");

// One worker's buffers at MhaDecodeF32Layout's offsets.
struct Slice {
  float *qs, *acc, *s, *m, *l;
};

Slice carve(void* slice, const KvCacheShape& cs) {
  const MhaDecodeF32Layout<RawBytes> lay(cs.head_dim);
  auto* p = static_cast<unsigned char*>(slice);
  const auto at = [p](std::size_t off) { return static_cast<float*>(static_cast<void*>(p + off)); };
  return Slice{at(lay.scaled_q), at(lay.acc), at(lay.scores), at(lay.row_max), at(lay.row_sum)};
}

// Rows [r0, r0 + nr) of kv head g: row i is token i / group, query head
// g * group + i % group.
struct Tile {
  int32_t g, r0, nr;
};

int32_t group_of(const CacheAttendF32& a) { return a.heads / a.cache->shape.num_kv_heads; }

// Keys per online-softmax block for nr rows: the score buffer's
// kSdpaQueryTile * kDecodeKeyBlock floats spread over the rows, a multiple of
// kDecodeKeyBlock (fewer rows, longer blocks: fewer rescalings and calls).
int32_t block_keys(int32_t nr) { return kSdpaQueryTile / nr * kBlock; }

// s[r * s_stride + j] = qs_r . K row j0 + j of kv head g, r < nr, j < nk: the
// float tile kernel, or its binary16 form for a kF16 cache (widened as read);
// for a blocked K (packed float cache) the transposed-block kernels, from the
// block of j0 (a multiple of kKvCacheKtBlock: run_keys' blocks and the key
// split's ranges start there).
void scores(const KvCache& c, const float* qs, int32_t nr, int32_t g, int32_t j0, int32_t nk,
            float* s, std::size_t s_stride) {
  const KvCacheShape& cs = c.shape;
  const auto hd = idx(cs.head_dim);
  if (kv_cache_k_blocked(cs)) {
    const std::size_t kt = kv_cache_kt_offset(cs, g, j0);
    if (cs.element == KvElement::kF16) {
      kernels::qk_tile_kt_f16_f32(qs, hd, nr, static_cast<const uint16_t*>(c.k) + kt, nk,
                                  cs.head_dim, s, s_stride);
    } else {
      kernels::qk_tile_kt_f32(qs, hd, nr, static_cast<const float*>(c.k) + kt, nk, cs.head_dim, s,
                              s_stride);
    }
    return;
  }
  const std::size_t off = kv_cache_offset(cs, g, j0);
  if (cs.element == KvElement::kF16) {
    kernels::qk_tile_f16k_f32(qs, hd, nr, static_cast<const uint16_t*>(c.k) + off, hd, nk,
                              cs.head_dim, s, s_stride);
  } else {
    kernels::qk_tile_f32(qs, hd, nr, static_cast<const float*>(c.k) + off, hd, nk, cs.head_dim, s,
                         s_stride);
  }
}

// acc[r] += sum_j p[r * p_stride + j] V row j0 + j of kv head g, as scores.
void weigh_values(const KvCache& c, const float* p, std::size_t p_stride, int32_t nr, int32_t g,
                  int32_t j0, int32_t nk, float* acc) {
  const KvCacheShape& cs = c.shape;
  const std::size_t off = kv_cache_offset(cs, g, j0);
  const auto hd = idx(cs.head_dim);
  if (cs.element == KvElement::kF16) {
    kernels::pv_tile_f16v_f32(p, p_stride, nr, nk, static_cast<const uint16_t*>(c.v) + off, hd,
                              cs.head_dim, acc, hd);
  } else {
    kernels::pv_tile_f32(p, p_stride, nr, nk, static_cast<const float*>(c.v) + off, hd, cs.head_dim,
                         acc, hd);
  }
}

// The tile's scaled query rows and empty state; limit[r] = the keys row r
// sees. Returns the most any row sees.
int32_t start_tile(const CacheAttendF32& a, const Slice& b, const Tile& t, int32_t* limit) {
  const int32_t hd = a.cache->shape.head_dim;
  const int32_t group = group_of(a);
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  int32_t kv_end = 0;
  for (int32_t r = 0; r < t.nr; ++r) {
    const int32_t i = t.r0 + r;
    const int32_t h = t.g * group + i % group;
    const float* q = a.q + idx(i / group) * a.stride + idx(h) * idx(hd);
    float* qs = b.qs + idx(r) * idx(hd);
    float* acc = b.acc + idx(r) * idx(hd);
    for (int32_t x = 0; x < hd; ++x) {
      qs[x] = q[x] * scale;
      acc[x] = 0.0f;
    }
    b.m[r] = kNegInf;
    b.l[r] = 0.0f;
    limit[r] = kv_cache_visible(a.cache->shape, a.pos0 + i / group);
    if (limit[r] > kv_end) kv_end = limit[r];
  }
  return kv_end;
}

// Keys [begin, end) of the tile's kv head into its state, block by block.
void run_keys(const CacheAttendF32& a, const Slice& b, const Tile& t, const int32_t* limit,
              int32_t begin, int32_t end) {
  const KvCacheShape& cs = a.cache->shape;
  const auto hd = idx(cs.head_dim);
  const int32_t bk = block_keys(t.nr);
  for (int32_t j0 = begin; j0 < end; j0 += bk) {
    const int32_t nk = end - j0 < bk ? end - j0 : bk;
    scores(*a.cache, b.qs, t.nr, t.g, j0, nk, b.s, idx(bk));  // [nr][nk] at row stride bk
    for (int32_t r = 0; r < t.nr; ++r) {
      for (int32_t j = limit[r] - j0 < 0 ? 0 : limit[r] - j0; j < nk; ++j) {
        b.s[idx(r) * idx(bk) + idx(j)] = kNegInf;
      }
    }
    online_softmax_rows(b.s, idx(bk), t.nr, nk, b.m, b.l, b.acc, hd, cs.head_dim);
    weigh_values(*a.cache, b.s, idx(bk), t.nr, t.g, j0, nk, b.acc);
  }
}

// out row = acc / l for the tile's rows (every row sees at least its own key).
void finish_tile(const CacheAttendF32& a, const Slice& b, const Tile& t) {
  const int32_t hd = a.cache->shape.head_dim;
  const int32_t group = group_of(a);
  for (int32_t r = 0; r < t.nr; ++r) {
    const int32_t i = t.r0 + r;
    float* o = a.out + idx(i / group) * a.stride + idx(t.g * group + i % group) * idx(hd);
    const float inv_l = 1.0f / b.l[r];
    const float* acc = b.acc + idx(r) * idx(hd);
    for (int32_t x = 0; x < hd; ++x) o[x] = acc[x] * inv_l;
  }
}

void run_tile(const CacheAttendF32& a, const Tile& t, void* slice) {
  const Slice b = carve(slice, a.cache->shape);
  int32_t limit[kRows];
  const int32_t kv_end = start_tile(a, b, t, limit);
  run_keys(a, b, t, limit, 0, kv_end);
  finish_tile(a, b, t);
}

// Tile i of every kv head's tiles (tiles per kv head each).
Tile tile_at(const CacheAttendF32& a, int32_t i, int32_t tiles) {
  const int32_t rows = a.tokens * group_of(a);
  const int32_t r0 = (i % tiles) * kSdpaQueryTile;
  return Tile{i / tiles, r0, rows - r0 < kSdpaQueryTile ? rows - r0 : kSdpaQueryTile};
}

#if ATTN_PARALLEL
// Merges the states of slices 1 .. parts - 1 into slice 0 in part order
// (rescale_state to the larger max, then sums), then writes the output rows.
void merge_parts(const CacheAttendF32& a, const Tile& t, unsigned char* slices,
                 std::size_t slice_bytes, int32_t parts) {
  const Slice b0 = carve(slices, a.cache->shape);
  const int32_t hd = a.cache->shape.head_dim;
  for (int32_t p = 1; p < parts; ++p) {
    const Slice bp = carve(slices + idx(p) * slice_bytes, a.cache->shape);
    for (int32_t r = 0; r < t.nr; ++r) {
      float* acc0 = b0.acc + idx(r) * idx(hd);
      float* accp = bp.acc + idx(r) * idx(hd);
      const float m_new = bp.m[r] > b0.m[r] ? bp.m[r] : b0.m[r];
      rescale_state(m_new, &b0.m[r], &b0.l[r], acc0, hd);
      rescale_state(m_new, &bp.m[r], &bp.l[r], accp, hd);
      b0.l[r] += bp.l[r];
      for (int32_t x = 0; x < hd; ++x) acc0[x] += accp[x];
    }
  }
  finish_tile(a, b0, t);
}

// The key split: task (g, p) runs part p of kv head g's keys in slice
// g * parts + p; then each kv head's parts are merged.
void run_key_split(const Executor& ex, const CacheAttendF32& a, void* slices, int32_t parts) {
  auto* base = static_cast<unsigned char*>(slices);
  const std::size_t slice_bytes = attend_cache_f32_slice_bytes(a.cache->shape);
  const int32_t kv_heads = a.cache->shape.num_kv_heads;
  auto part_task = [&](int32_t task, int32_t) {
    const Tile t = tile_at(a, task / parts, 1);
    const Slice b = carve(base + idx(task) * slice_bytes, a.cache->shape);
    int32_t limit[kRows];
    const int32_t kv_end = start_tile(a, b, t, limit);
    int32_t begin = 0;
    int32_t end = 0;
    key_range(kv_end, task % parts, parts, &begin, &end, kKvCacheKtBlock);
    run_keys(a, b, t, limit, begin, end);
  };
  parallel_for(ex, kv_heads * parts, part_task);
  for (int32_t g = 0; g < kv_heads; ++g) {
    merge_parts(a, tile_at(a, g, 1), base + idx(g * parts) * slice_bytes, slice_bytes, parts);
  }
}
#endif

}  // namespace

std::size_t attend_cache_f32_slice_bytes(const KvCacheShape& cache) {
  return MhaDecodeF32Layout<RawBytes>(cache.head_dim).bytes;
}

int32_t attend_cache_f32_key_parts(const CacheAttendF32& a, int32_t workers) {
  const int32_t kv_heads = a.cache->shape.num_kv_heads;
  const int32_t rows = a.tokens * group_of(a);
  if (rows > kSdpaQueryTile || kv_heads >= workers) return 1;
  const int32_t kv_end = kv_cache_visible(a.cache->shape, a.pos0 + a.tokens - 1);
  const int32_t blocks = kv_end / kBlock;
  const int32_t per_head = workers / kv_heads;
  const int32_t parts = blocks < per_head ? blocks : per_head;
  return parts < 2 ? 1 : parts;
}

void attend_cache_f32(const Executor& ex, const CacheAttendF32& a, void* slices) {
  const int32_t rows = a.tokens * group_of(a);
  const int32_t tiles = (rows + kSdpaQueryTile - 1) / kSdpaQueryTile;
  const int32_t n_tiles = a.cache->shape.num_kv_heads * tiles;
#if ATTN_PARALLEL
  const int32_t parts = attend_cache_f32_key_parts(a, ex.workers);
  if (parts > 1) {
    run_key_split(ex, a, slices, parts);
    return;
  }
  if (ex.run != nullptr && ex.workers > 1) {
    auto* base = static_cast<unsigned char*>(slices);
    const std::size_t slice_bytes = attend_cache_f32_slice_bytes(a.cache->shape);
    auto task = [&](int32_t i, int32_t worker) {
      run_tile(a, tile_at(a, i, tiles), base + idx(worker) * slice_bytes);
    };
    parallel_for(ex, n_tiles, task);
    return;
  }
#else
  (void)ex;
#endif
  for (int32_t i = 0; i < n_tiles; ++i) run_tile(a, tile_at(a, i, tiles), slices);
}

}  // namespace detail
}  // namespace attn
