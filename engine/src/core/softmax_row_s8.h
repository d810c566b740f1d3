// One row of int8 softmax from a prepared exp table (internal; see
// attn/softmax_s8.h for the semantics).
#pragma once

#include <cstdint>

#include "kernels/s8/fixedpoint.h"
#include "kernels/s8/kernels_s8.h"
#include "attn/softmax_s8.h"

namespace attn {
namespace detail {

// out[c] for c < n: softmax of in[0..n) over the columns with keep[c] != 0
// (keep null: every column); the others, and columns cut by diff_min, get
// -128. Every kept row must have at least one kept column; n <= 4095.
// in and out may be the same buffer.
inline void softmax_row_s8(const SoftmaxS8Params& p, const int8_t* in, int8_t* out, int32_t n,
                           const uint8_t* keep) {
  if (keep == nullptr) {
    softmax_s8_row(p.exp_table, p.diff_min, in, out, n);
    return;
  }
  int32_t max_in_row = -128;
  for (int32_t c = 0; c < n; ++c) {
    if ((keep == nullptr || keep[c] != 0) && in[c] > max_in_row) max_in_row = in[c];
  }
  const int32_t diff_min = p.diff_min;
  // Sum of exp(d) in Q12.19 (Rescale<12> of each Q0.31 term).
  int32_t sum_of_exps = 0;
  for (int32_t c = 0; c < n; ++c) {
    if (keep != nullptr && keep[c] == 0) continue;
    const int32_t diff = in[c] - max_in_row;
    if (diff >= diff_min) sum_of_exps += q::rounding_divide_by_pot(p.exp_table[-diff], 12);
  }
  int num_bits_over_unit = 0;
  const int32_t shifted_scale = q::get_reciprocal(sum_of_exps, 12, &num_bits_over_unit);
  // Output exponent num_bits_over_unit + 31 - 8, in [23, 34]; above 31 every
  // output rounds to 0 (value < 2^31 / 2^32).
  const int exponent = num_bits_over_unit + 31 - 8;
  for (int32_t c = 0; c < n; ++c) {
    const int32_t diff = in[c] - max_in_row;
    int32_t v = -128;
    if ((keep == nullptr || keep[c] != 0) && diff >= diff_min && exponent <= 31) {
      v = q::rounding_divide_by_pot(q::srdhm(shifted_scale, p.exp_table[-diff]), exponent) - 128;
      if (v > 127) v = 127;
    }
    out[c] = static_cast<int8_t>(v);
  }
}

}  // namespace detail
}  // namespace attn
