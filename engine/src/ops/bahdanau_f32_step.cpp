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
  if (!std::isfinite(weights.bv)) return Status::kBadArgument;
  Mask lengths;
  lengths.key_lengths = args.key_lengths;
  const Status st = detail::check_mask(lengths, shape.batch, shape.seq);
  if (st != Status::kOk) return st;
  const Executor& ex = args.executor;
  if (!executor_valid(ex)) return Status::kBadArgument;
  void* ws = detail::aligned_scratch(scratch.data, scratch.bytes,
                                     bahdanau_f32_scratch_bytes(shape, ex.workers));
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
  const auto dk = static_cast<std::size_t>(shape.key_dim);
  const auto t = static_cast<std::size_t>(shape.seq);
  const auto u = static_cast<std::size_t>(shape.units);
  for (int32_t b = 0; b < shape.batch; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    const float* item_memory = memory + ub * t * u;
    const auto rows = [item_memory, u](int32_t j, float*) {
      return item_memory + static_cast<std::size_t>(j) * u;
    };
    detail::bahdanau_item_f32(
        shape, weights, args.query + ub * static_cast<std::size_t>(shape.query_dim),
        args.keys + ub * t * dk, args.key_lengths != nullptr ? args.key_lengths[b] : shape.seq,
        args.context + ub * dk, args.weights != nullptr ? args.weights + ub * t : nullptr, work,
        rows);
  }
  return Status::kOk;
}

}  // namespace attn
