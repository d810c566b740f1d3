// Luong general attention, int8: the prepared key memory K' =
// FULLY_CONNECTED(keys, W, b) (see attn/luong_s8.h). Integer only.
#include "attn/config.h"
#include "attn/luong_s8.h"
#include "core/split.h"
#include "ops/fc_s8.h"

namespace attn {

Status luong_general_s8_memory(const LuongS8Params& params, const int8_t* keys, int8_t* memory,
                               std::size_t memory_bytes, const Executor& executor) {
  const LuongGeneralShape& s = params.shape;
  if (keys == nullptr || memory == nullptr) return Status::kNullPointer;
  if (!params.general) return Status::kBadArgument;
  const std::size_t need = luong_general_s8_memory_bytes(s);
  if (need == 0) return Status::kBadShape;
  if (!executor_valid(executor)) return Status::kBadArgument;
  if (memory_bytes < need) return Status::kScratchTooSmall;
  const auto seq = static_cast<std::size_t>(s.seq);
  const auto qd = static_cast<std::size_t>(s.query_dim);
  const auto kd = static_cast<std::size_t>(s.key_dim);
#if ATTN_PARALLEL
  if (executor.workers > 1) {
    auto rows = [&](int32_t b, int32_t r0, int32_t r1) {
      const std::size_t row = static_cast<std::size_t>(b) * seq + static_cast<std::size_t>(r0);
      detail::fc_s8(params.proj, keys + row * kd, kd, r1 - r0, memory + row * qd, qd);
    };
    detail::parallel_rows(executor, s.batch, s.seq,
                          static_cast<int64_t>(s.key_dim) * s.query_dim / 4, rows);
    return Status::kOk;
  }
#endif
  for (int32_t b = 0; b < s.batch; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    detail::fc_s8(params.proj, keys + ub * seq * kd, kd, s.seq, memory + ub * seq * qd, qd);
  }
  return Status::kOk;
}

}  // namespace attn
