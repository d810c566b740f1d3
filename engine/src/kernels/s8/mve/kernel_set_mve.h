// The Cortex-M55 Helium (MVE) int8 kernel set: the row kernels, the softmax
// row, the requantization and the query-tile GEMMs.
// Included through kernels/s8/kernel_set.h.
#pragma once

#include <cstdint>

#define ATTN_S8_KERNELS_MVE 1
#define ATTN_S8_HAS_ROW_KERNELS 1  // dot, mac, qrow pack/dot, qk, pv, pv_strided, name
#define ATTN_S8_HAS_SOFTMAX_ROW 1
#define ATTN_S8_HAS_WEIGHTS_FROM_CODES 1
#define ATTN_S8_HAS_REQUANTIZE_ROW 1
#define ATTN_S8_HAS_ADD_TANH_DOT 1  // Bahdanau's ADD + TANH + v products
#define ATTN_S8_HAS_TILE_GEMMS 1    // packings, qk/pv tile GEMMs, tile_s8_fast

namespace attn {
namespace detail {
inline constexpr int32_t kPvDensePercent = 75;
}  // namespace detail
}  // namespace attn
