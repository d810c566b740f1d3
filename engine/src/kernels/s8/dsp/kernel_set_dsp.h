// The Cortex-M DSP-extension int8 kernel set (SXTB16, SMLAD): the row kernels,
// the softmax row, the requantization and the query-tile GEMMs.
// Included through kernels/s8/kernel_set.h.
#pragma once

#include <cstdint>

#define ATTN_S8_KERNELS_DSP 1
#define ATTN_S8_HAS_ROW_KERNELS 1  // dot, mac, qrow pack/dot, qk, pv, pv_strided, name
#define ATTN_S8_HAS_SOFTMAX_ROW 1
#define ATTN_S8_HAS_SOFTMAX_ROW_W 1  // the tiled core's weight rows
#define ATTN_S8_HAS_WEIGHTS_FROM_CODES 1
#define ATTN_S8_HAS_REQUANTIZE_ROW 1
#define ATTN_S8_HAS_ADD_TANH_DOT 1  // Bahdanau's ADD + TANH + v products
// The tile GEMMs (packings, qk/pv tile GEMMs + fused requantization,
// tile_s8_fast) on M-profile cores: their asm loops are Thumb-2 (LDRD of any
// register pair); an Armv7-A build keeps the one-row core.
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#define ATTN_S8_HAS_TILE_GEMMS 1
#define ATTN_S8_HAS_VPACK_OFFSET 1  // its V blocks are 16 round2(n) bytes
#endif

namespace attn {
namespace detail {
inline constexpr int32_t kPvDensePercent = 100;
}  // namespace detail
}  // namespace attn
