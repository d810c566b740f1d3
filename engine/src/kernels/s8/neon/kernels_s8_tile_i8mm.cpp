// AArch64 level-2 "i8mm" query-tile GEMMs and their K / V packing (see
// tile_i8mm.h): the 8-byte
// matrix multiply-accumulates of Armv8.6-A (optional from Armv8.2-A), each
// 2 x 8 by 8 x 2 bytes into a 2 x 2 int32 block: twice the MACs of a dot
// product instruction.
//
// Blocking: 4 query rows (2 row pairs) x 16 keys or output columns (8 pairs)
// in 16 accumulators of 2 x 2; an odd last row is paired with itself and its
// copy dropped. Accumulator lanes are [r0 c0, r0 c1, r1 c0, r1 c1]; ZIP1 /
// ZIP2 of 64-bit lanes of two neighbours give each row's 4 consecutive
// results. The accumulators start at the rows' constants, as at level 1.
#include "kernels/s8/kernels_s8.h"

#if defined(ATTN_S8_KERNELS_NEON)
#include <arm_neon.h>

#include <cstring>

#include "kernels/s8/neon/target_neon.h"
#include "kernels/s8/neon/tile_i8mm.h"

#pragma GCC push_options
ATTN_TARGET_I8MM
#pragma GCC optimize("no-schedule-insns")

#include "kernels/s8/neon/tile_neon.h"

