// Decoder-step multi-head attention, int8: eval (see attn/mha_decode_s8.h).
// Integer arithmetic only (tests/int8 checks its Cortex-M soft-float objects).
#include "attn/mha_decode_s8.h"

#include "core/attend_s8.h"
#include "core/kv_cache_rows.h"
#include "core/rope_s8.h"
#include "ops/fc_s8.h"
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
  if (cache->shape.element != KvElement::kS8) return Status::kBadArgument;
  if (cache->shape.num_kv_heads != s.num_kv_heads ||
      cache->shape.head_dim != s.embed_dim / s.num_heads ||
      cache->shape.capacity > params->capacity) {
    return Status::kShapeMismatch;
  }
  return detail::kv_cache_check_room(*cache, args.tokens);
}

// Attention of tokens [t0, t0 + nt) of every query head, the tokens' K/V
// already in the cache at positions pos0 ...
void attend_tokens(const MhaDecodeS8Params& p, const KvCache& c, const int8_t* qp, int8_t* op,
                   int32_t t0, int32_t nt, int64_t pos0, void* ws) {
  const MhaDecodeShape& s = p.shape;
  const int32_t hd = s.embed_dim / s.num_heads;
  const int32_t group = s.num_heads / s.num_kv_heads;
  const std::size_t e = idx(s.embed_dim);
  // Linear: keys 0 .. pos0 + nt - 1, causal (offset pos0). Window (nt = 1):
  // every valid slot of the ring, none masked.
  const int32_t seq_kv = detail::kv_cache_visible(c.shape, pos0 + nt - 1);
  detail::AttendMask m;
  m.causal = !c.shape.window;
  m.key_length = seq_kv;
  for (int32_t h = 0; h < s.num_heads; ++h) {
    const std::size_t col = idx(h) * idx(hd);
    const std::size_t kv = detail::kv_cache_offset(c.shape, h / group, 0);
    detail::AttendS8 a;
    a.q = qp + idx(t0) * e + col;
    a.q_stride = e;
    a.k = static_cast<const int8_t*>(c.k) + kv;
    a.k_stride = idx(hd);
    a.v = static_cast<const int8_t*>(c.v) + kv;
    a.v_stride = idx(hd);
    a.out = op + idx(t0) * e + col;
    a.out_stride = e;
    a.seq_q = nt;
    a.seq_kv = seq_kv;
    a.dim_k = hd;
    a.dim_v = hd;
    detail::attend_s8(p.attend, a, m, ws);
  }
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

Status mha_decode_s8(const MhaDecodeS8Params* params, const MhaDecodeS8Args& args,
                     KvCache* cache, Scratch scratch) {
  const Status st = validate(params, args, cache);
  if (st != Status::kOk) return st;
  const MhaDecodeShape& s = params->shape;
  void* ws = detail::aligned_scratch(scratch.data, scratch.bytes,
                                     mha_decode_s8_scratch_bytes(s, params->capacity));
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
  void* core_ws = static_cast<unsigned char*>(cs_bytes) + align_up(idx(s.rope.dims) * 4);

  const int32_t n = args.tokens;
  detail::fc_s8(params->q, args.x, e, n, qp, e);
  detail::fc_s8(params->k, args.x, e, n, kp, kvd);
  detail::fc_s8(params->v, args.x, e, n, vp, kvd);
  if (s.rope.dims > 0) rotate_tokens(*params, qp, kp, n, cache->position, cs);
  // A window appends and attends one token at a time (see mha_decode_f32).
  const int32_t step = cache->shape.window ? 1 : n;
  for (int32_t t0 = 0; t0 < n; t0 += step) {
    const int32_t nt = n - t0 < step ? n - t0 : step;
    detail::kv_cache_write(*cache, kp + idx(t0) * kvd, vp + idx(t0) * kvd, kvd, nt,
                           detail::store_s8);
    const int64_t pos0 = cache->position;
    detail::kv_cache_advance(cache, nt);
    attend_tokens(*params, *cache, qp, op, t0, nt, pos0, core_ws);
  }
  detail::fc_s8(params->out, op, e, n, args.out, e);
  return Status::kOk;
}

}  // namespace attn
