// Multi-head attention, int8: eval (see attn/mha_s8.h). Integer arithmetic
// only (tests/int8 checks its Cortex-M soft-float objects).
#include "attn/mha_s8.h"

#include "core/attend_s8.h"
#include "ops/fc_s8.h"
#include "ops/op_helpers.h"

namespace attn {

Status mha_s8(const MhaS8Params& params, const MhaS8Args& args, Scratch scratch) {
  const MhaShape& s = params.shape;
  if (args.query == nullptr || args.key == nullptr || args.value == nullptr ||
      args.out == nullptr) {
    return Status::kNullPointer;
  }
  Status st = detail::check_mask(args.mask, s.batch, s.seq_kv);
  if (st != Status::kOk) return st;
  st = detail::check_additive_s8(args.mask, s.batch, s.seq_q, s.seq_kv);
  if (st != Status::kOk) return st;
  void* ws = detail::aligned_scratch(scratch.data, scratch.bytes, mha_s8_scratch_bytes(s));
  if (ws == nullptr) return Status::kScratchTooSmall;

  const auto e = static_cast<std::size_t>(s.embed_dim);
  const auto sq = static_cast<std::size_t>(s.seq_q);
  const auto skv = static_cast<std::size_t>(s.seq_kv);
  const auto kd = static_cast<std::size_t>(s.kdim);
  const auto vd = static_cast<std::size_t>(s.vdim);
  const int32_t hd = s.embed_dim / s.num_heads;
  const auto uhd = static_cast<std::size_t>(hd);
  auto* qp = static_cast<int8_t*>(ws);
  int8_t* kp = qp + align_up(sq * e);
  int8_t* vp = kp + align_up(skv * e);
  int8_t* op = vp + align_up(skv * e);
  void* core_ws = op + align_up(sq * e);

  for (int32_t b = 0; b < s.batch; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    detail::fc_s8(params.q, args.query + ub * sq * e, e, s.seq_q, qp, e);
    detail::fc_s8(params.k, args.key + ub * skv * kd, kd, s.seq_kv, kp, e);
    detail::fc_s8(params.v, args.value + ub * skv * vd, vd, s.seq_kv, vp, e);
    const detail::AttendMask m = detail::batch_mask(args.mask, b, s.seq_kv);
    for (int32_t h = 0; h < s.num_heads; ++h) {
      const auto col = static_cast<std::size_t>(h) * uhd;
      detail::AttendS8 a;
      a.q = qp + col;
      a.q_stride = e;
      a.k = kp + col;
      a.k_stride = e;
      a.v = vp + col;
      a.v_stride = e;
      a.out = op + col;
      a.out_stride = e;
      if (args.weights != nullptr) {
        a.weights = args.weights + (ub * static_cast<std::size_t>(s.num_heads) +
                                    static_cast<std::size_t>(h)) * sq * skv;
        a.weights_stride = skv;
      }
      a.seq_q = s.seq_q;
      a.seq_kv = s.seq_kv;
      a.dim_k = hd;
      a.dim_v = hd;
      detail::attend_s8(params.attend, a, m, core_ws);
    }
    detail::fc_s8(params.out, op, e, s.seq_q, args.out + ub * sq * e, e);
  }
  return Status::kOk;
}

}  // namespace attn
