// Bahdanau attention, int8: the prepared key memory B_j =
// FULLY_CONNECTED(h_j, W2, b2) (see attn/bahdanau_s8.h). Integer only.
#include "attn/bahdanau_s8.h"
#include "attn/config.h"
#include "core/split.h"
#include "ops/fc_s8.h"

namespace attn {

Status bahdanau_s8_memory(const BahdanauS8Params& params, const int8_t* keys, int8_t* memory,
                          std::size_t memory_bytes, const Executor& executor) {
  const BahdanauShape& s = params.shape;
  if (keys == nullptr || memory == nullptr) return Status::kNullPointer;
  const std::size_t need = bahdanau_s8_memory_bytes(s);
  if (need == 0) return Status::kBadShape;
  if (!executor_valid(executor)) return Status::kBadArgument;
  if (memory_bytes < need) return Status::kScratchTooSmall;
  const auto kd = static_cast<std::size_t>(s.key_dim);
  const auto rows = static_cast<std::size_t>(s.seq);
  const auto units = static_cast<std::size_t>(s.units);
#if ATTN_PARALLEL
  if (executor.workers > 1) {
    auto block = [&](int32_t b, int32_t r0, int32_t r1) {
      const std::size_t row = static_cast<std::size_t>(b) * rows + static_cast<std::size_t>(r0);
      detail::fc_s8(params.w2, keys + row * kd, kd, r1 - r0, memory + row * units, units);
    };
    detail::parallel_rows(executor, s.batch, s.seq, static_cast<int64_t>(s.key_dim) * s.units / 4,
                          block);
    return Status::kOk;
  }
#endif
  for (int32_t b = 0; b < s.batch; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    detail::fc_s8(params.w2, keys + ub * rows * kd, kd, s.seq, memory + ub * rows * units, units);
  }
  return Status::kOk;
}

}  // namespace attn
