// Bahdanau attention, int8: eval (see attn/bahdanau_s8.h), each key's memory
// row B_j projected into scratch, then scored as the step scores it. Integer
// only.
#include "attn/bahdanau_s8.h"
#include "attn/config.h"

#include "ops/bahdanau_s8_item.h"
#include "ops/op_helpers.h"

namespace attn {

Status bahdanau_s8(const BahdanauS8Params& params, const BahdanauS8Args& args, Scratch scratch) {
  const BahdanauShape& s = params.shape;
  if (args.query == nullptr || args.keys == nullptr || args.context == nullptr) {
    return Status::kNullPointer;
  }
  const Executor& ex = args.executor;
  if (!detail::lengths_and_executor_ok(args.key_lengths, s.batch, s.seq, ex)) {
    return Status::kBadArgument;
  }
  void* ws = detail::aligned_scratch(scratch, bahdanau_s8_scratch_bytes(s, ex.workers));
  if (ws == nullptr) return Status::kScratchTooSmall;
#if ATTN_PARALLEL
  if (ex.workers > 1) {
    detail::bahdanau_s8_parallel(ex, params, args, nullptr, ws);
    return Status::kOk;
  }
#endif
  const detail::BahdanauS8Work work = detail::bahdanau_s8_work(s, ws);
  detail::bahdanau_s8_key_terms(params, work.key_term);
  const auto kd = static_cast<std::size_t>(s.key_dim);
  const auto units = static_cast<std::size_t>(s.units);
  for (int32_t b = 0; b < s.batch; ++b) {
    const detail::QueryItem<int8_t> it = detail::query_item(args, b, s.seq, s.query_dim, s.key_dim);
    const auto project = [&](int32_t j, int8_t* buf) {
      detail::fc_s8(params.w2, it.keys + static_cast<std::size_t>(j) * kd, kd, 1, buf, units);
      return static_cast<const int8_t*>(buf);
    };
    detail::bahdanau_item_s8(params, work, it.query, it.keys, it.len, it.context, it.wrow, project);
  }
  return Status::kOk;
}

}  // namespace attn
