// The Cortex-M DSP query-tile kernels' own layouts, their requantization and
// the asm bodies their GEMMs share (internal; only compiled into the DSP
// kernel set). Only this set's packing and GEMM kernels go together:
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

// What the fused GEMMs' asm loops read at each 2 x 2 block's start and in
// its epilogue (ATTN_DSP_RQ_STORE_2X2), a member of their stack records.
struct RqRecord {
  Pair init0, init1;    // the accumulators' start: -2 offsets[i], -2 offsets[i + 1], twice
  Pair mb;              // RqDouble multiplier, bias
  int32_t right;        // RqDouble right shift
  PtrPair o;            // the next outputs of rows i, i + 1
  const int8_t* o_end;  // o.o0 past the last column pair

  void set_rq(const RqDouble& rq) {
    mb = {rq.multiplier, rq.bias};
    right = rq.right;
  }
  // The start of rows i and i + 1 (row i again when !pair): -2 offset,
  // wrapping as the accumulators do (the final sums fit).
  void start_rows(const int32_t* offsets, int32_t i, bool pair) {
    const auto m0 = static_cast<int32_t>(0u - 2u * static_cast<uint32_t>(offsets[i]));
    const int32_t m1 = pair ? static_cast<int32_t>(0u - 2u * static_cast<uint32_t>(offsets[i + 1]))
                            : m0;
    init0 = {m0, m0};
    init1 = {m1, m1};
  }
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

// The asm bodies the DSP tile GEMMs share (operand names of their asm
// statements: accumulators a00, a01, a10, a11 [row][column]).

// One column group of a 2 x 2 block: query words (q0e, q0o, q1e, q1o), key
// words k0, k1 split by SXTB16 into halves matching them.
#define ATTN_DSP_QK_GROUP                   \
  "ldrd %[q0e], %[q0o], [%[qp]], #8\n\t"    \
  "ldrd %[q1e], %[q1o], [%[qp]], #8\n\t"    \
  "ldrd %[k0], %[k1], [%[kp]], #8\n\t"      \
  "sxtb16 %[e], %[k0]\n\t"                  \
  "sxtb16 %[k0], %[k0], ror #8\n\t"         \
  "smlad %[a00], %[q0e], %[e], %[a00]\n\t"  \
  "smlad %[a10], %[q1e], %[e], %[a10]\n\t"  \
  "smlad %[a00], %[q0o], %[k0], %[a00]\n\t" \
  "smlad %[a10], %[q1o], %[k0], %[a10]\n\t" \
  "sxtb16 %[e], %[k1]\n\t"                  \
  "sxtb16 %[k1], %[k1], ror #8\n\t"         \
  "smlad %[a01], %[q0e], %[e], %[a01]\n\t"  \
  "smlad %[a11], %[q1e], %[e], %[a11]\n\t"  \
  "smlad %[a01], %[q0o], %[k1], %[a01]\n\t" \
  "smlad %[a11], %[q1o], %[k1], %[a11]\n\t"

// One group of 4 rows of a 2 x 2 block: the split weights (w0e, w0o, w1e,
// w1o), V words x, y of the two columns split by SXTB16 into halves
// matching them.
#define ATTN_DSP_PV_GROUP                  \
  "ldrd %[w1e], %[w1o], [%[wp], #8]\n\t"   \
  "ldrd %[w0e], %[w0o], [%[wp]], #16\n\t"  \
  "ldrd %[x], %[y], [%[vp]], #8\n\t"       \
  "sxtb16 %[t], %[x]\n\t"                  \
  "sxtb16 %[x], %[x], ror #8\n\t"          \
  "smlad %[a00], %[w0e], %[t], %[a00]\n\t" \
  "smlad %[a10], %[w1e], %[t], %[a10]\n\t" \
  "smlad %[a00], %[w0o], %[x], %[a00]\n\t" \
  "smlad %[a10], %[w1o], %[x], %[a10]\n\t" \
  "sxtb16 %[t], %[y]\n\t"                  \
  "sxtb16 %[y], %[y], ror #8\n\t"          \
  "smlad %[a01], %[w0e], %[t], %[a01]\n\t" \
  "smlad %[a11], %[w1e], %[t], %[a11]\n\t" \
  "smlad %[a01], %[w0o], %[y], %[a01]\n\t" \
  "smlad %[a11], %[w1o], %[y], %[a11]\n\t"

// RqDouble of accumulator a in place: m, b, r in registers.
// clang-format off
#define ATTN_DSP_RQ(a, m, b, r, t)                      \
  "add %[" t "], %[" b "], %[" a "], asr #31\n\t"       \
  "smmlar %[" a "], %[" a "], %[" m "], %[" t "]\n\t"   \
  "asr %[" a "], %[" a "], %[" r "]\n\t"                \
  "ssat %[" a "], #8, %[" a "]\n\t"
// clang-format on

// The 2 x 2 block's epilogue: RqDouble of the four accumulators (with m, b,
// r, t free registers), the bytes stored through the record's row pointers
// (p0, p1 free; row i + 1 first), then the flags of "row i's pointer at
// o_end" for the caller's branch back. Reads the record's mb, right, o,
// o_end operands.
// clang-format off
#define ATTN_DSP_RQ_STORE_2X2(m, b, r, t, p0, p1)                 \
  "ldrd %[" m "], %[" b "], %[mb]\n\t"                             \
  "ldr %[" r "], %[right]\n\t"                                     \
  ATTN_DSP_RQ("a10", m, b, r, t) ATTN_DSP_RQ("a11", m, b, r, t)    \
  ATTN_DSP_RQ("a00", m, b, r, t) ATTN_DSP_RQ("a01", m, b, r, t)    \
  "ldrd %[" p0 "], %[" p1 "], %[o]\n\t"                            \
  "strb %[a10], [%[" p1 "]], #1\n\t"                               \
  "strb %[a11], [%[" p1 "]], #1\n\t"                               \
  "strb %[a00], [%[" p0 "]], #1\n\t"                               \
  "strb %[a01], [%[" p0 "]], #1\n\t"                               \
  "strd %[" p0 "], %[" p1 "], %[o]\n\t"                            \
  "ldr %[" t "], %[o_end]\n\t"                                     \
  "cmp %[" p0 "], %[" t "]\n\t"
// clang-format on
