// Scaled dot-product attention, float32 (see attn/sdpa.h).
#include "attn/sdpa.h"

#include "core/attend_f32.h"
#include "ops/op_helpers.h"

namespace attn {

Status sdpa_f32(const SdpaShape& shape, const SdpaF32Args& args, Scratch scratch) {
  if (args.q == nullptr || args.k == nullptr || args.v == nullptr || args.out == nullptr) {
    return Status::kNullPointer;
  }
  if (!detail::dims_ok({shape.batch, shape.seq_q, shape.seq_kv, shape.dim_k, shape.dim_v})) {
    return Status::kBadShape;
  }
  float scale = 0.0f;
  if (!detail::resolve_scale(args.scale, shape.dim_k, &scale)) return Status::kBadArgument;
  const Status mask_status = detail::check_mask(args.mask, shape.batch, shape.seq_kv);
  if (mask_status != Status::kOk) return mask_status;
  const Executor& ex = args.executor;
  if (!executor_valid(ex)) return Status::kBadArgument;
  void* ws = detail::aligned_scratch(scratch.data, scratch.bytes,
                                     sdpa_f32_scratch_bytes(shape, ex.workers));
  if (ws == nullptr) return Status::kScratchTooSmall;

  const auto item = [&](int32_t b) {
    detail::AttendF32Item it{detail::sdpa_batch_item<detail::AttendF32>(shape, args, b),
                             detail::batch_mask(args.mask, b, shape.seq_kv)};
    it.a.scale = scale;
    return it;
  };
  detail::attend_f32_run(ex, shape.batch, shape.seq_q, shape.dim_k, shape.dim_v, item, ws);
  return Status::kOk;
}

}  // namespace attn
