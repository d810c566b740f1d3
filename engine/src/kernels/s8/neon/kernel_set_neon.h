// The AArch64 NEON int8 kernel set (SMULL/SADALP, SDOT with +dotprod): the row
// kernels and the requantization; softmax and the tile kernels are the
// reference ones. Included through kernels/s8/kernel_set.h.
#pragma once

#include <cstdint>

#define ATTN_S8_KERNELS_NEON 1
#define ATTN_S8_HAS_ROW_KERNELS 1  // dot, mac, qrow pack/dot, qk, pv, pv_strided, name
#define ATTN_S8_HAS_REQUANTIZE_ROW 1

namespace attn {
namespace detail {
inline constexpr int32_t kPvDensePercent = 100;
}  // namespace detail
}  // namespace attn
