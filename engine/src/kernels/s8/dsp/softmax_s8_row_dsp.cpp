// Cortex-M4/M7/M33 DSP-extension int8 softmax rows (see kernels/s8/kernels_s8.h):
// the codes (softmax_s8_row) and the tiled core's weights p + 128
// (softmax_s8_row_w), bit-identical to their references:
//   max      4 lanes a step with SSUB8 / SEL
//   d        max - in[c] of four bytes is one USUB8 of the bytes biased to
//            unsigned (x ^ 0x80); the bytes of d index the exp table directly
//   sum      sum_c RDBP(table[d], 12), table entries >= 0 (0 below
//            diff_min), so RDBP is (e + 2^11) >> 12 (unsigned: e <= 2^31 - 1)
//   outputs  w = p + 128 = min(RDBP(SRDHM(scale, e), x), 255), x in [23, 31].
//            With P = scale * e >= 0 the two roundings are one 64-bit
//            floor: floor((floor((P + 2^30) / 2^31) + 2^(x-1)) / 2^x)
//            = floor((P + 2^30 + 2^(30+x)) / 2^(31+x)), i.e. one SMLAL onto
//            (hi, lo) = (2^(x-2), 2^30), hi >> (x - 1) and USAT. Keys below
//            diff_min read e = 0 and give w = 0 (code -128) as in the
//            reference. Four weights are packed into a word (the codes are
//            its bytes ^ 0x80) and summed with USADA8.
// Also weights_from_codes_s8 (EOR 0x80, USADA8).
#include "kernels/s8/kernels_s8.h"

#if defined(ATTN_S8_KERNELS_DSP)

#include <cstring>

#include "kernels/s8/dsp/dsp_ops.h"

