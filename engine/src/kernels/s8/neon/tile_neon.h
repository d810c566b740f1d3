// Pieces shared by the AArch64 tile GEMM files (internal; included inside
// their dot product target regions, so each has its own copy): the row
// blocking, the epilogues (int32 stores, the fused requantizing store, the
// zero-point term of the key sums), the weight-row sums, and the level's
// four GEMM entries over the row kernels its file defines (qk_rows, pv_rows).
#pragma once

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/s8/kernels_s8.h"
#include "kernels/s8/neon/requantize_neon.h"
#include "kernels/s8/neon/tile_gemms_neon.h"

#define ATTN_INLINE inline __attribute__((always_inline))

namespace attn {
namespace detail {
namespace {

constexpr int kRows = 4;  // query rows per GEMM block

// Rows i0 .. nq of a tile in blocks of kRows, then the 1-3 left: f.template
// operator()<R>(first row) per block.
template <typename Block>
ATTN_INLINE void row_blocks(int32_t nq, Block f) {
  int32_t i = 0;
  for (; i + kRows <= nq; i += kRows) f(std::integral_constant<int, kRows>{}, i);
  switch (nq - i) {
    case 3: f(std::integral_constant<int, 3>{}, i); break;
    case 2: f(std::integral_constant<int, 2>{}, i); break;
    case 1: f(std::integral_constant<int, 1>{}, i); break;
    default: break;
  }
}

// The fused requantizations: 16 int32 of a row (offset already subtracted)
// to int8 at o, `count` of them (1..16).
template <int kMode>
ATTN_INLINE void store_rq(const RequantizeNeon& rq, const int32x4_t (&v)[4], int8_t* o,
                          int32_t count) {
  const int8x16_t b = rq.to_s8<kMode>(v);
  if (count >= 16) {
    vst1q_s8(o, b);
  } else {
    alignas(16) int8_t tmp[16];
    vst1q_s8(tmp, b);
    std::memcpy(o, tmp, static_cast<std::size_t>(count));
  }
}

// The drivers of a level's tile GEMMs (TileEntries passes the level's row
// kernel, a stateless callable): rows(R, i, epi, args...) runs rows i .. i +
// R - 1 of the tile (R an integral_constant) and calls epi(r, b, v) with the
// 16 int32 results of row i + r, columns 16 b .. 16 b + 15 (offsets and zero
// points applied). tile_s32 stores them at out + (i + r) out_stride + 16 b;
// tile_rq stores their requantization to int8, the first count(b) (1..16) of
// them (WholeBlocks: a constant 16, no partial store in the loop). The row
// kernel's arguments travel as `args`, one by one, as they did when each
// level had its own drivers (a closure passed to the out-of-line drivers
// costs loads and stores per call).
template <typename Rows, typename... Args>
ATTN_INLINE void tile_s32(Rows rows, int32_t nq, int32_t* out, std::size_t out_stride,
                          Args... args) {
  row_blocks(nq, [&](auto block_rows, int32_t i) {
    rows(
        block_rows, i,
        [&](int r, int32_t b, const int32x4_t(&v)[4]) {
          vst1q_s32_x4(
              out + static_cast<std::size_t>(i + r) * out_stride + 16 * static_cast<std::size_t>(b),
              {{v[0], v[1], v[2], v[3]}});
        },
        args...);
  });
}

// (Out of line, one function per mode, as the separate drivers were: inlined
// into one, both modes' register allocation is worse.)
template <int kMode, typename Rows, typename Count, typename... Args>
__attribute__((noinline)) void tile_rq_mode(Rows rows, Count count,
                                            const RequantizeNeon& requantize, int32_t nq,
                                            int8_t* out, std::size_t out_stride, Args... args) {
  const RequantizeNeon rq = requantize;  // a local copy the epilogues keep in registers
  row_blocks(nq, [&](auto block_rows, int32_t i) {
    rows(
        block_rows, i,
        [&](int r, int32_t b, const int32x4_t(&v)[4]) {
          store_rq<kMode>(
              rq, v,
              out + static_cast<std::size_t>(i + r) * out_stride + 16 * static_cast<std::size_t>(b),
              count(b));
        },
        args...);
  });
}

struct WholeBlocks {
  int32_t operator()(int32_t) const { return 16; }
};

// One instantiation per sign of the shift (RequantizeNeon::apply).
template <typename Rows, typename Count, typename... Args>
ATTN_INLINE void tile_rq(Rows rows, Count count, int32_t multiplier, int32_t shift, int32_t out_zp,
                         int32_t nq, int8_t* out, std::size_t out_stride, Args... args) {
  const RequantizeNeon rq(multiplier, shift, out_zp);
  if (shift < 0) {
    tile_rq_mode<-1>(rows, count, rq, nq, out, out_stride, args...);
  } else {
    tile_rq_mode<1>(rows, count, rq, nq, out, out_stride, args...);
  }
}

// The row kernels, one pair per level's file (its definitions): R rows of
// the tile (R an integral constant, 1..kRows) against every 16-key block b
// (Q K^T; u: rows of round4(n) bytes) or 16-column block b (P V), calling
// epi(r, b, v) with row r's 16 results, offset[r] subtracted (offset null: 0):
//   qk_rows  sum_c (q[r][c] - zp) k[16 b + l][c] - offset[r]
//   pv_rows  sum_j w[r][j] v[j][16 b + l] - offset[r]
template <int R, typename Epilogue>
void qk_rows(const uint8_t* u, int32_t zp, const int8_t* kpacked, const int32_t* ksum,
             int32_t nkeys, int32_t n, const int32_t* offset, Epilogue epi);
template <int R, typename Epilogue>
void pv_rows(const uint8_t* w, std::size_t w_stride, const int8_t* vpacked, int32_t nrows,
             int32_t n, const int32_t* offset, Epilogue epi);

// The level's four GEMMs over those row kernels (kGemms: their table). The
// drivers take each row kernel as a stateless callable of the block's first
// row i; the fused Q K^T writes whole 16-key blocks, the fused P V only the
// n columns of each row.
struct TileEntries {
  static constexpr auto kQkRows = [](auto rows, int32_t i, auto epi, const uint8_t* u, int32_t zp,
                                     const int8_t* kpacked, const int32_t* ksum, int32_t nkeys,
                                     int32_t n, const int32_t* offsets) {
    const std::size_t row = round_up_s8(static_cast<std::size_t>(n), 4);
    qk_rows<decltype(rows)::value>(u + static_cast<std::size_t>(i) * row, zp, kpacked, ksum, nkeys,
                                   n, offsets != nullptr ? offsets + i : nullptr, epi);
  };
  static constexpr auto kPvRows = [](auto rows, int32_t i, auto epi, const uint8_t* w,
                                     std::size_t w_stride, const int8_t* vpacked, int32_t nrows,
                                     int32_t n, const int32_t* offsets) {
    pv_rows<decltype(rows)::value>(w + static_cast<std::size_t>(i) * w_stride, w_stride, vpacked,
                                   nrows, n, offsets != nullptr ? offsets + i : nullptr, epi);
  };

