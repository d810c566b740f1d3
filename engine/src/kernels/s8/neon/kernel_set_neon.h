// The AArch64 NEON int8 kernel set: the row kernels (SMULL/SADALP, SDOT when
// built for +dotprod), the requantization, and the query-tile kernels of the
// tiled core (SDOT / UDOT or USMMLA GEMMs, a byte-table softmax)
// chosen at run time from the CPU. Included through kernels/s8/kernel_set.h.
#pragma once

#include <cstdint>

#define ATTN_S8_KERNELS_NEON 1
#define ATTN_S8_HAS_ROW_KERNELS 1  // dot, mac, qrow pack/dot, qk, pv, pv_strided, name
#define ATTN_S8_HAS_REQUANTIZE_ROW 1
#define ATTN_S8_HAS_TILE_KERNELS 1  // packing, tile GEMMs, tile softmax, tile_s8_fast

namespace attn {
namespace detail {
inline constexpr int32_t kPvDensePercent = 100;

// AArch64 tile levels: 0 "neon" (no dot product instructions: the tile
// entries are the references and attend_s8 keeps the one-row core),
// 1 "dotprod" (SDOT / UDOT tile GEMMs, the byte-table softmax), 2 "i8mm"
// (level 1 with the GEMMs on USMMLA). The level is the build's floor
// (+dotprod, +i8mm in -march) raised by what the CPU reports (Linux
// HWCAP_ASIMDDP, HWCAP2_I8MM). Packed tiles are the level's own layout: pack
// and run at the same level.
bool kernels_s8_neon_supported(int lvl);  // this CPU runs level lvl
int kernels_s8_neon_level();
// Tests and benchmarks: use level `lvl` from now on (-1: the CPU's best);
// false (no change) if the CPU lacks it. Not synchronised with running kernels.
bool kernels_s8_neon_select(int lvl);
const char* kernels_s8_neon_level_name(int lvl);
}  // namespace detail
}  // namespace attn
