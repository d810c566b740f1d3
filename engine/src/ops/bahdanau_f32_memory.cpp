// Bahdanau attention, float32: the prepared key memory M_j = h_j W2 + b2 (see
// attn/bahdanau.h), projected in the one-shot op's key tiles.
#include "attn/bahdanau.h"
#include "ops/bahdanau_f32_item.h"
#include "ops/op_helpers.h"

namespace attn {

Status bahdanau_f32_memory(const BahdanauShape& shape, const BahdanauF32Weights& weights,
                           const float* keys, float* memory, std::size_t memory_bytes) {
  if (keys == nullptr || memory == nullptr || weights.w2 == nullptr) return Status::kNullPointer;
  if (!detail::dims_ok({shape.batch, shape.seq, shape.query_dim, shape.key_dim, shape.units})) {
    return Status::kBadShape;
  }
  if (memory_bytes < bahdanau_f32_memory_bytes(shape)) return Status::kScratchTooSmall;
  const auto t = static_cast<std::size_t>(shape.seq);
  const auto u = static_cast<std::size_t>(shape.units);
  const auto dk = static_cast<std::size_t>(shape.key_dim);
  for (int32_t b = 0; b < shape.batch; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    for (int32_t j = 0; j < shape.seq; j += kBahdanauKeyTile) {
      detail::bahdanau_memory_tile_f32(shape, weights, keys + ub * t * dk, j,
                                       memory + (ub * t + static_cast<std::size_t>(j)) * u);
    }
  }
  return Status::kOk;
}

}  // namespace attn
