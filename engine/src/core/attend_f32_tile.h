// The float SDPA core's tile (internal): its scratch buffers, its score
// layouts, the kernel set's macro and the masking step, shared by
// attend_f32.cpp and the loops of attend_f32_loop-inl.h wherever they are
// compiled (attend_f32.cpp itself, or once per Highway target in
// kernels/f32/hwy/attend_f32_hwy.cpp). Includes what those loops use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "attn/scratch.h"
#include "attn/sdpa.h"
#include "core/attend_f32.h"
#include "core/attend_mask.h"
#include "core/key_range.h"
#include "kernels/f32/exp_poly.h"

// The tile's steps are inlined into the serial core (attend_f32, one frame,
// as the Cortex-M stack budgets record) although the key split calls some of
// them too.
#define ATTN_TILE_INLINE __attribute__((always_inline)) inline

// The kernels the loops call, as static members of a kernel set K (the
// functions of namespace `ns`: attn::kernels, or one Highway target's).
// maybe_unused: a Highway build's attend_f32.cpp instantiates only the online
// step of attend_f32_loop-inl.h with its set (the loops run per target).
#define ATTN_F32_LOOP_KERNELS(ns)                                                        \
  [[maybe_unused]] static constexpr auto qk_tile_f32 = &ns::qk_tile_f32;                 \
  [[maybe_unused]] static constexpr auto max_f32 = &ns::max_f32;                         \
  [[maybe_unused]] static constexpr auto exp_sub_sum_f32 = &ns::exp_sub_sum_f32;         \
  [[maybe_unused]] static constexpr auto softmax_f32 = &ns::softmax_f32;                 \
  [[maybe_unused]] static constexpr auto pv_tile_f32 = &ns::pv_tile_f32;                 \
  [[maybe_unused]] static constexpr auto transpose_scale_f32 = &ns::transpose_scale_f32; \
  [[maybe_unused]] static constexpr auto qk_tile_t_f32 = &ns::qk_tile_t_f32;             \
  [[maybe_unused]] static constexpr auto softmax_t_f32 = &ns::softmax_t_f32;             \
  [[maybe_unused]] static constexpr auto pv_tile_t_f32 = &ns::pv_tile_t_f32;             \
  [[maybe_unused]] static constexpr auto scale_f32 = &ns::scale_f32;

namespace attn {
namespace detail {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// The tile buffers at the offsets of SdpaF32Layout (attn/sdpa.h).
struct Tile {
  float* qs;         // [kSdpaQueryTile, dim_k] scaled queries
  float* s;          // [kSdpaQueryTile, kSdpaKeyBlock] scores, then probabilities
  float* acc;        // [kSdpaQueryTile, dim_v]
  float* m;          // [kSdpaQueryTile] running max
  float* l;          // [kSdpaQueryTile] running sum
  int32_t* visible;  // [kSdpaQueryTile] keys not masked
};

// Tiles of more than this many queries use the transposed layout (queries
// along the SIMD vector: no horizontal sums, the softmax runs down columns);
// smaller ones (decode, the last rows) the row layout (one dot per score).
constexpr int32_t kRowLayoutMaxQueries = 4;

// Where score (query r, key j) of a block lives in t.s: r * row + j * col,
// for key blocks of bk keys. The transposed layout's width tq is nq rounded up
// to 16 (at most the tile): columns past nq are zero queries, computed but
// never used. The row layout spends the whole score buffer (kSdpaQueryTile * kSdpaKeyBlock floats)
// on the rows it has: 1 query (decode) sees kSdpaQueryTile * kSdpaKeyBlock keys per block, up to 4
// queries kSdpaQueryTile * kSdpaKeyBlock / 4, so short tiles take few online-softmax steps.
struct Layout {
  bool transposed;
  int32_t tq;
  int32_t bk;
  std::size_t row;
  std::size_t col;
};

// The masking of a block's scores (attend_f32.cpp), out of line for the
// loops compiled per Highway target (attend_f32.cpp's own loops inline it):
// rows [i0, i0+nq) against keys [j0, j0+nk), score (r, j) at t.s[r * lay.row
// + j * lay.col]. Keys past a row's limit become -inf, Keras-masked keys get
// -1e9 * m added, an additive mask is added, a boolean mask sets -inf; the
// row's count of visible keys is added to visible[r] unless visible is null.
void mask_scores(const AttendF32& a, const AttendMask& mask, const Tile& t, const Layout& lay,
                 int32_t i0, int32_t nq, int32_t j0, int32_t nk, int32_t* visible);

}  // namespace detail
}  // namespace attn
