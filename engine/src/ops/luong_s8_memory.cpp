// Luong general attention, int8: the prepared key memory K' =
// FULLY_CONNECTED(keys, W, b) (see attn/luong_s8.h). Integer only.
#include "attn/luong_s8.h"
#include "ops/fc_s8_memory.h"

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
  detail::fc_s8_memory(executor, params.proj, s.batch, s.seq, s.key_dim, s.query_dim, keys, memory);
  return Status::kOk;
}

}  // namespace attn
