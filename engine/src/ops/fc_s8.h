// TFLite's int8 per-channel FULLY_CONNECTED over rows (internal).
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/int8/layers_s8.h"
#include "kernels/s8/fixedpoint.h"
#include "kernels/s8/kernels_s8.h"

namespace attn {
namespace detail {

// The output code of channel c from its products dot = sum_i x_i w_i and
// sum_w = sum_i w_i: sum (x - x_zp) w = dot - x_zp sum w, exact for in <=
// kFcS8MaxFeatures; the bias is added with int32 wrap-around, as TFLite's
// accumulator.
inline int8_t fc_s8_output(const FcS8Layer& l, int32_t c, int32_t dot, int32_t sum_w) {
  int32_t acc = dot - l.input_zero_point * sum_w;
  if (l.bias != nullptr) acc = q::wrap_add(acc, l.bias[c]);
  const QuantizedMultiplier& m = l.multipliers[c];
  return static_cast<int8_t>(q::requantize(acc, m.multiplier, m.shift, l.output_zero_point));
}

// y[r, c] for r < rows: x rows of x_stride elements, y rows of y_stride.
inline void fc_s8(const FcS8Layer& l, const int8_t* x, std::size_t x_stride, int32_t rows,
                  int8_t* y, std::size_t y_stride) {
  const auto in = static_cast<std::size_t>(l.in_features);
  for (int32_t r = 0; r < rows; ++r) {
    const int8_t* xr = x + static_cast<std::size_t>(r) * x_stride;
    int8_t* yr = y + static_cast<std::size_t>(r) * y_stride;
    for (int32_t c = 0; c < l.out_features; ++c) {
      int32_t sum_w = 0;
      const int32_t dot =
          dot_s8(xr, l.weight + static_cast<std::size_t>(c) * in, l.in_features, &sum_w);
      yr[c] = fc_s8_output(l, c, dot, sum_w);
    }
  }
}

}  // namespace detail
}  // namespace attn
