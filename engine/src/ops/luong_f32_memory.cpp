// Luong general attention, float32: the prepared key memory K'_j = h_j W (see
// attn/luong.h).
#include "attn/config.h"
#include "attn/luong.h"
#include "core/split.h"
#include "kernels/f32/kernels_f32.h"
#include "ops/op_helpers.h"

namespace attn {

Status luong_general_f32_memory(const LuongGeneralShape& shape,
                                const LuongGeneralF32Weights& weights, const float* keys,
                                float* memory, std::size_t memory_bytes, const Executor& executor) {
  if (keys == nullptr || memory == nullptr || weights.w == nullptr) return Status::kNullPointer;
  if (!detail::dims_ok({shape.batch, shape.seq, shape.query_dim, shape.key_dim})) {
    return Status::kBadShape;
  }
  if (!executor_valid(executor)) return Status::kBadArgument;
  if (memory_bytes < luong_general_f32_memory_bytes(shape)) return Status::kScratchTooSmall;
  const auto t = static_cast<std::size_t>(shape.seq);
  const auto dq = static_cast<std::size_t>(shape.query_dim);
  const auto dk = static_cast<std::size_t>(shape.key_dim);
#if ATTN_PARALLEL
  if (executor.workers > 1) {
    // Rows of K' in blocks: dense_f32 computes each row alone (any block, the same bits).
    auto rows = [&](int32_t b, int32_t r0, int32_t r1) {
      const std::size_t row = static_cast<std::size_t>(b) * t + static_cast<std::size_t>(r0);
      kernels::dense_f32(keys + row * dk, r1 - r0, shape.key_dim, weights.w, nullptr,
                         shape.query_dim, memory + row * dq);
    };
    detail::parallel_rows(executor, shape.batch, shape.seq,
                          static_cast<int64_t>(shape.key_dim) * shape.query_dim, rows);
    return Status::kOk;
  }
#endif
  for (int32_t b = 0; b < shape.batch; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    kernels::dense_f32(keys + ub * t * dk, shape.seq, shape.key_dim, weights.w, nullptr,
                       shape.query_dim, memory + ub * t * dq);
  }
  return Status::kOk;
}

}  // namespace attn
