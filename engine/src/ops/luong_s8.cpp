// Luong attention, int8: eval (see attn/luong_s8.h). Integer arithmetic only.
#include "attn/luong_s8.h"

#include "core/attend_s8.h"
#include "ops/fc_s8.h"
#include "ops/op_helpers.h"

namespace attn {

Status luong_s8(const LuongS8Params& params, const LuongS8Args& args, Scratch scratch) {
  const LuongGeneralShape& s = params.shape;
  if (args.query == nullptr || args.keys == nullptr || args.context == nullptr) {
    return Status::kNullPointer;
  }
  if (args.key_lengths != nullptr) {
    for (int32_t b = 0; b < s.batch; ++b) {
      if (args.key_lengths[b] < 0 || args.key_lengths[b] > s.seq) return Status::kBadArgument;
    }
  }
  void* ws = detail::aligned_scratch(scratch.data, scratch.bytes,
                                     luong_s8_scratch_bytes(s, params.general));
  if (ws == nullptr) return Status::kScratchTooSmall;
  const auto seq = static_cast<std::size_t>(s.seq);
  const auto qd = static_cast<std::size_t>(s.query_dim);
  const auto kd = static_cast<std::size_t>(s.key_dim);
  auto* proj = static_cast<int8_t*>(ws);
  void* core_ws = params.general ? static_cast<void*>(proj + align_up(seq * qd)) : ws;
  for (int32_t b = 0; b < s.batch; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    const int8_t* keys = args.keys + ub * seq * kd;
    detail::AttendS8 a;
    a.q = args.query + ub * qd;
    a.q_stride = qd;
    if (params.general) {
      detail::fc_s8(params.proj, keys, kd, s.seq, proj, qd);
      a.k = proj;
      a.k_stride = qd;
    } else {
      a.k = keys;
      a.k_stride = kd;
    }
    a.v = keys;
    a.v_stride = kd;
    a.out = args.context + ub * kd;
    a.out_stride = kd;
    a.weights = args.weights != nullptr ? args.weights + ub * seq : nullptr;
    a.weights_stride = seq;
    a.seq_q = 1;
    a.seq_kv = s.seq;
    a.dim_k = s.query_dim;
    a.dim_v = s.key_dim;
    detail::AttendMask m;
    m.key_length = args.key_lengths != nullptr ? args.key_lengths[b] : s.seq;
    detail::attend_s8(params.attend, a, m, core_ws);
  }
  return Status::kOk;
}

}  // namespace attn
