// AArch64 query-tile int8 GEMMs of the tiled core (see kernels/s8/kernels_s8.h):
// qk_tile_s8 / pv_tile_s8 and their forms with the requantization fused,
// chosen at run time (kernel_set_neon.h):
//   level 2 "i8mm"     USMMLA (kernels_s8_tile_i8mm.cpp; Q K^T at
//                      depths n % 8 == 0, else as level 1)
//   level 1 "dotprod"  SDOT (Q K^T) and UDOT (P V), by-lane forms (here)
//   level 0 "neon"     the references (attend_s8 keeps the one-row core)
// Each gives the bits of its *_ref. The dot product code is compiled for
// Armv8.2-A + dotprod by a target pragma (every CPU with the dot product
// instructions implements Armv8.2-A), so the library needs no -march for it
// and runs it only where the CPU reports it.
//
// Operands at level 1 (kernels_s8_pack_neon.cpp packs them):
//   K        16 keys x 4 bytes per 16-key block and group of 4 columns: one
//            vector is 4 keys, and SDOT by one 4-byte lane of a query vector
//            adds 4 columns of 4 keys' dot products
//   Q tile   u = q ^ 0x80; each loaded vector is flipped back to q:
//            sum (q - zp) k = sum q k - zp sum k
//   V        4 rows x 16 columns per block, every byte ^ 0x80 (v + 128,
//            unsigned): UDOT by a lane of 4 unsigned weights gives
//            sum w v + 128 sum w, and the accumulators start at -128 sum w
//
// Blocking: 4 query rows x 16 keys (or 16 output columns) in 16 accumulators;
// per group of 4 depth columns 4 vectors of the packed operand and 16 dot
// products by lanes of the query rows' vectors (one load per 4 groups).
// The accumulators start at the row's constant (the offset the fused
// requantization subtracts, and -128 sum w for P V).
#include "kernels/s8/kernels_s8.h"

#if defined(ATTN_S8_KERNELS_NEON)
#include <arm_neon.h>

#include <cstring>
#include <type_traits>

#include "kernels/s8/neon/requantize_neon.h"
#include "kernels/s8/neon/target_neon.h"
#include "kernels/s8/neon/tile_i8mm.h"

// (No first scheduling pass: GCC 12's pre-RA scheduler hoists the operand
// loads of later groups and spills the accumulators.)
#pragma GCC push_options
ATTN_TARGET_DOTPROD
#pragma GCC optimize("no-schedule-insns")

#include "kernels/s8/neon/tile_neon.h"

