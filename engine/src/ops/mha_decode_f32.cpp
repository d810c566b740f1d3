// Decoder-step multi-head attention, float32 (see attn/mha_decode.h).
//
// Validate; project the new tokens' Q, K, V (one pass over ranges of output
// features with an executor); rotate (RoPE); append K/V to the cache; the
// attention over the cache (core/attend_cache_f32: tiles of the group's
// (token, query head) rows per kv head, or the key split); the output
// projection.
#include "attn/mha_decode.h"

#include <cmath>

#include "attn/config.h"
#include "core/attend_cache_f32.h"
#include "core/index.h"
#include "core/kv_cache_rows.h"
#include "core/rope.h"
#include "kernels/f32/kernels_f32.h"
#include "ops/op_helpers.h"

namespace attn {
namespace {

using detail::idx;

struct Dims {
  int32_t e, heads, kv_heads, group, hd, kvd;
};

// The op's buffers before the core's slices, in the order of the formula in
// mha_decode.h.
struct Buffers {
  float *q, *o, *k, *v, *rope;
  void* slices;
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
  b.slices = p;
  return b;
}

// One projection y = x W^T + b of n_out features ([n, n_out] rows), W float32
// (w) or binary16 (w16).
struct Projection {
  const float* w;
  const uint16_t* w16;
  const float* b;
  int32_t n_out;
  float* y;
};

// Output features [j0, j1) of one projection, from W's rows j0 .. j1 - 1
// (the kernels' outputs do not depend on the range a feature falls in).
void project_rows(const float* x, int32_t n, int32_t e, const Projection& p, int32_t j0,
                  int32_t j1) {
  const std::size_t row = idx(j0) * idx(e);
  const float* bias = p.b != nullptr ? p.b + j0 : nullptr;
  if (p.w16 != nullptr) {
    kernels::gemm_nt_f16w_f32(x, idx(e), n, e, p.w16 + row, idx(e), j1 - j0, bias, false, p.y + j0,
                              idx(p.n_out));
  } else {
    kernels::gemm_nt_f32(x, idx(e), n, e, p.w + row, idx(e), j1 - j0, bias, false, p.y + j0,
                         idx(p.n_out));
  }
}

#if ATTN_PARALLEL
// Output features [j0, j1) of the projections taken as one list (p[0]'s
// features first). Every output is computed as the serial pass computes it,
// so any split gives the serial bits.
void project_range(const float* x, int32_t n, int32_t e, const Projection* p, int32_t count,
                   int32_t j0, int32_t j1) {
  int32_t first = 0;
  for (int32_t i = 0; i < count; first += p[i].n_out, ++i) {
    const int32_t b = j0 > first ? j0 - first : 0;
    const int32_t end = j1 - first < p[i].n_out ? j1 - first : p[i].n_out;
    if (b < end) project_rows(x, n, e, p[i], b, end);
  }
}

#endif

// The projections through ex: one task per worker, each a range of output
// features (multiples of 16), or each projection whole on this thread.
void project(const Executor& ex, const float* x, int32_t n, int32_t e, const Projection* p,
             int32_t count) {
#if ATTN_PARALLEL
  if (ex.run != nullptr && ex.workers > 1) {
    int32_t total = 0;
    for (int32_t i = 0; i < count; ++i) total += p[i].n_out;
    const int32_t per = ((total + ex.workers - 1) / ex.workers + 15) / 16 * 16;
    auto task = [&](int32_t c, int32_t) {
      const int32_t j0 = c * per;
      project_range(x, n, e, p, count, j0, total - j0 < per ? total : j0 + per);
    };
    parallel_for(ex, (total + per - 1) / per, task);
    return;
  }
#else
  (void)ex;
#endif
  for (int32_t i = 0; i < count; ++i) project_rows(x, n, e, p[i], 0, p[i].n_out);
}

// A weight matrix given as float32 or binary16 (set), or as both (mixed).
struct WeightGiven {
  bool set, mixed;
};
WeightGiven given(const float* w, const uint16_t* w16) {
  return {w != nullptr || w16 != nullptr, w != nullptr && w16 != nullptr};
}

Status validate(const MhaDecodeShape& shape, const MhaDecodeF32Weights& w,
                const MhaDecodeF32Args& args, const KvCache* cache, Dims* d) {
  const WeightGiven in = given(w.in_proj_weight, w.in_proj_weight_f16);
  const WeightGiven q = given(w.q_proj_weight, w.q_proj_weight_f16);
  const WeightGiven k = given(w.k_proj_weight, w.k_proj_weight_f16);
  const WeightGiven v = given(w.v_proj_weight, w.v_proj_weight_f16);
  const WeightGiven o = given(w.out_proj_weight, w.out_proj_weight_f16);
  const bool packed = in.set;
  if (cache == nullptr || cache->k == nullptr || cache->v == nullptr || args.x == nullptr ||
      args.out == nullptr || !o.set || !(packed || (q.set && k.set && v.set))) {
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
      (shape.cache_element != KvElement::kF32 && shape.cache_element != KvElement::kF16) ||
      !executor_valid(args.executor) || in.mixed || q.mixed || k.mixed || v.mixed || o.mixed) {
    return Status::kBadArgument;
  }
  return detail::kv_cache_check_room(*cache, args.tokens);
}

// Input projection `which` (0: Q, 1: K, 2: V) into y: the rows of the packed
// in_proj_weight (float32 or binary16) when given, else q/k/v_proj_weight.
Projection input_projection(const MhaDecodeF32Weights& w, const Dims& d, int32_t which, float* y) {
  const int32_t n_out = which == 0 ? d.e : d.kvd;
  if (w.in_proj_weight != nullptr || w.in_proj_weight_f16 != nullptr) {
    const std::size_t first = idx(which) * idx(d.e);  // G = heads: every block is E rows
    const std::size_t at = first * idx(d.e);
    return {w.in_proj_weight != nullptr ? w.in_proj_weight + at : nullptr,
            w.in_proj_weight_f16 != nullptr ? w.in_proj_weight_f16 + at : nullptr,
            w.in_proj_bias != nullptr ? w.in_proj_bias + first : nullptr, n_out, y};
  }
  const float* ws[3] = {w.q_proj_weight, w.k_proj_weight, w.v_proj_weight};
  const uint16_t* ws16[3] = {w.q_proj_weight_f16, w.k_proj_weight_f16, w.v_proj_weight_f16};
  const float* bs[3] = {w.q_proj_bias, w.k_proj_bias, w.v_proj_bias};
  return {ws[which], ws16[which], bs[which], n_out, y};
}

// Rotates the Q rows of every query head and the K rows of every kv head of
// the n new tokens at positions p0 .. p0 + n - 1.
void rotate_tokens(const MhaDecodeShape& shape, const Dims& d, const Buffers& b, int32_t n,
                   int64_t p0) {
  for (int32_t t = 0; t < n; ++t) {
    detail::rope_angles(p0 + t, shape.rope, b.rope);
    for (int32_t h = 0; h < d.heads; ++h) {
      detail::rope_rotate(b.q + idx(t) * idx(d.e) + idx(h * d.hd), shape.rope, b.rope);
    }
    for (int32_t g = 0; g < d.kv_heads; ++g) {
      detail::rope_rotate(b.k + idx(t) * idx(d.kvd) + idx(g * d.hd), shape.rope, b.rope);
    }
  }
}

}  // namespace

Status mha_decode_f32(const MhaDecodeShape& shape, const MhaDecodeF32Weights& weights,
                      const MhaDecodeF32Args& args, KvCache* cache, Scratch scratch) {
  Dims d{};
  const Status st = validate(shape, weights, args, cache, &d);
  if (st != Status::kOk) return st;
  const Executor& ex = args.executor;
  void* ws = detail::aligned_scratch(scratch.data, scratch.bytes,
                                     mha_decode_f32_scratch_bytes(shape, ex.workers));
  if (ws == nullptr) return Status::kScratchTooSmall;
  const Buffers b = carve(ws, shape, d);
  const int32_t n = args.tokens;
  const std::size_t e = idx(d.e);
  const Projection qkv[3] = {input_projection(weights, d, 0, b.q),
                             input_projection(weights, d, 1, b.k),
                             input_projection(weights, d, 2, b.v)};
  project(ex, args.x, n, d.e, qkv, 3);
  if (shape.rope.dims > 0) rotate_tokens(shape, d, b, n, cache->position);
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
    const std::size_t row = idx(t0) * e;
    const detail::CacheAttendF32 a{cache, b.q + row, b.o + row, e, d.heads, nt, cache->position};
    detail::kv_cache_advance(cache, nt);
    detail::attend_cache_f32(ex, a, b.slices);
  }
  const Projection out = {weights.out_proj_weight, weights.out_proj_weight_f16,
                          weights.out_proj_bias, d.e, args.out};
  project(ex, b.o, n, d.e, &out, 1);
  return Status::kOk;
}

}  // namespace attn
