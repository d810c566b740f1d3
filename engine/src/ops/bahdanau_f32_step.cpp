// Bahdanau attention, float32: one decoder step against the prepared key
// memory (see attn/bahdanau.h). No key is projected.
#include <cmath>

#include "attn/bahdanau.h"
#include "ops/bahdanau_f32_item.h"
#include "ops/op_helpers.h"

namespace attn {

Status bahdanau_f32_step(const BahdanauShape& shape, const BahdanauF32Weights& weights,
                         const BahdanauF32Args& args, const float* memory, std::size_t memory_bytes,
                         Scratch scratch) {
  const Status st =
      detail::context_entry(args, {memory, weights.w1, weights.v},
                            {shape.batch, shape.seq, shape.query_dim, shape.key_dim, shape.units},
                            std::isfinite(weights.bv), shape.batch, shape.seq);
  if (st != Status::kOk) return st;
  void* ws =
      detail::aligned_scratch(scratch, bahdanau_f32_scratch_bytes(shape, args.executor.workers));
  if (ws == nullptr || memory_bytes < bahdanau_f32_memory_bytes(shape)) {
    return Status::kScratchTooSmall;
  }
  detail::bahdanau_f32_run(args.executor, {&shape, &weights, &args, memory}, ws);
  return Status::kOk;
}

}  // namespace attn
