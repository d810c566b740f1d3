// The x86-64 int8 kernel set (GCC/Clang): every kernel, chosen at run time
// from the CPU among scalar, AVX2, AVX-VNNI and AVX-512 VNNI (x86/). Included
// through kernels/s8/kernel_set.h.
#pragma once

#include <cstdint>

#define ATTN_S8_KERNELS_X86 1
#define ATTN_S8_HAS_ROW_KERNELS 1  // dot, mac, qrow pack/dot, qk, pv, pv_strided, name
#define ATTN_S8_HAS_SOFTMAX_ROW 1
#define ATTN_S8_HAS_REQUANTIZE_ROW 1
#define ATTN_S8_HAS_TILE_KERNELS 1  // packing, tile GEMMs, tile softmax, tile_s8_fast

// Run-time levels (kernels_s8_level() and the others, runtime_level.h):
// 0 scalar, 1 AVX2, 2 AVX-VNNI, 3 AVX-512 VNNI. Every level shares one packed
// query-row layout, so a level may change between qrow_s8_pack and
// qrow_s8_dot. Default: the best the CPU supports.
#define ATTN_S8_HAS_RUNTIME_LEVELS 1

namespace attn {
namespace detail {

// Always the dense P.V kernel. A zero weight costs a quarter of a vpdpbusd
// here, while compacting the rows mispredicts a branch per key (the dense
// path ran int8 SDPA at L = 256 about twice as fast on a Zen 5).
inline constexpr int32_t kPvDensePercent = 0;

}  // namespace detail
}  // namespace attn
