// Bahdanau attention, int8: the prepared key memory B_j =
// FULLY_CONNECTED(h_j, W2, b2) (see attn/bahdanau_s8.h). Integer only.
#include "attn/bahdanau_s8.h"
#include "ops/fc_s8.h"

namespace attn {

Status bahdanau_s8_memory(const BahdanauS8Params& params, const int8_t* keys, int8_t* memory,
                          std::size_t memory_bytes) {
  const BahdanauShape& s = params.shape;
  if (keys == nullptr || memory == nullptr) return Status::kNullPointer;
  const std::size_t need = bahdanau_s8_memory_bytes(s);
  if (need == 0) return Status::kBadShape;
  if (memory_bytes < need) return Status::kScratchTooSmall;
  const auto kd = static_cast<std::size_t>(s.key_dim);
  const auto rows = static_cast<std::size_t>(s.seq);
  const auto units = static_cast<std::size_t>(s.units);
  for (int32_t b = 0; b < s.batch; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    detail::fc_s8(params.w2, keys + ub * rows * kd, kd, s.seq, memory + ub * rows * units, units);
  }
  return Status::kOk;
}

}  // namespace attn