namespace attn {
namespace detail {
namespace {

// Every 2 x 2 accumulator of row pair p at its rows' starting values
// init[2 p] (lanes 0-1) and init[2 p + 1] (lanes 2-3).
template <int P>
ATTN_INLINE void start_pairs(const uint32_t (&init)[2 * P], int32x4_t (&acc)[P][8]) {
  for (int p = 0; p < P; ++p) {
    const int32x4_t i =
        vreinterpretq_s32_u32(vcombine_u32(vdup_n_u32(init[2 * p]), vdup_n_u32(init[2 * p + 1])));
    for (int x = 0; x < 8; ++x) acc[p][x] = i;
  }
}

// Rows 2p and 2p + 1 (the last row twice when R is odd) of 16 keys or
// columns from acc[p][2x], acc[p][2x + 1]: v0 / v1 lane l is column 4 x + l.
ATTN_INLINE void unpair(const int32x4_t (&acc)[8], int32x4_t (&v0)[4], int32x4_t (&v1)[4]) {
  for (int x = 0; x < 4; ++x) {
    const uint64x2_t a = vreinterpretq_u64_s32(acc[2 * x]);
    const uint64x2_t b = vreinterpretq_u64_s32(acc[2 * x + 1]);
    v0[x] = vreinterpretq_s32_u64(vzip1q_u64(a, b));
    v1[x] = vreinterpretq_s32_u64(vzip2q_u64(a, b));
  }
}

template <int R>
constexpr int kPairs = (R + 1) / 2;

// Q K^T of R rows and one 16-key block kb (H groups of 8 columns).
template <int R>
ATTN_INLINE void qk_block_mm(const uint8_t* const (&rp)[2 * kPairs<R>], const int8_t* kb, int32_t H,
                             const uint32_t (&init)[2 * kPairs<R>],
                             int32x4_t (&acc)[kPairs<R>][8]) {
  constexpr int P = kPairs<R>;
  start_pairs(init, acc);
  int32_t h = 0;
  for (; h + 2 <= H; h += 2) {
    uint8x16_t a[P][2];
    for (int p = 0; p < P; ++p) {
      const uint64x2_t u0 = vreinterpretq_u64_u8(vld1q_u8(rp[2 * p] + 8 * h));
      const uint64x2_t u1 = vreinterpretq_u64_u8(vld1q_u8(rp[2 * p + 1] + 8 * h));
      a[p][0] = vreinterpretq_u8_u64(vzip1q_u64(u0, u1));
      a[p][1] = vreinterpretq_u8_u64(vzip2q_u64(u0, u1));
    }
    for (int s = 0; s < 2; ++s) {
      const int8_t* kg = kb + static_cast<std::size_t>(h + s) * 128;
      for (int x = 0; x < 8; ++x) {
        const int8x16_t b = vld1q_s8(kg + 16 * x);
        for (int p = 0; p < P; ++p) acc[p][x] = vusmmlaq_s32(acc[p][x], a[p][s], b);
      }
    }
  }
  if (h < H) {
    uint8x16_t a[P];
    for (int p = 0; p < P; ++p)
      a[p] = vcombine_u8(vld1_u8(rp[2 * p] + 8 * h), vld1_u8(rp[2 * p + 1] + 8 * h));
    const int8_t* kg = kb + static_cast<std::size_t>(h) * 128;
    for (int x = 0; x < 8; ++x) {
      const int8x16_t b = vld1q_s8(kg + 16 * x);
      for (int p = 0; p < P; ++p) acc[p][x] = vusmmlaq_s32(acc[p][x], a[p], b);
    }
  }
}

// R rows of the tile against every key block (qk_rows of tile_neon.h; rows
// of u are n bytes, n % 8 == 0): sum (q - zp) k - offset[r] (u = q + 128:
// minus (128 + zp) ksum).
template <int R, typename Epilogue>
void qk_rows(const uint8_t* u, int32_t zp, const int8_t* kpacked, const int32_t* ksum,
             int32_t nkeys, int32_t n, const int32_t* offset, Epilogue epi) {
  constexpr int P = kPairs<R>;
  const int32_t H = n / 8;
  const auto row = static_cast<std::size_t>(n);
  const uint8_t* rp[2 * P];
  uint32_t init[2 * P];
  for (int r = 0; r < 2 * P; ++r) {
    const int rr = r < R ? r : R - 1;
    rp[r] = u + static_cast<std::size_t>(rr) * row;
    init[r] = offset != nullptr ? 0u - static_cast<uint32_t>(offset[rr]) : 0u;
  }
  for (int32_t b = 0; b * 16 < nkeys; ++b) {
    int32x4_t acc[P][8];
    qk_block_mm<R>(rp, kpacked + static_cast<std::size_t>(b) * row * 16, H, init, acc);
    const int32x4_t c = vdupq_n_s32(128 + zp);
    int32x4_t ks[4];
    load_key_sums(ksum, b, ks);
    for (int p = 0; p < P; ++p) {
      int32x4_t v[2][4];
      unpair(acc[p], v[0], v[1]);
      for (int t = 0; t < 2 && 2 * p + t < R; ++t) {
        sub_key_sums(v[t], c, ks);
        epi(2 * p + t, b, v[t]);
      }
    }
  }
}

// P V of R weight rows and one 16-column block (vb: its first 8-row group,
// gstride bytes between groups; rows = round4(nrows) weights per row).
template <int R>
ATTN_INLINE void pv_block_mm(const uint8_t* const (&rp)[2 * kPairs<R>], const int8_t* vb,
                             std::size_t gstride, int32_t rows,
                             const uint32_t (&init)[2 * kPairs<R>],
                             int32x4_t (&acc)[kPairs<R>][8]) {
  constexpr int P = kPairs<R>;
  start_pairs(init, acc);
  const auto step = [&](const uint8x16_t(&a)[P], const int8_t* vg) {
    for (int x = 0; x < 8; ++x) {
      const int8x16_t b = vld1q_s8(vg + 16 * x);
      for (int p = 0; p < P; ++p) acc[p][x] = vusmmlaq_s32(acc[p][x], a[p], b);
    }
  };
  int32_t j = 0;
  for (; j + 16 <= rows; j += 16) {  // two 8-row groups
    uint8x16_t a0[P], a1[P];
    for (int p = 0; p < P; ++p) {
      const uint64x2_t w0 = vreinterpretq_u64_u8(vld1q_u8(rp[2 * p] + j));
      const uint64x2_t w1 = vreinterpretq_u64_u8(vld1q_u8(rp[2 * p + 1] + j));
      a0[p] = vreinterpretq_u8_u64(vzip1q_u64(w0, w1));
      a1[p] = vreinterpretq_u8_u64(vzip2q_u64(w0, w1));
    }
    const int8_t* vg = vb + static_cast<std::size_t>(j / 8) * gstride;
    step(a0, vg);
    step(a1, vg + gstride);
  }
  for (; j < rows; j += 8) {  // 8 or the last 4 weights (the rest 0)
    const std::size_t len = rows - j >= 8 ? 8 : 4;
    uint8x16_t a[P];
    for (int p = 0; p < P; ++p) {
      uint8_t wb[16] = {};
      std::memcpy(wb, rp[2 * p] + j, len);
      std::memcpy(wb + 8, rp[2 * p + 1] + j, len);
      a[p] = vld1q_u8(wb);
    }
    step(a, vb + static_cast<std::size_t>(j / 8) * gstride);
  }
}

// R rows of weights against every column block (pv_rows of tile_neon.h):
// sum w v - offset[r].
template <int R, typename Epilogue>
void pv_rows(const uint8_t* w, std::size_t w_stride, const int8_t* vpacked, int32_t nrows,
             int32_t n, const int32_t* offset, Epilogue epi) {
  constexpr int P = kPairs<R>;
  const int32_t rows = (nrows + 3) / 4 * 4;
  const int32_t cblocks = (n + 15) / 16;
  const std::size_t gstride = static_cast<std::size_t>(cblocks) * 128;
  const uint8_t* rp[2 * P];
  uint32_t init[2 * P];  // -offset, modulo 2^32
  for (int r = 0; r < 2 * P; ++r) {
    const int rr = r < R ? r : R - 1;
    rp[r] = w + static_cast<std::size_t>(rr) * w_stride;
    init[r] = offset != nullptr ? 0u - static_cast<uint32_t>(offset[rr]) : 0u;
  }
  for (int32_t cb = 0; cb < cblocks; ++cb) {
    int32x4_t acc[P][8];
    pv_block_mm<R>(rp, vpacked + static_cast<std::size_t>(cb) * 128, gstride, rows, init, acc);
    for (int p = 0; p < P; ++p) {
      int32x4_t v[2][4];
      unpair(acc[p], v[0], v[1]);
      for (int t = 0; t < 2 && 2 * p + t < R; ++t) epi(2 * p + t, cb, v[t]);
    }
  }
}

}  // namespace

void kpack_s8_i8mm(const int8_t* k, std::size_t k_stride, int32_t nkeys, int32_t n, int8_t* packed,
                   int32_t* ksum) {
  const int32_t H = n / 8;
  const int8x16_t ones = vdupq_n_s8(1);
  for (int32_t b = 0; b * 16 < nkeys; ++b) {
    for (int32_t p = 0; p < 8; ++p) {
      // Keys j, j + 1 (0 past nkeys), 16 columns at a time: ZIP1 / ZIP2 of
      // their 64-bit halves are the pair vectors of two column groups.
      const int32_t j = 16 * b + 2 * p;
      const int8_t* k0 = j < nkeys ? k + static_cast<std::size_t>(j) * k_stride : nullptr;
      const int8_t* k1 = j + 1 < nkeys ? k + static_cast<std::size_t>(j + 1) * k_stride : nullptr;
      int8_t* d = packed + (static_cast<std::size_t>(b) * static_cast<std::size_t>(H) * 8 +
                            static_cast<std::size_t>(p)) *
                               16;
      int32x4_t s = vdupq_n_s32(0);  // lanes 0-1: key j, 2-3: key j + 1
      int32_t h = 0;
      for (; h + 2 <= H; h += 2) {
        const int64x2_t a =
            vreinterpretq_s64_s8(k0 != nullptr ? vld1q_s8(k0 + 8 * h) : vdupq_n_s8(0));
        const int64x2_t c =
            vreinterpretq_s64_s8(k1 != nullptr ? vld1q_s8(k1 + 8 * h) : vdupq_n_s8(0));
        const int8x16_t lo = vreinterpretq_s8_s64(vzip1q_s64(a, c));
        const int8x16_t hi = vreinterpretq_s8_s64(vzip2q_s64(a, c));
        vst1q_s8(d + static_cast<std::size_t>(h) * 128, lo);
        vst1q_s8(d + static_cast<std::size_t>(h + 1) * 128, hi);
        s = vdotq_s32(vdotq_s32(s, lo, ones), hi, ones);
      }
      if (h < H) {
        const int8x8_t a = k0 != nullptr ? vld1_s8(k0 + 8 * h) : vdup_n_s8(0);
        const int8x8_t c = k1 != nullptr ? vld1_s8(k1 + 8 * h) : vdup_n_s8(0);
        const int8x16_t v = vcombine_s8(a, c);
        vst1q_s8(d + static_cast<std::size_t>(h) * 128, v);
        s = vdotq_s32(s, v, ones);
      }
      ksum[j] = vgetq_lane_s32(s, 0) + vgetq_lane_s32(s, 1);
      ksum[j + 1] = vgetq_lane_s32(s, 2) + vgetq_lane_s32(s, 3);
    }
  }
}

void vpack_s8_i8mm(const int8_t* v, std::size_t stride, int32_t nrows, int32_t n, int8_t* packed) {
  const int32_t cblocks = (n + 15) / 16;
  for (int32_t g = 0; g * 8 < nrows; ++g) {
    for (int32_t cb = 0; cb < cblocks; ++cb) {
      // 8 rows of 16 columns (0 past nrows or n), transposed by three rounds
      // of zips (bytes, 16-bit, 32-bit) into 8 column pairs of 8 rows.
      int8x16_t r[8];
      const int32_t cols = n - 16 * cb < 16 ? n - 16 * cb : 16;
      const int8_t* src = v + static_cast<std::size_t>(8 * g) * stride +
                          16 * static_cast<std::size_t>(cb);
      if (8 * g + 8 <= nrows && cols == 16) {
        for (int t = 0; t < 8; ++t) r[t] = vld1q_s8(src + static_cast<std::size_t>(t) * stride);
      } else {
        for (int t = 0; t < 8; ++t) {
          int8_t buf[16] = {};
          if (8 * g + t < nrows) {
            std::memcpy(buf, src + static_cast<std::size_t>(t) * stride,
                        static_cast<std::size_t>(cols));
          }
          r[t] = vld1q_s8(buf);
        }
      }
      int16x8_t h[8];
      for (int t = 0; t < 4; ++t) {
        h[2 * t] = vreinterpretq_s16_s8(vzip1q_s8(r[2 * t], r[2 * t + 1]));      // columns 0-7
        h[2 * t + 1] = vreinterpretq_s16_s8(vzip2q_s8(r[2 * t], r[2 * t + 1]));  // 8-15
      }
      int8_t* dst = packed + (static_cast<std::size_t>(g) * static_cast<std::size_t>(cblocks) +
                              static_cast<std::size_t>(cb)) *
                                 128;
      for (int half = 0; half < 2; ++half) {  // columns 8 half .. 8 half + 7
        const int32x4_t q01a = vreinterpretq_s32_s16(vzip1q_s16(h[half], h[2 + half]));
        const int32x4_t q01b = vreinterpretq_s32_s16(vzip2q_s16(h[half], h[2 + half]));
        const int32x4_t q23a = vreinterpretq_s32_s16(vzip1q_s16(h[4 + half], h[6 + half]));
        const int32x4_t q23b = vreinterpretq_s32_s16(vzip2q_s16(h[4 + half], h[6 + half]));
        int8_t* d = dst + 64 * half;
        vst1q_s8(d, vreinterpretq_s8_s32(vzip1q_s32(q01a, q23a)));
        vst1q_s8(d + 16, vreinterpretq_s8_s32(vzip2q_s32(q01a, q23a)));
        vst1q_s8(d + 32, vreinterpretq_s8_s32(vzip1q_s32(q01b, q23b)));
        vst1q_s8(d + 48, vreinterpretq_s8_s32(vzip2q_s32(q01b, q23b)));
      }
    }
  }
}

const TileGemmsS8 kTileGemmsI8mm = TileEntries::kGemms;

}  // namespace detail
}  // namespace attn

#pragma GCC pop_options

#endif  // ATTN_S8_KERNELS_NEON
