// Bahdanau additive attention, float32 (see attn/bahdanau.h): the key memory
// of each tile computed into scratch, then the step's scoring of it.
#include "attn/bahdanau.h"
#include "attn/config.h"

#include <cmath>

#include "ops/bahdanau_f32_item.h"
#include "ops/op_helpers.h"

namespace attn {

namespace detail {

void bahdanau_f32_run([[maybe_unused]] const Executor& ex, const BahdanauF32Job& job,
                      void* scratch) {
#if ATTN_PARALLEL
  if (ex.workers > 1) {
    bahdanau_f32_parallel(ex, job, scratch);
    return;
  }
#endif
  const BahdanauShape& s = *job.shape;
  const BahdanauF32Work work = bahdanau_f32_work(s, scratch);
  for (int32_t b = 0; b < s.batch; ++b) {
    const QueryItem<float> it = query_item(*job.args, b, s.seq, s.query_dim, s.key_dim);
    bahdanau_with_memory_f32(job, b, [&](auto tile) {
      bahdanau_item_f32(s, *job.weights, it.query, it.keys, it.len, it.context, it.wrow, work,
                        tile);
    });
  }
}

}  // namespace detail

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
