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

// Run-time levels (kernels_s8_level() and the others, runtime_level.h), of
// the tile kernels: 0 "neon" (no dot product instructions: the tile entries
// are the references and attend_s8 keeps the one-row core), 1 "dotprod"
// (SDOT / UDOT tile GEMMs, the byte-table softmax), 2 "i8mm" (level 1 with
// the GEMMs on USMMLA). The level is the build's floor (+dotprod, +i8mm in
// -march) raised by what the CPU reports (Linux HWCAP_ASIMDDP, HWCAP2_I8MM).
// Packed tiles are the level's own layout: pack and run at the same level.
#define ATTN_S8_HAS_RUNTIME_LEVELS 1

namespace attn {
namespace detail {
inline constexpr int32_t kPvDensePercent = 100;
}  // namespace detail
}  // namespace attn