namespace attn {
namespace detail {

namespace {

__attribute__((always_inline)) inline int32_t row_max_s8(const int8_t* in, int32_t n) {
  uint32_t m = 0x80808080u;  // -128 in every lane
  int32_t c = 0;
  for (; c + 4 <= n; c += 4) {
    const uint32_t x = dsp::load4(in + c);
    (void)__ssub8(static_cast<int8x4_t>(x), static_cast<int8x4_t>(m));  // GE: x >= m per lane
    m = __sel(x, m);
  }
  int32_t best = -128;
  for (int t = 0; t < 4; ++t) {
    const auto lane = static_cast<int8_t>(m >> (8 * t));
    best = lane > best ? lane : best;
  }
  for (; c < n; ++c) best = in[c] > best ? in[c] : best;
  return best;
}

// sum_c RDBP(exp_table[max - in[c]], 12) over n >= 0 entries; mb: max ^ 0x80
// in every byte.
__attribute__((always_inline)) inline int32_t row_exp_sum(const int32_t* exp_table,
                                                          const int8_t* in, int32_t n,
                                                          uint32_t mb) {
  uint32_t sum = 0;
  int32_t c = 0;
  for (; c + 4 <= n; c += 4) {
    const uint32_t d = __usub8(mb, dsp::load4(in + c) ^ 0x80808080u);
    sum += (static_cast<uint32_t>(exp_table[d & 0xffu]) + 2048u) >> 12;
    sum += (static_cast<uint32_t>(exp_table[(d >> 8) & 0xffu]) + 2048u) >> 12;
    sum += (static_cast<uint32_t>(exp_table[(d >> 16) & 0xffu]) + 2048u) >> 12;
    sum += (static_cast<uint32_t>(exp_table[d >> 24]) + 2048u) >> 12;
  }
  const auto m = static_cast<int32_t>(mb & 0xffu) - 128;
  for (; c < n; ++c) sum += (static_cast<uint32_t>(exp_table[m - in[c]]) + 2048u) >> 12;
  return static_cast<int32_t>(sum);
}

// One weight min(RDBP(SRDHM(scale, e), x), 255) (see the top): SMLAL onto
// (hi0, 2^30), hi >> (x - 1), USAT.
inline uint32_t weight_of(int32_t e, int32_t scale, uint32_t hi0, int32_t shift) {
  uint32_t lo = uint32_t{1} << 30, hi = hi0;
  __asm__("smlal %0, %1, %2, %3" : "+r"(lo), "+r"(hi) : "r"(e), "r"(scale));
  return static_cast<uint32_t>(__usat(static_cast<int32_t>(hi >> shift), 8));
}

// The row's weights p + 128 (kCodes false; returns their sum) or its codes
// p (kCodes true: the weights' bytes ^ 0x80) into out[0, n), n >= 1; in and
// out may be the same buffer (each word is read before it is written).
template <bool kCodes>
__attribute__((always_inline)) inline int32_t row_weights(const int32_t* exp_table,
                                                          const int8_t* in, uint8_t* out,
                                                          int32_t n) {
  constexpr uint32_t kFlip = kCodes ? 0x80808080u : 0u;
  const int32_t max_in_row = row_max_s8(in, n);
  const uint32_t mb = static_cast<uint32_t>((max_in_row ^ 0x80) & 0xff) * 0x01010101u;
  int num_bits_over_unit = 0;
  const int32_t scale =
      q::get_reciprocal(row_exp_sum(exp_table, in, n, mb), 12, &num_bits_over_unit);
  const int exponent = num_bits_over_unit + 31 - 8;
  // exponent > 31: every weight rounds to 0 (code -128); the loops below
  // give that with scale = 0 and (hi, lo) = (0, 2^30).
  const bool zero = exponent > 31;
  const int32_t sc = zero ? 0 : scale;
  const uint32_t hi0 = zero ? 0u : uint32_t{1} << (exponent - 2);
  const int32_t shift = zero ? 0 : exponent - 1;
  uint32_t sum = 0;
  const int8_t* end4 = in + (n & ~3);
  for (; in != end4; in += 4, out += 4) {
    const uint32_t d = __usub8(mb, dsp::load4(in) ^ 0x80808080u);
    uint32_t x = weight_of(exp_table[d & 0xffu], sc, hi0, shift);
    x |= weight_of(exp_table[(d >> 8) & 0xffu], sc, hi0, shift) << 8;
    x |= weight_of(exp_table[(d >> 16) & 0xffu], sc, hi0, shift) << 16;
    x |= weight_of(exp_table[d >> 24], sc, hi0, shift) << 24;
    const uint32_t y = x ^ kFlip;
    std::memcpy(out, &y, 4);
    if (!kCodes) sum = __usada8(x, 0u, sum);
  }
  for (int32_t c = 0; c < (n & 3); ++c) {
    const uint32_t x = weight_of(exp_table[max_in_row - in[c]], sc, hi0, shift);
    out[c] = static_cast<uint8_t>(x ^ kFlip);
    sum += x;
  }
  return static_cast<int32_t>(sum);
}

}  // namespace

void softmax_s8_row(const int32_t* exp_table, int32_t diff_min, const int8_t* in, int8_t* out,
                    int32_t n) {
  (void)diff_min;  // the table is 0 below it
  row_weights<true>(exp_table, in, reinterpret_cast<uint8_t*>(out), n);
}

int32_t softmax_s8_row_w(const void* lut, const int32_t* exp_table, int32_t diff_min,
                         const int8_t* in, uint8_t* w, int32_t n, int32_t n_pad) {
  (void)lut;
  (void)diff_min;  // the table is 0 below it
  const int32_t sum_w = n > 0 ? row_weights<false>(exp_table, in, w, n) : 0;
  if (n_pad > n) std::memset(w + n, 0, static_cast<std::size_t>(n_pad - n));
  return sum_w;
}

// weights_from_codes_s8 four bytes a step: EOR 0x80 and USADA8 for the sum.
int32_t weights_from_codes_s8(uint8_t* w, int32_t n, int32_t n_pad) {
  uint32_t sum = 0;
  int32_t c = 0;
  for (; c + 4 <= n; c += 4) {
    const uint32_t x = dsp::load4(w + c) ^ 0x80808080u;
    std::memcpy(w + c, &x, 4);
    sum = __usada8(x, 0u, sum);
  }
  for (; c < n; ++c) {
    w[c] = static_cast<uint8_t>(w[c] ^ 0x80u);
    sum += w[c];
  }
  if (n_pad > n) std::memset(w + n, 0, static_cast<std::size_t>(n_pad - n));
  return static_cast<int32_t>(sum);
}

}  // namespace detail
}  // namespace attn

#endif  // ATTN_S8_KERNELS_DSP
