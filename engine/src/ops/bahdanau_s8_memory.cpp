// Bahdanau attention, int8: the prepared key memory B_j =
// FULLY_CONNECTED(h_j, W2, b2) (see attn/bahdanau_s8.h). Integer only.
#include "attn/bahdanau_s8.h"
#include "ops/fc_s8_memory.h"

namespace attn {

Status bahdanau_s8_memory(const BahdanauS8Params& params, const int8_t* keys, int8_t* memory,
                          std::size_t memory_bytes, const Executor& executor) {
  const BahdanauShape& s = params.shape;
  if (keys == nullptr || memory == nullptr) return Status::kNullPointer;
  const std::size_t need = bahdanau_s8_memory_bytes(s);
  if (need == 0) return Status::kBadShape;
  if (!executor_valid(executor)) return Status::kBadArgument;
  if (memory_bytes < need) return Status::kScratchTooSmall;
  detail::fc_s8_memory(executor, params.w2, s.batch, s.seq, s.key_dim, s.units, keys, memory);
  return Status::kOk;
}

}  // namespace attn