namespace attn {
namespace detail {
namespace {

// One group of 4 depth columns for R rows: acc[r][x] lane l += the 4 products
// of row r's lane L by vector x's 4 bytes of lane l.
// (Four single-vector loads, not one 4-register load: GCC 12 copies the
// register tuples of vld1q_*_x4 through the stack in these loops.)
template <int L, int R>
ATTN_INLINE void qk_group(int32x4_t (&acc)[R][4], const int8_t* kg, const int8x16_t (&qv)[R]) {
  const int8x16_t k0 = vld1q_s8(kg), k1 = vld1q_s8(kg + 16), k2 = vld1q_s8(kg + 32),
                  k3 = vld1q_s8(kg + 48);
  for (int r = 0; r < R; ++r) {
    acc[r][0] = vdotq_laneq_s32(acc[r][0], k0, qv[r], L);
    acc[r][1] = vdotq_laneq_s32(acc[r][1], k1, qv[r], L);
    acc[r][2] = vdotq_laneq_s32(acc[r][2], k2, qv[r], L);
    acc[r][3] = vdotq_laneq_s32(acc[r][3], k3, qv[r], L);
  }
}

template <int L, int R>
ATTN_INLINE void pv_group(uint32x4_t (&acc)[R][4], const uint8_t* vg, const uint8x16_t (&wv)[R]) {
  const uint8x16_t v0 = vld1q_u8(vg), v1 = vld1q_u8(vg + 16), v2 = vld1q_u8(vg + 32),
                   v3 = vld1q_u8(vg + 48);
  for (int r = 0; r < R; ++r) {
    acc[r][0] = vdotq_laneq_u32(acc[r][0], v0, wv[r], L);
    acc[r][1] = vdotq_laneq_u32(acc[r][1], v1, wv[r], L);
    acc[r][2] = vdotq_laneq_u32(acc[r][2], v2, wv[r], L);
    acc[r][3] = vdotq_laneq_u32(acc[r][3], v3, wv[r], L);
  }
}

// acc[r][x] (started at init[r]) += sum_c q[r][c] k[16 b + 4 x + l][c] for R
// rows of u (`row` bytes each) and one 16-key block kb.
template <int R>
ATTN_INLINE void qk_block(const uint8_t* u, std::size_t row, const int8_t* kb, int32_t groups,
                          const int32_t (&init)[R], int32x4_t (&acc)[R][4]) {
  // (The starting values are duplicated here, not kept in registers across
  // blocks: 16 accumulators, 8 operands and the epilogue's constants fill the
  // 32 vector registers.)
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = acc[r][2] = acc[r][3] = vdupq_n_s32(init[r]);
  const uint8x16_t flip = vdupq_n_u8(0x80);
  int32_t g = 0;
  for (; g + 4 <= groups; g += 4) {
    int8x16_t qv[R];
    for (int r = 0; r < R; ++r) {
      qv[r] = vreinterpretq_s8_u8(
          veorq_u8(vld1q_u8(u + r * row + 4 * static_cast<std::size_t>(g)), flip));
    }
    const int8_t* kg = kb + static_cast<std::size_t>(g) * 64;
    qk_group<0>(acc, kg, qv);
    qk_group<1>(acc, kg + 64, qv);
    qk_group<2>(acc, kg + 128, qv);
    qk_group<3>(acc, kg + 192, qv);
  }
  for (; g < groups; ++g) {  // the last groups: each query lane broadcast
    int8x16_t qd[R];
    for (int r = 0; r < R; ++r) {
      uint32_t x = 0;
      std::memcpy(&x, u + r * row + 4 * static_cast<std::size_t>(g), 4);
      qd[r] = vreinterpretq_s8_u32(vdupq_n_u32(x ^ 0x80808080u));
    }
    qk_group<0>(acc, kb + static_cast<std::size_t>(g) * 64, qd);
  }
}

// acc[r][x] (started at init[r]) += sum_j w[r][j] (v[j][16 cb + 4 x + l] + 128)
// for R weight rows and one 16-column block (vb: its first group, gstride
// bytes between groups).
template <int R>
ATTN_INLINE void pv_block(const uint8_t* w, std::size_t w_stride, const uint8_t* vb,
                          std::size_t gstride, int32_t groups, const uint32_t (&init)[R],
                          uint32x4_t (&acc)[R][4]) {
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = acc[r][2] = acc[r][3] = vdupq_n_u32(init[r]);
  int32_t g = 0;
  for (; g + 4 <= groups; g += 4) {
    uint8x16_t wv[R];
    for (int r = 0; r < R; ++r)
      wv[r] = vld1q_u8(w + r * w_stride + 4 * static_cast<std::size_t>(g));
    const uint8_t* vg = vb + static_cast<std::size_t>(g) * gstride;
    pv_group<0>(acc, vg, wv);
    pv_group<1>(acc, vg + gstride, wv);
    pv_group<2>(acc, vg + 2 * gstride, wv);
    pv_group<3>(acc, vg + 3 * gstride, wv);
  }
  for (; g < groups; ++g) {
    uint8x16_t wd[R];
    for (int r = 0; r < R; ++r) {
      uint32_t x = 0;
      std::memcpy(&x, w + r * w_stride + 4 * static_cast<std::size_t>(g), 4);
      wd[r] = vreinterpretq_u8_u32(vdupq_n_u32(x));
    }
    pv_group<0>(acc, vb + static_cast<std::size_t>(g) * gstride, wd);
  }
}

// R rows of the tile against every key block; epi(r, b, v) gets row r's
// sum (q - zp) k - offset[r] of keys 16 b .. 16 b + 15 (offset null: 0).
template <int R, typename Epilogue>
void qk_rows(const uint8_t* u, int32_t zp, const int8_t* kpacked, const int32_t* ksum,
             int32_t nkeys, int32_t n, const int32_t* offset, Epilogue epi) {
  const int32_t groups = (n + 3) / 4;
  const std::size_t row = 4 * static_cast<std::size_t>(groups);
  int32_t init[R];
  for (int r = 0; r < R; ++r) init[r] = offset != nullptr ? -offset[r] : 0;
  for (int32_t b = 0; b * 16 < nkeys; ++b) {
    int32x4_t acc[R][4];
    qk_block<R>(u, row, kpacked + static_cast<std::size_t>(b) * row * 16, groups, init, acc);
    const int32x4_t vzp = vdupq_n_s32(zp);
    int32x4_t ks[4];
    load_key_sums(ksum, b, ks);
    for (int r = 0; r < R; ++r) {
      sub_key_sums(acc[r], vzp, ks);
      epi(r, b, acc[r]);
    }
  }
}

// R rows of weights against every column block; epi(r, cb, v) gets row r's
// sum w v - offset[r] of columns 16 cb .. 16 cb + 15 (offset null: 0).
template <int R, typename Epilogue>
void pv_rows(const uint8_t* w, std::size_t w_stride, const int8_t* vpacked, int32_t nrows,
             int32_t n, const int32_t* offset, Epilogue epi) {
  const int32_t groups = (nrows + 3) / 4;
  const int32_t cblocks = (n + 15) / 16;
  const std::size_t gstride = static_cast<std::size_t>(cblocks) * 64;
  const auto* vp = reinterpret_cast<const uint8_t*>(vpacked);
  uint32_t init[R];  // -(128 sum w + offset), modulo 2^32
  for (int r = 0; r < R; ++r) {
    const uint32_t off = offset != nullptr ? static_cast<uint32_t>(offset[r]) : 0u;
    init[r] = 0u - 128u * byte_sum(w + r * w_stride, 4 * groups) - off;
  }
  for (int32_t cb = 0; cb < cblocks; ++cb) {
    uint32x4_t acc[R][4];
    pv_block<R>(w, w_stride, vp + static_cast<std::size_t>(cb) * 64, gstride, groups, init, acc);
    for (int r = 0; r < R; ++r) {
      int32x4_t s[4];
      for (int x = 0; x < 4; ++x) s[x] = vreinterpretq_s32_u32(acc[r][x]);
      epi(r, cb, s);
    }
  }
}

constexpr TileGemmsS8 kTileGemmsDot = TileEntries::kGemms;

}  // namespace
}  // namespace detail
}  // namespace attn

