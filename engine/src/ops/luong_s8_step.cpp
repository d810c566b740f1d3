// Luong general attention, int8: one decoder step against the prepared key
// memory K' (see attn/luong_s8.h). No key is projected. Integer only.
#include "attn/config.h"
#include "attn/luong_s8.h"
#include "ops/luong_s8_item.h"
#include "ops/op_helpers.h"

namespace attn {

Status luong_general_s8_step(const LuongS8Params& params, const LuongS8Args& args,
                             const int8_t* memory, std::size_t memory_bytes, Scratch scratch) {
  const LuongGeneralShape& s = params.shape;
  const Status st = detail::context_entry(args, {memory}, {}, params.general, s.batch, s.seq);
  if (st != Status::kOk) return st;
  const Executor& ex = args.executor;
  void* ws = detail::aligned_scratch(scratch, luong_general_s8_step_scratch_bytes(s, ex.workers));
  if (ws == nullptr || memory_bytes < luong_general_s8_memory_bytes(s)) {
    return Status::kScratchTooSmall;
  }
  const auto seq = static_cast<std::size_t>(s.seq);
  const auto qd = static_cast<std::size_t>(s.query_dim);
#if ATTN_PARALLEL
  if (ex.workers > 1) {
    detail::luong_s8_parallel(ex, {&params, &args, memory, seq * qd, qd, nullptr}, ws);
    return Status::kOk;
  }
#endif
  const auto kd = static_cast<std::size_t>(s.key_dim);
  for (int32_t b = 0; b < s.batch; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    detail::luong_item_s8(params, args.query + ub * qd, memory + ub * seq * qd, qd,
                          args.keys + ub * seq * kd,
                          detail::item_length(args.key_lengths, b, s.seq), args.context + ub * kd,
                          detail::item_row(args.probs, b, s.seq), ws);
  }
  return Status::kOk;
}

}  // namespace attn
