// The Cortex-M DSP-extension int8 kernel set (SXTB16, SMLAD): the row kernels;
// softmax, requantization and the tile kernels are the reference ones.
// Included through kernels/s8/kernel_set.h.
#pragma once

#include <cstdint>

#define ATTN_S8_KERNELS_DSP 1
#define ATTN_S8_HAS_ROW_KERNELS 1  // dot, mac, qrow pack/dot, qk, pv, pv_strided, name

namespace attn {
namespace detail {
inline constexpr int32_t kPvDensePercent = 100;
}  // namespace detail
}  // namespace attn
