// Decoder-step multi-head attention, float32 (see attn/mha_decode.h).
//
// The attention of one kv head g runs over tiles of rows (token t, query head
// h of g's group): the scaled query rows are gathered into the tile, then each
// block of kDecodeKeyBlock cached keys gives the tile's scores (qk_tile_f32),
// masked per row past its visible keys, and one online-softmax step
// (online_softmax_update, the float core's: running max, sum, acc += P V).
// A kF32 cache is read in place; a kF16 cache block is converted into the
// scratch's K/V block first.
#include "attn/mha_decode.h"

#include <cmath>
#include <limits>

#include "core/kv_cache_rows.h"
#include "core/rope.h"
#include "kernels/f32/kernels_f32.h"
#include "core/attend_f32.h"
#include "ops/op_helpers.h"

namespace attn {
namespace {

std::size_t idx(int32_t i) { return static_cast<std::size_t>(i); }
constexpr auto kRows = static_cast<std::size_t>(kSdpaQueryTile);
constexpr auto kBlock = static_cast<std::size_t>(kDecodeKeyBlock);

struct Dims {
  int32_t e, heads, kv_heads, group, hd, kvd;
};

// Scratch carved in the order of the formula in mha_decode.h.
struct Buffers {
  float *q, *o, *k, *v, *rope, *qs, *acc, *s, *m, *l, *kf, *vf;
};

Buffers carve(void* ws, const MhaDecodeShape& shape, const Dims& d) {
  auto* p = static_cast<unsigned char*>(ws);
  auto take = [&p](std::size_t count) {
    float* f = static_cast<float*>(static_cast<void*>(p));
    p += f32_bytes(count);
    return f;
  };
  const std::size_t t = idx(shape.max_tokens);
  Buffers b{};
  b.q = take(t * idx(d.e));
  b.o = take(t * idx(d.e));
  b.k = take(t * idx(d.kvd));
  b.v = take(t * idx(d.kvd));
  b.rope = take(idx(shape.rope.dims));
  b.qs = take(kRows * idx(d.hd));
  b.acc = take(kRows * idx(d.hd));
  b.s = take(kRows * kBlock);
  b.m = take(kRows);
  b.l = take(kRows);
  if (shape.cache_element == KvElement::kF16) {
    b.kf = take(kBlock * idx(d.hd));
    b.vf = take(kBlock * idx(d.hd));
  }
  return b;
}

// Rows [j0, j0 + nk) of kv head g of a cache block as floats: in place for a
// kF32 cache, converted into `conv` for kF16.
const float* cache_rows(const KvCache& c, const void* block, int32_t g, int32_t j0, int32_t nk,
                        float* conv) {
  const std::size_t off = detail::kv_cache_offset(c.shape, g, j0);
  if (c.shape.element == KvElement::kF32) return static_cast<const float*>(block) + off;
  kernels::f16_to_f32(static_cast<const uint16_t*>(block) + off, nk * c.shape.head_dim, conv);
  return conv;
}

// One tile of nr rows (row r: token t0 + (r0 + r) / group, head g * group +
// (r0 + r) % group) of kv head g, tokens t0.. at positions from pos0.
void attend_tile(const KvCache& c, const Dims& d, const Buffers& b, int32_t g, int32_t t0,
                 int64_t pos0, int32_t r0, int32_t nr) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(d.hd));
  const std::size_t hd = idx(d.hd);
  int32_t limit[kSdpaQueryTile];
  int32_t kv_end = 0;
  for (int32_t r = 0; r < nr; ++r) {
    const int32_t t = t0 + (r0 + r) / d.group;
    const int32_t h = g * d.group + (r0 + r) % d.group;
    const float* q = b.q + idx(t) * idx(d.e) + idx(h) * hd;
    for (std::size_t x = 0; x < hd; ++x) b.qs[idx(r) * hd + x] = q[x] * scale;
    for (std::size_t x = 0; x < hd; ++x) b.acc[idx(r) * hd + x] = 0.0f;
    b.m[r] = -std::numeric_limits<float>::infinity();
    b.l[r] = 0.0f;
    limit[r] = detail::kv_cache_visible(c.shape, pos0 + (t - t0));
    if (limit[r] > kv_end) kv_end = limit[r];
  }
  for (int32_t j0 = 0; j0 < kv_end; j0 += kDecodeKeyBlock) {
    const int32_t nk = kv_end - j0 < kDecodeKeyBlock ? kv_end - j0 : kDecodeKeyBlock;
    const float* k = cache_rows(c, c.k, g, j0, nk, b.kf);
    kernels::qk_tile_f32(b.qs, hd, nr, k, hd, nk, d.hd, b.s, kBlock);
    for (int32_t r = 0; r < nr; ++r) {
      for (int32_t j = limit[r] - j0 < 0 ? 0 : limit[r] - j0; j < nk; ++j) {
        b.s[idx(r) * kBlock + idx(j)] = -std::numeric_limits<float>::infinity();
      }
    }
    const float* v = cache_rows(c, c.v, g, j0, nk, b.vf);
    detail::online_softmax_update(b.s, kBlock, nr, nk, v, hd, d.hd, b.m, b.l, b.acc, hd);
  }
  for (int32_t r = 0; r < nr; ++r) {
    const int32_t t = t0 + (r0 + r) / d.group;
    const int32_t h = g * d.group + (r0 + r) % d.group;
    float* o = b.o + idx(t) * idx(d.e) + idx(h) * hd;
    const float inv_l = 1.0f / b.l[r];  // every row sees at least itself
    for (std::size_t x = 0; x < hd; ++x) o[x] = b.acc[idx(r) * hd + x] * inv_l;
  }
}

