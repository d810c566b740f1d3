// The Cortex-M DSP query-tile kernels' own layouts and their requantization
// (internal; only compiled into the DSP kernel set). Only this set's packing
// and GEMM kernels go together:
//   Q tile  per pair of query rows (a, b) and group g of 4 columns, 4 words of
//           int16 2 (q - zp): (a0, a2), (a1, a3), (b0, b2), (b1, b3) (columns
//           4g + t; SXTB16 / SXTB16 ROR #8 take those halves from a key word);
//           0 past n and in the partner of an odd last row
//   K       per pair of keys (j, j + 1) and group g, the words k[j][4g..4g+3],
//           k[j+1][4g..4g+3] (0 past n and past the packed keys): a key pair's
//           groups are consecutive, and the next pair follows
//   V       blocks of 16 rows; in each, per pair of columns (c, c + 1) and
//           group of 4 rows the words (v[4g..4g+3][c]), (v[4g..4g+3][c + 1])
//   P       (the weights, split in pv_tile_s8's work buffer) per pair of rows
//           and group g of 4 keys, 4 words of int16 s w: (w0[4g], w0[4g+2]),
//           (w0[4g+1], w0[4g+3]), then the same of w1 (s = 2 for the fused
//           requantization, 1 for the int32 product)
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/s8/dsp/dsp_ops.h"

namespace attn {
namespace detail {
namespace dsp {

inline int32_t col_groups(int32_t n) { return (n + 3) / 4; }
inline std::size_t qpair_bytes(int32_t n) { return 16 * static_cast<std::size_t>(col_groups(n)); }
inline std::size_t kpair_bytes(int32_t n) { return 8 * static_cast<std::size_t>(col_groups(n)); }
inline std::size_t vblock_bytes(int32_t n) { return static_cast<std::size_t>((n + 1) / 2) * 32; }

// TFLite's requantize(x, multiplier, shift, zero_point) of a doubled
// accumulator x2 = 2x, for |x| < 2^30 and right = -shift in [1, 22]
// (RqDouble::fits), in four instructions:
//   SRDHM(x, m) + b = SMMLAR(x2, m, b)    ((b 2^32 + 2x m + 2^31) >> 32)
//   RDBP(h, r) + zp = (h - [h < 0] + 2^(r-1) + zp 2^r) >> r, and [h < 0] may be
//   read as [x < 0]: both are 0 for x >= 0 (then h >= 0), and for x < 0 with
//   h = 0 both forms give zp since r >= 1
// so out = SSAT8((SMMLAR(x2, m, bias + (x2 >> 31))) >> r), bias = 2^(r-1) +
// zp 2^r (|bias| <= 2^30, |h| < 2^30: no overflow).
struct RqDouble {
  int32_t multiplier, bias, right;
  RqDouble(int32_t m, int32_t shift, int32_t zp)
      : multiplier(m),
        bias(static_cast<int32_t>((uint32_t{1} << (-shift - 1)) +
                                  static_cast<uint32_t>(zp) * (uint32_t{1} << -shift))),
        right(-shift) {}
  // True when every |x| <= bound takes this form exactly (a multiplier >= 0).
  static bool fits(uint64_t bound, int32_t shift, int32_t multiplier) {
    return shift <= -1 && shift >= -22 && multiplier >= 0 && bound < (uint64_t{1} << 30);
  }
  int32_t operator()(int32_t x2) const {
    int32_t h;
    // x2 >> 31: the sign as 0 / -1 (Arm compilers shift signed values
    // arithmetically, which this M-profile-only code relies on).
    // cppcheck-suppress shiftTooManyBitsSigned
    const int32_t b = bias + (x2 >> 31);
    __asm__("smmlar %0, %1, %2, %3" : "=r"(h) : "r"(x2), "r"(multiplier), "r"(b));
    return __ssat(h >> right, 8);
  }
};

// Word pairs of the fused GEMMs' stack records, which their asm loops read
// with LDRD (cppcheck cannot see those reads).
struct Pair {
  // cppcheck-suppress unusedStructMember
  int32_t a, b;
};
struct PtrPair {
  // cppcheck-suppress unusedStructMember
  int8_t* o0;  // row i
  // cppcheck-suppress unusedStructMember
  int8_t* o1;  // row i + 1 (row i again for an odd last row: written first)
};

// Weight rows w0, w1 (4 * groups bytes each) into the P layout above, scale 2
// (twice) or 1: per word x of 4 weights, (x & 0x00ff00ff) and ((x >> 8) &
// 0x00ff00ff), shifted left once more when doubled.
inline void split_weights(const uint8_t* w0, const uint8_t* w1, int32_t groups, bool twice,
                          uint32_t* out) {
  const uint32_t mask = twice ? 0x01fe01feu : 0x00ff00ffu;
  const int lo = twice ? 1 : 0;
  const int hi = twice ? 7 : 8;
  for (int32_t g = 0; g < groups; ++g, out += 4) {
    const uint32_t x0 = load4(w0 + 4 * g), x1 = load4(w1 + 4 * g);
    out[0] = (x0 << lo) & mask;
    out[1] = (x0 >> hi) & mask;
    out[2] = (x1 << lo) & mask;
    out[3] = (x1 >> hi) & mask;
  }
}

}  // namespace dsp
}  // namespace detail
}  // namespace attn
