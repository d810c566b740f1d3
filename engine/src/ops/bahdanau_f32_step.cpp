// Bahdanau attention, float32: one decoder step against the prepared key
// memory (see attn/bahdanau.h). No key is projected.
#include <cmath>

#include "attn/bahdanau.h"
#include "attn/config.h"
#include "ops/bahdanau_f32_item.h"
#include "ops/op_helpers.h"

namespace attn {

Status bahdanau_f32_step(const BahdanauShape& shape, const BahdanauF32Weights& weights,
                         const BahdanauF32Args& args, const float* memory, std::size_t memory_bytes,
                         Scratch scratch) {
  if (args.query == nullptr || args.keys == nullptr || args.context == nullptr ||
      memory == nullptr || weights.w1 == nullptr || weights.v == nullptr) {
    return Status::kNullPointer;
  }
  if (!detail::dims_ok({shape.batch, shape.seq, shape.query_dim, shape.key_dim, shape.units})) {
    return Status::kBadShape;
  }
  const Executor& ex = args.executor;
  if (!std::isfinite(weights.bv) ||
      !detail::lengths_and_executor_ok(args.key_lengths, shape.batch, shape.seq, ex)) {
    return Status::kBadArgument;
  }
  void* ws = detail::aligned_scratch(scratch, bahdanau_f32_scratch_bytes(shape, ex.workers));
  if (ws == nullptr || memory_bytes < bahdanau_f32_memory_bytes(shape)) {
    return Status::kScratchTooSmall;
  }
#if ATTN_PARALLEL
  if (ex.workers > 1) {
    detail::bahdanau_f32_parallel(ex, {&shape, &weights, &args, memory}, ws);
    return Status::kOk;
  }
#endif
  const detail::BahdanauF32Work work = detail::bahdanau_f32_work(shape, ws);
  const auto u = static_cast<std::size_t>(shape.units);
  for (int32_t b = 0; b < shape.batch; ++b) {
    const float* m = memory + static_cast<std::size_t>(b) * static_cast<std::size_t>(shape.seq) * u;
    const auto rows = [m, u](int32_t j, float*) { return m + static_cast<std::size_t>(j) * u; };
    const detail::QueryItem<float> it =
        detail::query_item(args, b, shape.seq, shape.query_dim, shape.key_dim);
    detail::bahdanau_item_f32(shape, weights, it.query, it.keys, it.len, it.context, it.wrow, work,
                              rows);
  }
  return Status::kOk;
}

}  // namespace attn
