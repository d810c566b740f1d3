// One row of int8 softmax from a prepared exp table (internal; see
// attn/softmax_s8.h for the semantics).
#pragma once

#include <cstdint>

#include "attn/softmax_s8.h"
#include "kernels/s8/fixedpoint.h"
#include "kernels/s8/kernels_s8.h"

namespace attn {
namespace detail {

// The pieces of one int8 softmax row over the columns with keep[c] != 0
// (keep null: every column), in TFLite's order: the row max, the sum of the
// table exps (Q12.19) of the columns within diff_min of it, its reciprocal,
// then the outputs. A row split into column ranges gives the same bits: the
// max of the ranges' maxima is the row max, and the sum is an exact integer
// sum of the ranges' sums (the key split of attend_s8_run).
inline int32_t softmax_s8_max(const int8_t* in, int32_t n, const uint8_t* keep) {
  int32_t max_in_row = -128;
  for (int32_t c = 0; c < n; ++c) {
    // in is a row of n scores whenever n > 0. clang-analyzer follows the key
    // split (attend_s8_key_split_row) with a null scratch slice, which no op
    // passes: each validates its scratch before calling the core.
    // NOLINTNEXTLINE(clang-analyzer-core.NullDereference)
    if ((keep == nullptr || keep[c] != 0) && in[c] > max_in_row) max_in_row = in[c];
  }
  return max_in_row;
}

inline int32_t softmax_s8_sum_exps(const SoftmaxS8Params& p, const int8_t* in, int32_t n,
                                   const uint8_t* keep, int32_t max_in_row) {
  int32_t sum_of_exps = 0;
  for (int32_t c = 0; c < n; ++c) {
    if (keep != nullptr && keep[c] == 0) continue;
    const int32_t diff = in[c] - max_in_row;
    if (diff >= p.diff_min) sum_of_exps += q::rounding_divide_by_pot(p.exp_table[-diff], 12);
  }
  return sum_of_exps;
}

// 1 / sum as a Q31 scale and the outputs' exponent num_bits_over_unit + 31 - 8,
// in [23, 34]; above 31 every output rounds to 0 (value < 2^31 / 2^32).
struct SoftmaxS8Scale {
  int32_t shifted_scale;
  int exponent;
};
inline SoftmaxS8Scale softmax_s8_scale(int32_t sum_of_exps) {
  int num_bits_over_unit = 0;
  const int32_t shifted_scale = q::get_reciprocal(sum_of_exps, 12, &num_bits_over_unit);
  return SoftmaxS8Scale{shifted_scale, num_bits_over_unit + 31 - 8};
}

inline void softmax_s8_outputs(const SoftmaxS8Params& p, const int8_t* in, int8_t* out, int32_t n,
                               const uint8_t* keep, int32_t max_in_row, SoftmaxS8Scale scale) {
  for (int32_t c = 0; c < n; ++c) {
    const int32_t diff = in[c] - max_in_row;
    int32_t v = -128;
    if ((keep == nullptr || keep[c] != 0) && diff >= p.diff_min && scale.exponent <= 31) {
      v = q::rounding_divide_by_pot(q::srdhm(scale.shifted_scale, p.exp_table[-diff]),
                                    scale.exponent) -
          128;
      if (v > 127) v = 127;
    }
    out[c] = static_cast<int8_t>(v);
  }
}

// out[c] for c < n: softmax of in[0..n) over the columns with keep[c] != 0
// (keep null: every column, with the kernel set's row softmax); the others,
// and columns cut by diff_min, get -128. Every kept row must have at least
// one kept column; n <= 4095. in and out may be the same buffer.
inline void softmax_row_s8(const SoftmaxS8Params& p, const int8_t* in, int8_t* out, int32_t n,
                           const uint8_t* keep) {
  if (keep == nullptr) {
    softmax_s8_row(p.exp_table, p.diff_min, in, out, n);
    return;
  }
  const int32_t max_in_row = softmax_s8_max(in, n, keep);
  const int32_t sum = softmax_s8_sum_exps(p, in, n, keep, max_in_row);
  softmax_s8_outputs(p, in, out, n, keep, max_in_row, softmax_s8_scale(sum));
}

}  // namespace detail
}  // namespace attn
