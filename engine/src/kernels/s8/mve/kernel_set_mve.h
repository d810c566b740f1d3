// The Cortex-M55 Helium (MVE) int8 kernel set: the row kernels, the softmax
// row and the requantization; the tile kernels are the reference ones.
// Included through kernels/s8/kernel_set.h.
#pragma once

#include <cstdint>

#define ATTN_S8_KERNELS_MVE 1
#define ATTN_S8_HAS_ROW_KERNELS 1  // dot, mac, qrow pack/dot, qk, pv, pv_strided, name
#define ATTN_S8_HAS_SOFTMAX_ROW 1
#define ATTN_S8_HAS_REQUANTIZE_ROW 1

namespace attn {
namespace detail {
inline constexpr int32_t kPvDensePercent = 75;
}  // namespace detail
}  // namespace attn
