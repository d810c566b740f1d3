// Luong general attention, int8: the prepared key memory K' =
// FULLY_CONNECTED(keys, W, b) (see attn/luong_s8.h). Integer only.
#include "attn/luong_s8.h"
#include "ops/fc_s8.h"

namespace attn {

Status luong_general_s8_memory(const LuongS8Params& params, const int8_t* keys, int8_t* memory,
                               std::size_t memory_bytes) {
  const LuongGeneralShape& s = params.shape;
  if (keys == nullptr || memory == nullptr) return Status::kNullPointer;
  if (!params.general) return Status::kBadArgument;
  const std::size_t need = luong_general_s8_memory_bytes(s);
  if (need == 0) return Status::kBadShape;
  if (memory_bytes < need) return Status::kScratchTooSmall;
  const auto seq = static_cast<std::size_t>(s.seq);
  const auto qd = static_cast<std::size_t>(s.query_dim);
  const auto kd = static_cast<std::size_t>(s.key_dim);
  for (int32_t b = 0; b < s.batch; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    detail::fc_s8(params.proj, keys + ub * seq * kd, kd, s.seq, memory + ub * seq * qd, qd);
  }
  return Status::kOk;
}

}  // namespace attn
