// Argument checks shared by the ops' prepare step (internal).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "attn/mask.h"
#include "attn/status.h"
#include "core/attend_f32.h"

namespace attn {
namespace detail {

// Largest dimension the engine accepts: keeps every element count and byte
// offset far from overflowing size_t on 32-bit targets when multiplied in pairs.
inline constexpr int32_t kMaxDim = 1 << 20;

inline bool dims_ok(std::initializer_list<int32_t> dims) {
  for (int32_t d : dims) {
    if (d <= 0 || d > kMaxDim) return false;
  }
  return true;
}

// Resolves the user's scale (0 = 1/sqrt(dim_k)); returns false when invalid.
inline bool resolve_scale(float user_scale, int32_t dim_k, float* scale) {
  if (user_scale == 0.0f) {
    *scale = 1.0f / std::sqrt(static_cast<float>(dim_k));
    return true;
  }
  if (!(user_scale > 0.0f) || std::isinf(user_scale)) return false;
  *scale = user_scale;
  return true;
}

// Checks the key lengths of a mask against seq_kv.
inline Status check_mask(const Mask& mask, int32_t batch, int32_t seq_kv) {
  if (mask.key_lengths != nullptr) {
    for (int32_t b = 0; b < batch; ++b) {
      if (mask.key_lengths[b] < 0 || mask.key_lengths[b] > seq_kv) return Status::kBadArgument;
    }
  }
  return Status::kOk;
}

// The mask of batch item b, for a seq_q x seq_kv attention.
inline AttendMask batch_mask(const Mask& mask, int32_t b, int32_t seq_kv) {
  AttendMask m;
  m.causal = mask.causal;
  m.key_length = mask.key_lengths != nullptr ? mask.key_lengths[b] : seq_kv;
  const std::size_t off = static_cast<std::size_t>(b) * mask.matrix_batch_stride;
  m.keras = mask.keras != nullptr ? mask.keras + off : nullptr;
  m.additive = mask.additive != nullptr ? mask.additive + off : nullptr;
  m.boolean = mask.boolean != nullptr ? mask.boolean + off : nullptr;
  return m;
}

}  // namespace detail
}  // namespace attn
