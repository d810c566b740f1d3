// Decoder-step multi-head attention, int8: eval (see attn/mha_decode_s8.h).
// Integer arithmetic only (tests/int8 checks its Cortex-M soft-float objects).
#include "attn/mha_decode_s8.h"

#include "attn/config.h"
#include "core/attend_cache_s8.h"
#include "core/kv_cache_rows.h"
#include "core/rope_s8.h"
#include "ops/fc_s8_channels.h"
#include "ops/op_helpers.h"

namespace attn {
namespace {

std::size_t idx(int32_t i) { return static_cast<std::size_t>(i); }

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
void project(const Executor& ex, const int8_t* x, int32_t n, std::size_t e, const Projection* p,
             int32_t count, unsigned char* slices, std::size_t slice_bytes) {
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

}  // namespace

Status mha_decode_s8(const MhaDecodeS8Params* params, const MhaDecodeS8Args& args, KvCache* cache,
                     Scratch scratch) {
  const Status st = validate(params, args, cache);
  if (st != Status::kOk) return st;
  const MhaDecodeShape& s = params->shape;
  const Executor& ex = args.executor;
  void* ws = detail::aligned_scratch(scratch.data, scratch.bytes,
                                     mha_decode_s8_scratch_bytes(s, params->capacity, ex.workers));
  if (ws == nullptr) return Status::kScratchTooSmall;
  const std::size_t e = idx(s.embed_dim);
  const std::size_t kvd = idx(s.num_kv_heads) * (e / idx(s.num_heads));
  const std::size_t t = idx(s.max_tokens);
  auto* qp = static_cast<int8_t*>(ws);
  int8_t* op = qp + align_up(t * e);
  int8_t* kp = op + align_up(t * e);
  int8_t* vp = kp + align_up(t * kvd);
  void* cs_bytes = vp + align_up(t * kvd);  // 64-byte aligned
  auto* cs = static_cast<int32_t*>(cs_bytes);
  auto* slices = static_cast<unsigned char*>(cs_bytes) + align_up(idx(s.rope.dims) * 4);
  const auto slice_bytes = static_cast<std::size_t>(
      mha_decode_s8_slice_bytes64(s.embed_dim, s.embed_dim / s.num_heads, params->capacity));

  const int32_t n = args.tokens;
  const Projection qkv[3] = {{&params->q, qp}, {&params->k, kp}, {&params->v, vp}};
  project(ex, args.x, n, e, qkv, 3, slices, slice_bytes);
  if (s.rope.dims > 0) rotate_tokens(*params, qp, kp, n, cache->position, cs);
  // A window appends and attends one token at a time (see mha_decode_f32).
  const int32_t step = cache->shape.window ? 1 : n;
  for (int32_t t0 = 0; t0 < n; t0 += step) {
    const int32_t nt = n - t0 < step ? n - t0 : step;
    detail::kv_cache_write(*cache, kp + idx(t0) * kvd, vp + idx(t0) * kvd, kvd, nt,
                           detail::store_s8);
    const int64_t pos0 = cache->position;
    detail::kv_cache_advance(cache, nt);
    detail::CacheAttendS8 a;
    a.cache = cache;
    a.q = qp + idx(t0) * e;
    a.out = op + idx(t0) * e;
    a.stride = e;
    a.heads = s.num_heads;
    a.tokens = nt;
    a.pos0 = pos0;
    detail::attend_cache_s8(ex, params->attend, a, slices);
  }
  const Projection out = {&params->out, args.out};
  project(ex, op, n, e, &out, 1, slices, slice_bytes);
  return Status::kOk;
}

}  // namespace attn
