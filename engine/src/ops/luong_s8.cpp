// Luong attention, int8: eval (see attn/luong_s8.h). Luong general's K' of
// each batch item is projected into scratch, then attended as the step
// attends the prepared memory. Integer arithmetic only.
#include "attn/luong_s8.h"

#include "attn/config.h"

#include "ops/fc_s8.h"
#include "ops/luong_s8_item.h"
#include "ops/op_helpers.h"

namespace attn {

Status luong_s8(const LuongS8Params& params, const LuongS8Args& args, Scratch scratch) {
  const LuongGeneralShape& s = params.shape;
  const Status st = detail::context_entry(args, {}, {}, true, s.batch, s.seq);
  if (st != Status::kOk) return st;
  const Executor& ex = args.executor;
  void* ws =
      detail::aligned_scratch(scratch, luong_s8_scratch_bytes(s, params.general, ex.workers));
  if (ws == nullptr) return Status::kScratchTooSmall;
#if ATTN_PARALLEL
  if (ex.workers > 1) {
    const auto n_k = static_cast<std::size_t>(s.seq) * static_cast<std::size_t>(s.key_dim);
    const detail::LuongS8Job job{&params,
                                 &args,
                                 args.keys,
                                 n_k,
                                 static_cast<std::size_t>(s.key_dim),
                                 params.general ? &params.proj : nullptr};
    detail::luong_s8_parallel(ex, job, ws);
    return Status::kOk;
  }
#endif
  const auto seq = static_cast<std::size_t>(s.seq);
  const auto qd = static_cast<std::size_t>(s.query_dim);
  const auto kd = static_cast<std::size_t>(s.key_dim);
  auto* proj = static_cast<int8_t*>(ws);
  void* core_ws = params.general ? static_cast<void*>(proj + align_up(seq * qd)) : ws;
  for (int32_t b = 0; b < s.batch; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    const int8_t* keys = args.keys + ub * seq * kd;
    if (params.general) detail::fc_s8(params.proj, keys, kd, s.seq, proj, qd);
    detail::luong_item_s8(
        params, args.query + ub * qd, params.general ? proj : keys, params.general ? qd : kd, keys,
        args.key_lengths != nullptr ? args.key_lengths[b] : s.seq, args.context + ub * kd,
        args.probs != nullptr ? args.probs + ub * seq : nullptr, core_ws);
  }
  return Status::kOk;
}

}  // namespace attn