Status validate(const MhaDecodeShape& shape, const MhaDecodeF32Weights& w,
                const MhaDecodeF32Args& args, const KvCache* cache, Dims* d) {
  const bool packed = w.in_proj_weight != nullptr;
  const bool separate =
      w.q_proj_weight != nullptr && w.k_proj_weight != nullptr && w.v_proj_weight != nullptr;
  if (cache == nullptr || cache->k == nullptr || cache->v == nullptr || args.x == nullptr ||
      args.out == nullptr || w.out_proj_weight == nullptr || !(packed || separate)) {
    return Status::kNullPointer;
  }
  d->e = shape.embed_dim;
  d->heads = shape.num_heads;
  d->kv_heads = shape.num_kv_heads == 0 ? shape.num_heads : shape.num_kv_heads;
  if (!detail::dims_ok({d->e, d->heads, d->kv_heads, shape.max_tokens}) || args.tokens <= 0 ||
      args.tokens > shape.max_tokens) {
    return Status::kBadShape;
  }
  if (d->e % d->heads != 0 || d->heads % d->kv_heads != 0 || (packed && d->kv_heads != d->heads)) {
    return Status::kShapeMismatch;
  }
  d->group = d->heads / d->kv_heads;
  d->hd = d->e / d->heads;
  d->kvd = d->kv_heads * d->hd;
  if (cache->shape.num_kv_heads != d->kv_heads || cache->shape.head_dim != d->hd) {
    return Status::kShapeMismatch;
  }
  const RopeConfig& r = shape.rope;
  if (r.dims < 0 || r.dims % 2 != 0 || r.dims > d->hd || !std::isfinite(r.theta) ||
      !(r.theta > 1.0f) ||
      (r.style != RopeStyle::kHalfSplit && r.style != RopeStyle::kInterleaved)) {
    return Status::kBadArgument;
  }
  if (cache->shape.element != shape.cache_element ||
      (shape.cache_element != KvElement::kF32 && shape.cache_element != KvElement::kF16)) {
    return Status::kBadArgument;
  }
  return detail::kv_cache_check_room(*cache, args.tokens);
}

}  // namespace

Status mha_decode_f32(const MhaDecodeShape& shape, const MhaDecodeF32Weights& weights,
                      const MhaDecodeF32Args& args, KvCache* cache, Scratch scratch) {
  Dims d{};
  const Status st = validate(shape, weights, args, cache, &d);
  if (st != Status::kOk) return st;
  void* ws = detail::aligned_scratch(scratch.data, scratch.bytes, mha_decode_f32_scratch_bytes(shape));
  if (ws == nullptr) return Status::kScratchTooSmall;
  const Buffers b = carve(ws, shape, d);
  const int32_t n = args.tokens;
  const std::size_t e = idx(d.e);
  const float* in = weights.in_proj_weight;
  const float* ib = weights.in_proj_bias;
  kernels::linear_f32(args.x, n, d.e, in ? in : weights.q_proj_weight,
                      in ? ib : weights.q_proj_bias, d.e, b.q);
  kernels::linear_f32(args.x, n, d.e, in ? in + e * e : weights.k_proj_weight,
                      in ? (ib ? ib + e : nullptr) : weights.k_proj_bias, d.kvd, b.k);
  kernels::linear_f32(args.x, n, d.e, in ? in + 2 * e * e : weights.v_proj_weight,
                      in ? (ib ? ib + 2 * e : nullptr) : weights.v_proj_bias, d.kvd, b.v);
  for (int32_t t = 0; shape.rope.dims > 0 && t < n; ++t) {
    detail::rope_angles(cache->position + t, shape.rope, b.rope);
    for (int32_t h = 0; h < d.heads; ++h) {
      detail::rope_rotate(b.q + idx(t) * e + idx(h * d.hd), shape.rope, b.rope);
    }
    for (int32_t g = 0; g < d.kv_heads; ++g) {
      detail::rope_rotate(b.k + idx(t) * idx(d.kvd) + idx(g * d.hd), shape.rope, b.rope);
    }
  }
  // A window appends and attends one token at a time: the ring slot of a new
  // token may hold a key an earlier token of the chunk still sees.
  const int32_t step = cache->shape.window ? 1 : n;
  for (int32_t t0 = 0; t0 < n; t0 += step) {
    const int32_t nt = n - t0 < step ? n - t0 : step;
    const float* k = b.k + idx(t0) * idx(d.kvd);
    const float* v = b.v + idx(t0) * idx(d.kvd);
    if (cache->shape.element == KvElement::kF16) {
      detail::kv_cache_write(*cache, k, v, idx(d.kvd), nt, detail::store_f16);
    } else {
      detail::kv_cache_write(*cache, k, v, idx(d.kvd), nt, detail::store_f32);
    }
    const int64_t pos0 = cache->position;
    detail::kv_cache_advance(cache, nt);
    const int32_t rows = nt * d.group;
    for (int32_t g = 0; g < d.kv_heads; ++g) {
      for (int32_t r0 = 0; r0 < rows; r0 += kSdpaQueryTile) {
        const int32_t nr = rows - r0 < kSdpaQueryTile ? rows - r0 : kSdpaQueryTile;
        attend_tile(*cache, d, b, g, t0, pos0, r0, nr);
      }
    }
  }
  kernels::linear_f32(b.o, n, d.e, weights.out_proj_weight, weights.out_proj_bias, d.e, args.out);
  return Status::kOk;
}

}  // namespace attn
