// Decoder-step multi-head attention, int8: eval (see attn/mha_decode_s8.h).
// Integer arithmetic only (tests/int8 checks its Cortex-M soft-float objects).
#include "attn/mha_decode_s8.h"

#include "attn/config.h"
#include "core/attend_cache_s8.h"
#include "core/index.h"
#include "core/kv_cache_packed.h"
#include "core/kv_cache_rows.h"
#include "core/rope_s8.h"
#include "ops/fc_s8_channels.h"
#include "ops/op_helpers.h"

namespace attn {
namespace {

using detail::idx;

Status validate(const MhaDecodeS8Params* params, const MhaDecodeS8Args& args,
                const KvCache* cache) {
  if (params == nullptr || cache == nullptr || cache->k == nullptr || cache->v == nullptr ||
      args.x == nullptr || args.out == nullptr) {
    return Status::kNullPointer;
  }
  const MhaDecodeShape& s = params->shape;
  if (args.tokens <= 0 || args.tokens > s.max_tokens) return Status::kBadShape;
  if (cache->shape.element != KvElement::kS8 || !executor_valid(args.executor)) {
    return Status::kBadArgument;
  }
  if (cache->shape.num_kv_heads != s.num_kv_heads ||
      cache->shape.head_dim != s.embed_dim / s.num_heads ||
      cache->shape.capacity > params->capacity) {
    return Status::kShapeMismatch;
  }
  return detail::kv_cache_check_room(*cache, args.tokens);
}

// One projection of the n rows of x ([n, E]) into y ([n, layer.out_features]).
struct Projection {
  const FcS8Layer* layer;
  int8_t* y;
};

// The projections through ex: one task per worker, each a range of output
// channels of the projections taken as one list (multiples of
// kMhaDecodeS8Channels), in the worker's slice; or all on this thread in
// slice 0. Integer results: any split gives the serial bits.
__attribute__((noinline)) void project(const Executor& ex, const int8_t* x, int32_t n,
                                       std::size_t e, const Projection* p, int32_t count,
                                       unsigned char* slices, std::size_t slice_bytes) {
  int32_t total = 0;
  for (int32_t i = 0; i < count; ++i) total += p[i].layer->out_features;
  const auto range = [&](int32_t j0, int32_t j1, void* ws) {
    int32_t first = 0;
    for (int32_t i = 0; i < count; first += p[i].layer->out_features, ++i) {
      const int32_t b = j0 > first ? j0 - first : 0;
      const int32_t out = p[i].layer->out_features;
      const int32_t end = j1 - first < out ? j1 - first : out;
      if (b < end) detail::fc_s8_channels(*p[i].layer, x, e, n, p[i].y, idx(out), b, end, ws);
    }
  };
#if ATTN_PARALLEL
  if (ex.run != nullptr && ex.workers > 1) {
    constexpr int32_t kC = kMhaDecodeS8Channels;
    const int32_t per = ((total + ex.workers - 1) / ex.workers + kC - 1) / kC * kC;
    auto task = [&](int32_t c, int32_t worker) {
      const int32_t j0 = c * per;
      range(j0, total - j0 < per ? total : j0 + per, slices + idx(worker) * slice_bytes);
    };
    parallel_for(ex, (total + per - 1) / per, task);
    return;
  }
#else
  (void)ex;
  (void)slice_bytes;
#endif
  range(0, total, slices);
}

// Rotates the Q rows of every query head and the K rows of every kv head of
// the n new tokens at positions p0 .. p0 + n - 1 (cs: dims int32).
void rotate_tokens(const MhaDecodeS8Params& p, int8_t* qp, int8_t* kp, int32_t n, int64_t p0,
                   int32_t* cs) {
  const MhaDecodeShape& s = p.shape;
  const int32_t hd = s.embed_dim / s.num_heads;
  const std::size_t e = idx(s.embed_dim);
  const std::size_t kvd = idx(s.num_kv_heads) * idx(hd);
  const int32_t q_zp = p.attend.q_zero_point;
  const int32_t k_zp = p.attend.k_zero_point;
  for (int32_t t = 0; t < n; ++t) {
    detail::rope_s8_angles(p0 + t, s.rope.dims, p.rope_ratio, cs);
    for (int32_t h = 0; h < s.num_heads; ++h) {
      detail::rope_s8_rotate(qp + idx(t) * e + idx(h * hd), s.rope, q_zp, cs);
    }
    for (int32_t g = 0; g < s.num_kv_heads; ++g) {
      detail::rope_s8_rotate(kp + idx(t) * kvd + idx(g * hd), s.rope, k_zp, cs);
    }
  }
}

// The eval scratch, carved in the order of the formula in mha_decode_s8.h.
struct Buffers {
  int8_t *q, *o, *k, *v;
  int32_t* cs;            // rotary cos/sin
  unsigned char* slices;  // per worker
  std::size_t slice_bytes;
};

// The checks, the scratch and its buffers (kOk when *b is set). Not inlined,
// nor are the steps below: mha_decode_s8's own frame then stays small on the
// Cortex-M stack path through the attention (stack_budget.json).
__attribute__((noinline)) Status prepare(const MhaDecodeS8Params* params,
                                         const MhaDecodeS8Args& args, const KvCache* cache,
                                         Scratch scratch, Buffers* b) {
  const Status st = validate(params, args, cache);
  if (st != Status::kOk) return st;
  const MhaDecodeShape& s = params->shape;
  const bool kv_packed = cache->packed != nullptr;
  void* ws = detail::aligned_scratch(scratch.data, scratch.bytes,
                                     sat::to_size(mha_decode_s8_scratch_bytes64(
                                         s, params->capacity, args.executor.workers, kv_packed)));
  if (ws == nullptr) return Status::kScratchTooSmall;
  const std::size_t e = idx(s.embed_dim);
  const std::size_t kvd = idx(s.num_kv_heads) * (e / idx(s.num_heads));
  const std::size_t t = idx(s.max_tokens);
  b->q = static_cast<int8_t*>(ws);
  b->o = b->q + align_up(t * e);
  b->k = b->o + align_up(t * e);
  b->v = b->k + align_up(t * kvd);
  void* cs_bytes = b->v + align_up(t * kvd);  // 64-byte aligned
  b->cs = static_cast<int32_t*>(cs_bytes);
  b->slices = static_cast<unsigned char*>(cs_bytes) + align_up(idx(s.rope.dims) * 4);
  b->slice_bytes = static_cast<std::size_t>(
      mha_decode_s8_slice_bytes64(s.embed_dim, s.embed_dim / s.num_heads, params->capacity,
                                  mha_decode_s8_core_rows(s), kv_packed));
  return Status::kOk;
}

// Q, K, V of the n new tokens, Q and K rotated at their positions.
__attribute__((noinline)) void project_qkv(const MhaDecodeS8Params& p, const MhaDecodeS8Args& args,
                                           const KvCache& cache, const Buffers& b) {
  const Projection qkv[3] = {{&p.q, b.q}, {&p.k, b.k}, {&p.v, b.v}};
  project(args.executor, args.x, args.tokens, idx(p.shape.embed_dim), qkv, 3, b.slices,
          b.slice_bytes);
  if (p.shape.rope.dims > 0) rotate_tokens(p, b.q, b.k, args.tokens, cache.position, b.cs);
}

// kv_cache_write of int8 rows, and their packed blocks in a packed cache (its
// own frame, off the attention's path).
__attribute__((noinline)) void append(const KvCache& cache, const int8_t* k, const int8_t* v,
                                      std::size_t stride, int32_t n) {
  detail::kv_cache_write(cache, k, v, stride, n, detail::store_s8);
  detail::kv_cache_pack_s8(cache, n);
}

// Appends the n tokens' K/V and attends over the cache: all at once in a
// linear cache, one token at a time in a window (the ring slot of a new token
// may hold a key an earlier token of the chunk still sees).
__attribute__((noinline)) void attend_steps(const Executor& ex, const MhaDecodeS8Params& p,
                                            KvCache* cache, const Buffers& b, int32_t n) {
  const std::size_t e = idx(p.shape.embed_dim);
  const std::size_t kvd = idx(p.shape.num_kv_heads) * (e / idx(p.shape.num_heads));
  const int32_t step = cache->shape.window ? 1 : n;
  for (int32_t t0 = 0; t0 < n; t0 += step) {
    const int32_t nt = n - t0 < step ? n - t0 : step;
    append(*cache, b.k + idx(t0) * kvd, b.v + idx(t0) * kvd, kvd, nt);
    const std::size_t row = idx(t0) * e;
    const int32_t heads = p.shape.num_heads;
    const detail::CacheAttendS8 a{cache, b.q + row, b.o + row, e, heads, nt, cache->position};
    detail::kv_cache_advance(cache, nt);
    detail::attend_cache_s8(ex, p.attend, a, b.slices);
  }
}

}  // namespace

Status mha_decode_s8(const MhaDecodeS8Params* params, const MhaDecodeS8Args& args, KvCache* cache,
                     Scratch scratch) {
  Buffers b{};
  const Status st = prepare(params, args, cache, scratch, &b);
  if (st != Status::kOk) return st;
  project_qkv(*params, args, *cache, b);
  attend_steps(args.executor, *params, cache, b, args.tokens);
  const Projection out = {&params->out, args.out};
  project(args.executor, b.o, args.tokens, idx(params->shape.embed_dim), &out, 1, b.slices,
          b.slice_bytes);
  return Status::kOk;
}

}  // namespace attn
