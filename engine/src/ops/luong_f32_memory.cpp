// Luong general attention, float32: the prepared key memory K'_j = h_j W (see
// attn/luong.h).
#include "attn/luong.h"
#include "kernels/f32/kernels_f32.h"
#include "ops/op_helpers.h"

namespace attn {

Status luong_general_f32_memory(const LuongGeneralShape& shape,
                                const LuongGeneralF32Weights& weights, const float* keys,
                                float* memory, std::size_t memory_bytes) {
  if (keys == nullptr || memory == nullptr || weights.w == nullptr) return Status::kNullPointer;
  if (!detail::dims_ok({shape.batch, shape.seq, shape.query_dim, shape.key_dim})) {
    return Status::kBadShape;
  }
  if (memory_bytes < luong_general_f32_memory_bytes(shape)) return Status::kScratchTooSmall;
  const auto t = static_cast<std::size_t>(shape.seq);
  for (int32_t b = 0; b < shape.batch; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    kernels::dense_f32(keys + ub * t * static_cast<std::size_t>(shape.key_dim), shape.seq,
                       shape.key_dim, weights.w, nullptr, shape.query_dim,
                       memory + ub * t * static_cast<std::size_t>(shape.query_dim));
  }
  return Status::kOk;
}

}  // namespace attn
