// Bahdanau additive attention, float32 (see attn/bahdanau.h): the key memory
// of each tile computed into scratch, then the step's scoring of it.
#include "attn/bahdanau.h"

#include <cmath>

#include "ops/bahdanau_f32_item.h"
#include "ops/op_helpers.h"

namespace attn {

Status bahdanau_f32(const BahdanauShape& shape, const BahdanauF32Weights& weights,
                    const BahdanauF32Args& args, Scratch scratch) {
  const Status st =
      detail::context_entry(args, {weights.w1, weights.w2, weights.v},
                            {shape.batch, shape.seq, shape.query_dim, shape.key_dim, shape.units},
                            std::isfinite(weights.bv), shape.batch, shape.seq);
  if (st != Status::kOk) return st;
  void* ws =
      detail::aligned_scratch(scratch, bahdanau_f32_scratch_bytes(shape, args.executor.workers));
  if (ws == nullptr) return Status::kScratchTooSmall;
  detail::bahdanau_f32_run(args.executor, {&shape, &weights, &args, nullptr}, ws);
  return Status::kOk;
}

}  // namespace attn
