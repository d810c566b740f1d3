// Bahdanau attention, int8: one decoder step against the prepared key memory
// (see attn/bahdanau_s8.h). No key is projected. Integer only.
#include "attn/bahdanau_s8.h"
#include "attn/config.h"
#include "ops/bahdanau_s8_item.h"
#include "ops/op_helpers.h"

namespace attn {

Status bahdanau_s8_step(const BahdanauS8Params& params, const BahdanauS8Args& args,
                        const int8_t* memory, std::size_t memory_bytes, Scratch scratch) {
  const BahdanauShape& s = params.shape;
  if (args.query == nullptr || args.keys == nullptr || args.context == nullptr ||
      memory == nullptr) {
    return Status::kNullPointer;
  }
  const Executor& ex = args.executor;
  if (!detail::lengths_and_executor_ok(args.key_lengths, s.batch, s.seq, ex)) {
    return Status::kBadArgument;
  }
  void* ws = detail::aligned_scratch(scratch, bahdanau_s8_scratch_bytes(s, ex.workers));
  if (ws == nullptr || memory_bytes < bahdanau_s8_memory_bytes(s)) return Status::kScratchTooSmall;
#if ATTN_PARALLEL
  if (ex.workers > 1) {
    detail::bahdanau_s8_parallel(ex, params, args, memory, ws);
    return Status::kOk;
  }
#endif
  const detail::BahdanauS8Work work = detail::bahdanau_s8_work(s, ws);
  detail::bahdanau_s8_key_terms(params, work.key_term);
  const auto units = static_cast<std::size_t>(s.units);
  for (int32_t b = 0; b < s.batch; ++b) {
    const int8_t* m = memory +
                      static_cast<std::size_t>(b) * static_cast<std::size_t>(s.seq) * units;
    const auto rows = [m, units](int32_t j, int8_t*) {
      return m + static_cast<std::size_t>(j) * units;
    };
    const detail::QueryItem<int8_t> it = detail::query_item(args, b, s.seq, s.query_dim, s.key_dim);
    detail::bahdanau_item_s8(params, work, it.query, it.keys, it.len, it.context, it.wrow, rows);
  }
  return Status::kOk;
}

}  // namespace attn
