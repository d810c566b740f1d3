// Scaled dot-product attention, int8: eval (see attn/sdpa_s8.h). Integer
// arithmetic only: this file must not reference a floating-point routine
// (tests/int8 checks its Cortex-M soft-float objects).
#include "attn/sdpa_s8.h"

#include "core/attend_s8.h"
#include "ops/op_helpers.h"

namespace attn {

Status sdpa_s8(const SdpaS8Params& params, const SdpaS8Args& args, Scratch scratch) {
  const SdpaShape& shape = params.shape;
  if (args.q == nullptr || args.k == nullptr || args.v == nullptr || args.out == nullptr) {
    return Status::kNullPointer;
  }
  const Status mask_status = detail::check_mask(args.mask, shape.batch, shape.seq_kv);
  if (mask_status != Status::kOk) return mask_status;
  const Status add_status =
      detail::check_additive_s8(args.mask, shape.batch, shape.seq_q, shape.seq_kv);
  if (add_status != Status::kOk) return add_status;
  const Executor& ex = args.executor;
  if (!executor_valid(ex)) return Status::kBadArgument;
  void* ws = detail::aligned_scratch(scratch.data, scratch.bytes,
                                     sdpa_s8_scratch_bytes(shape, ex.workers));
  if (ws == nullptr) return Status::kScratchTooSmall;

  const auto item = [&](int32_t b) {
    detail::AttendS8Item it{detail::sdpa_batch_item<detail::AttendS8>(shape, args, b),
                            detail::batch_mask(args.mask, b, shape.seq_kv)};
    it.a.probs_stride = static_cast<std::size_t>(shape.seq_kv);
    return it;
  };
  detail::attend_s8_run(ex, params, shape.batch, shape.seq_q, shape.seq_kv, shape.dim_v, item, ws);
  return Status::kOk;
}

}  // namespace attn
