// The reference int8 kernel set (no ISA folder matches the target): every
// entry is the portable *_ref kernel. Included through kernels/s8/kernel_set.h.
#pragma once

#include <cstdint>

#define ATTN_S8_KERNELS_REF 1

namespace attn {
namespace detail {
// pv_s8_strided (dense) from this share of non-zero weights on (percent).
inline constexpr int32_t kPvDensePercent = 100;
}  // namespace detail
}  // namespace attn