  static void qk(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                 const int32_t* ksum, int32_t nkeys, int32_t n, int32_t* out,
                 std::size_t out_stride) {
    tile_s32(kQkRows, nq, out, out_stride, u, zp, kpacked, ksum, nkeys, n, nullptr);
  }
  static void qk_rq(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                    const int32_t* ksum, int32_t nkeys, int32_t n, const int32_t* offsets,
                    int32_t multiplier, int32_t shift, int32_t out_zp, int8_t* out,
                    std::size_t out_stride) {
    tile_rq(kQkRows, WholeBlocks{}, multiplier, shift, out_zp, nq, out, out_stride, u, zp, kpacked,
            ksum, nkeys, n, offsets);
  }
  static void pv(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                 int32_t nrows, int32_t n, int32_t* acc, std::size_t acc_stride) {
    tile_s32(kPvRows, nq, acc, acc_stride, w, w_stride, vpacked, nrows, n, nullptr);
  }
  static void pv_rq(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                    int32_t nrows, int32_t n, const int32_t* offsets, int32_t multiplier,
                    int32_t shift, int32_t out_zp, int8_t* out, std::size_t out_stride) {
    tile_rq(
        kPvRows, [n](int32_t cb) { return n - 16 * cb; }, multiplier, shift, out_zp, nq, out,
        out_stride, w, w_stride, vpacked, nrows, n, offsets);
  }
  static constexpr TileGemmsS8 kGemms{qk, qk_rq, pv, pv_rq};
};

// v[x] -= c * ksum[4 x .. 4 x + 3], x < 4: the zero-point term of a row's
// sums over 16 keys (ks: the block's 16 key sums).
ATTN_INLINE void sub_key_sums(int32x4_t (&v)[4], int32x4_t c, const int32x4_t (&ks)[4]) {
  for (int x = 0; x < 4; ++x) v[x] = vmlsq_s32(v[x], c, ks[x]);
}

// The 16 key sums of block b.
ATTN_INLINE void load_key_sums(const int32_t* ksum, int32_t b, int32x4_t (&ks)[4]) {
  const int32_t* kb = ksum + 16 * b;
  for (int x = 0; x < 4; ++x) ks[x] = vld1q_s32(kb + 4 * x);
}

// sum of the first `len` bytes of w (len a multiple of 4).
ATTN_INLINE uint32_t byte_sum(const uint8_t* w, int32_t len) {
  const uint8x16_t ones = vdupq_n_u8(1);
  uint32x4_t s = vdupq_n_u32(0);
  int32_t c = 0;
  for (; c + 16 <= len; c += 16) s = vdotq_u32(s, vld1q_u8(w + c), ones);
  uint32_t t = vaddvq_u32(s);
  for (; c < len; ++c) t += w[c];
  return t;
}

}  // namespace
}  // namespace detail
}  // namespace attn
