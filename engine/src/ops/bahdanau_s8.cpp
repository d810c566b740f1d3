// Bahdanau attention, int8: eval (see attn/bahdanau_s8.h), each key's memory
// row B_j projected into scratch, then scored as the step scores it. Integer
// only.
#include "attn/bahdanau_s8.h"

#include "ops/bahdanau_s8_item.h"
#include "ops/op_helpers.h"

namespace attn {

Status bahdanau_s8(const BahdanauS8Params& params, const BahdanauS8Args& args, Scratch scratch) {
  const BahdanauShape& s = params.shape;
  const Status st = detail::context_entry(args, {}, {}, true, s.batch, s.seq);
  if (st != Status::kOk) return st;
  void* ws = detail::aligned_scratch(scratch, bahdanau_s8_scratch_bytes(s, args.executor.workers));
  if (ws == nullptr) return Status::kScratchTooSmall;
  detail::bahdanau_s8_run(args.executor, params, args, nullptr, ws);
  return Status::kOk;
}

}  // namespace attn
