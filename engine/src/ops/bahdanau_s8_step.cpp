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
  Mask lengths;
  lengths.key_lengths = args.key_lengths;
  if (detail::check_mask(lengths, s.batch, s.seq) != Status::kOk) return Status::kBadArgument;
  const Executor& ex = args.executor;
  if (!executor_valid(ex)) return Status::kBadArgument;
  void* ws = detail::aligned_scratch(scratch.data, scratch.bytes,
                                     bahdanau_s8_scratch_bytes(s, ex.workers));
  if (ws == nullptr || memory_bytes < bahdanau_s8_memory_bytes(s)) return Status::kScratchTooSmall;
#if ATTN_PARALLEL
  if (ex.workers > 1) {
    detail::bahdanau_s8_parallel(ex, params, args, memory, ws);
    return Status::kOk;
  }
#endif
  const detail::BahdanauS8Work work = detail::bahdanau_s8_work(s, ws);
  detail::bahdanau_s8_key_terms(params, work.key_term);
  const auto seq = static_cast<std::size_t>(s.seq);
  const auto kd = static_cast<std::size_t>(s.key_dim);
  const auto units = static_cast<std::size_t>(s.units);
  for (int32_t b = 0; b < s.batch; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    const int8_t* item_memory = memory + ub * seq * units;
    const auto rows = [item_memory, units](int32_t j, int8_t*) {
      return item_memory + static_cast<std::size_t>(j) * units;
    };
    detail::bahdanau_item_s8(
        params, work, args.query + ub * static_cast<std::size_t>(s.query_dim),
        args.keys + ub * seq * kd, args.key_lengths != nullptr ? args.key_lengths[b] : s.seq,
        args.context + ub * kd, args.weights != nullptr ? args.weights + ub * seq : nullptr, rows);
  }
  return Status::kOk;
}

}  // namespace attn