#pragma GCC pop_options

namespace attn {
namespace detail {
namespace {

// The current level's GEMMs; level 2's only for operands in its layouts
// (i8mm_layout: P V always, Q K^T at depths kpack_i8mm_applies(n)). Level 0
// runs the references and has no fused forms.
const TileGemmsS8& level_gemms(bool i8mm_layout) {
  static constexpr TileGemmsS8 kRef{qk_tile_s8_ref, nullptr, pv_tile_s8_ref, nullptr};
  const int lvl = kernels_s8_level();
  if (lvl >= 2 && i8mm_layout) return kTileGemmsI8mm;
  if (lvl >= 1) return kTileGemmsDot;
  return kRef;
}

}  // namespace

bool tile_s8_fast() { return kernels_s8_level() >= 1; }

void qk_tile_s8(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                const int32_t* ksum, int32_t nkeys, int32_t n, int32_t* out,
                std::size_t out_stride) {
  level_gemms(kpack_i8mm_applies(n)).qk(u, nq, zp, kpacked, ksum, nkeys, n, out, out_stride);
}

bool qk_tile_s8_rq(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                   const int32_t* ksum, int32_t nkeys, int32_t n, const int32_t* offsets,
                   int32_t multiplier, int32_t shift, int32_t out_zp, int8_t* out,
                   std::size_t out_stride) {
  const TileGemmsS8& g = level_gemms(kpack_i8mm_applies(n));
  if (g.qk_rq == nullptr) return false;
  g.qk_rq(u, nq, zp, kpacked, ksum, nkeys, n, offsets, multiplier, shift, out_zp, out, out_stride);
  return true;
}

void pv_tile_s8(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                int32_t nrows, int32_t n, int32_t* acc, std::size_t acc_stride, void* /*work*/) {
  level_gemms(true).pv(w, w_stride, nq, vpacked, nrows, n, acc, acc_stride);
}

bool pv_tile_s8_rq(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                   int32_t nrows, int32_t n, const int32_t* offsets, int32_t multiplier,
                   int32_t shift, int32_t out_zp, int8_t* out, std::size_t out_stride,
                   void* /*work*/) {
  const TileGemmsS8& g = level_gemms(true);
  if (g.pv_rq == nullptr) return false;
  g.pv_rq(w, w_stride, nq, vpacked, nrows, n, offsets, multiplier, shift, out_zp, out, out_stride);
  return true;
}

}  // namespace detail
}  // namespace attn

#endif  // ATTN_S8_KERNELS_NEON
