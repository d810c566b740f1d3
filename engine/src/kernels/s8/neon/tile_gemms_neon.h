// The query-tile GEMMs of one AArch64 tile level (internal): the dispatch of
// kernels_s8_tile_neon.cpp picks a level's table, and each level's file fills
// its table from its own row kernels (TileEntries, tile_neon.h).
#pragma once

#include "kernels/s8/kernels_s8.h"

namespace attn {
namespace detail {

// A level's qk_tile_s8, qk_tile_s8_rq, pv_tile_s8 and pv_tile_s8_rq, with the
// arguments and results of the references (kernels_s8.h): the fused forms
// always requantize (the level's dispatch has decided they apply), and P V
// takes no work buffer.
struct TileGemmsS8 {
  decltype(&qk_tile_s8_ref) qk;
  decltype(&qk_tile_s8_rq_ref) qk_rq;
  decltype(&pv_tile_s8_ref) pv;
  decltype(&pv_tile_s8_rq_ref) pv_rq;
};

}  // namespace detail
}  // namespace attn
