// Bahdanau attention, float32: the prepared key memory M_j = h_j W2 + b2 (see
// attn/bahdanau.h), projected in the one-shot op's key tiles.
#include "attn/bahdanau.h"
#include "attn/config.h"
#include "core/split.h"
#include "ops/bahdanau_f32_item.h"
#include "ops/op_helpers.h"

namespace attn {

Status bahdanau_f32_memory(const BahdanauShape& shape, const BahdanauF32Weights& weights,
                           const float* keys, float* memory, std::size_t memory_bytes,
                           const Executor& executor) {
  if (keys == nullptr || memory == nullptr || weights.w2 == nullptr) return Status::kNullPointer;
  if (!detail::dims_ok({shape.batch, shape.seq, shape.query_dim, shape.key_dim, shape.units})) {
    return Status::kBadShape;
  }
  if (!executor_valid(executor)) return Status::kBadArgument;
  if (memory_bytes < bahdanau_f32_memory_bytes(shape)) return Status::kScratchTooSmall;
  const auto t = static_cast<std::size_t>(shape.seq);
  const auto u = static_cast<std::size_t>(shape.units);
  const auto dk = static_cast<std::size_t>(shape.key_dim);
#if ATTN_PARALLEL
  if (executor.workers > 1) {
    // Key tiles in blocks: the one-shot op's tile calls, each key tile whole.
    const int32_t tiles = (shape.seq + kBahdanauKeyTile - 1) / kBahdanauKeyTile;
    auto rows = [&](int32_t b, int32_t t0, int32_t t1) {
      const float* k = keys + static_cast<std::size_t>(b) * t * dk;
      for (int32_t j = t0 * kBahdanauKeyTile; j < t1 * kBahdanauKeyTile && j < shape.seq;
           j += kBahdanauKeyTile) {
        detail::bahdanau_memory_tile_f32(
            shape, weights, k, j,
            memory + (static_cast<std::size_t>(b) * t + static_cast<std::size_t>(j)) * u);
      }
    };
    detail::parallel_rows(executor, shape.batch, tiles,
                          static_cast<int64_t>(kBahdanauKeyTile) * shape.key_dim * shape.units,
                          rows);
    return Status::kOk;
  }
#endif
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
