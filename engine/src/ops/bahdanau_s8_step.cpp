// Bahdanau attention, int8: one decoder step against the prepared key memory
// (see attn/bahdanau_s8.h). No key is projected. Integer only.
#include "attn/bahdanau_s8.h"
#include "ops/bahdanau_s8_item.h"
#include "ops/op_helpers.h"

namespace attn {

Status bahdanau_s8_step(const BahdanauS8Params& params, const BahdanauS8Args& args,
                        const int8_t* memory, std::size_t memory_bytes, Scratch scratch) {
  const BahdanauShape& s = params.shape;
  const Status st = detail::context_entry(args, {memory}, {}, true, s.batch, s.seq);
  if (st != Status::kOk) return st;
  void* ws = detail::aligned_scratch(scratch, bahdanau_s8_scratch_bytes(s, args.executor.workers));
  if (ws == nullptr || memory_bytes < bahdanau_s8_memory_bytes(s)) return Status::kScratchTooSmall;
  detail::bahdanau_s8_run(args.executor, params, args, memory, ws);
  return Status::kOk;
}

}  // namespace attn
