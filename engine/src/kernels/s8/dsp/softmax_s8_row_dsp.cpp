// Cortex-M4/M7/M33 DSP-extension int8 softmax row (see kernels/s8/kernels_s8.h),
// bit-identical to softmax_s8_row_ref:
//   max      4 lanes a step with SSUB8 / SEL
//   sum      sum_c RDBP(table[max - in[c]], 12), table entries >= 0 (0 below
//            diff_min), so RDBP is (e + 2^11) >> 12 (unsigned: e <= 2^31 - 1)
//   outputs  RDBP(SRDHM(scale, e), x) - 128 clamped to 127, x in [23, 31].
//            With P = scale * e >= 0 the two roundings are one 64-bit
//            floor: floor((floor((P + 2^30) / 2^31) + 2^(x-1)) / 2^x)
//            = floor((P + 2^30 + 2^(30+x)) / 2^(31+x)), i.e. one SMLAL onto
//            (hi, lo) = (2^(x-2), 2^30) and hi >> (x - 1). Keys below
//            diff_min read e = 0 and give -128 as in the reference.
// Also the tiled core's weights from the codes (weights_from_codes_s8).
#include "kernels/s8/kernels_s8.h"

#if defined(ATTN_S8_KERNELS_DSP)

#include <cstring>

#include "kernels/s8/dsp/dsp_ops.h"

namespace attn {
namespace detail {

namespace {

int32_t row_max_s8(const int8_t* in, int32_t n) {
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

}  // namespace

void softmax_s8_row(const int32_t* exp_table, int32_t diff_min, const int8_t* in, int8_t* out,
                    int32_t n) {
  (void)diff_min;  // the table is 0 below it
  const int32_t max_in_row = row_max_s8(in, n);
  const int32_t* table = exp_table + max_in_row;  // table[-in[c]] = exp_table[max - in[c]]
  int32_t sum_of_exps = 0;
  for (int32_t c = 0; c < n; ++c) {
    sum_of_exps += static_cast<int32_t>((static_cast<uint32_t>(table[-in[c]]) + 2048u) >> 12);
  }
  int num_bits_over_unit = 0;
  const int32_t scale = q::get_reciprocal(sum_of_exps, 12, &num_bits_over_unit);
  const int exponent = num_bits_over_unit + 31 - 8;
  if (exponent > 31) {  // every output rounds to 0 -> -128
    for (int32_t c = 0; c < n; ++c) out[c] = -128;
    return;
  }
  const uint32_t hi0 = uint32_t{1} << (exponent - 2);
  for (int32_t c = 0; c < n; ++c) {
    uint32_t lo = uint32_t{1} << 30, hi = hi0;
    __asm__("smlal %0, %1, %2, %3" : "+r"(lo), "+r"(hi) : "r"(table[-in[c]]), "r"(scale));
    out[c] = static_cast<int8_t>(__ssat((static_cast<int32_t>(hi) >> (exponent - 1)) - 128, 8));
  }
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
