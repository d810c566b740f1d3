// Luong general attention, float32: one decoder step against the prepared key
// memory K' (see attn/luong.h). No key and no query is projected.
#include "attn/config.h"
#include "attn/luong.h"
#include "ops/luong_f32_item.h"
#include "ops/op_helpers.h"

namespace attn {

Status luong_general_f32_step(const LuongGeneralShape& shape, const LuongF32Args& args,
                              const float* memory, std::size_t memory_bytes, Scratch scratch) {
  const Status st = detail::context_entry(args, {memory},
                                          {shape.batch, shape.seq, shape.query_dim, shape.key_dim},
                                          true, shape.batch, shape.seq);
  if (st != Status::kOk) return st;
  const Executor& ex = args.executor;
  void* ws =
      detail::aligned_scratch(scratch, luong_general_f32_step_scratch_bytes(shape, ex.workers));
  if (ws == nullptr || memory_bytes < luong_general_f32_memory_bytes(shape)) {
    return Status::kScratchTooSmall;
  }
  const auto t = static_cast<std::size_t>(shape.seq);
  const auto dq = static_cast<std::size_t>(shape.query_dim);
  const auto dk = static_cast<std::size_t>(shape.key_dim);
#if ATTN_PARALLEL
  if (ex.workers > 1) {
    const detail::LuongF32Job job{&args,  shape.batch, shape.seq,       args.query,
                                  dq,     nullptr,     shape.query_dim, memory,
                                  t * dq, dq,          shape.query_dim, shape.key_dim};
    detail::luong_f32_parallel(ex, job, ws);
    return Status::kOk;
  }
#endif
  for (int32_t b = 0; b < shape.batch; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    const detail::LuongKeys keys{memory + ub * t * dq, dq, shape.query_dim, args.keys + ub * t * dk,
                                 shape.key_dim};
    detail::luong_attend_f32(
        args.query + ub * dq, keys, detail::item_length(args.key_lengths, b, shape.seq), shape.seq,
        args.context + ub * dk, detail::item_row(args.probs, b, shape.seq), ws);
  }
  return Status::kOk;
}

}  // namespace attn
