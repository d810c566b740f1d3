// Bahdanau attention, int8: eval (see attn/bahdanau_s8.h), each key's memory
// row B_j projected into scratch, then scored as the step scores it. Integer
// only.
#include "attn/bahdanau_s8.h"
#include "attn/config.h"

#include "ops/bahdanau_s8_item.h"
#include "ops/op_helpers.h"

namespace attn {

namespace detail {

void bahdanau_s8_run([[maybe_unused]] const Executor& ex, const BahdanauS8Params& params,
                     const BahdanauS8Args& args, const int8_t* memory, void* scratch) {
#if ATTN_PARALLEL
  if (ex.workers > 1) {
    bahdanau_s8_parallel(ex, params, args, memory, scratch);
    return;
  }
#endif
  const BahdanauShape& s = params.shape;
  const BahdanauS8Work work = bahdanau_s8_work(s, scratch);
  bahdanau_s8_key_terms(params, work.key_term);
  for (int32_t b = 0; b < s.batch; ++b) {
    const QueryItem<int8_t> it = query_item(args, b, s.seq, s.query_dim, s.key_dim);
    bahdanau_with_memory_s8(params, args, memory, b, [&](auto row) {
      bahdanau_item_s8(params, work, it.query, it.keys, it.len, it.context, it.wrow, row);
    });
  }
}

}  // namespace detail

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
