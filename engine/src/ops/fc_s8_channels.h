// TFLite's int8 per-channel FULLY_CONNECTED (fc_s8.h) for a range of output
// channels, through the multi-row dot kernel (internal): the decode ops'
// projections, where one input row meets every weight row.
//
// Per input row x: the row is packed once in the int8 kernels' query layout
// (qrow_s8_pack, zero point x_zp), then kMhaDecodeS8Channels weight rows at a
// time are dotted against it (qk_s8: sum_k (x_k - x_zp) W[c, k], several rows
// of W per pass, one horizontal reduction per group of rows instead of one
// per channel), and each channel is requantized as fc_s8 does:
//   acc_c = sum_k (x_k - x_zp) W[c, k]  (+ bias[c], int32 wrap-around)
//   y_c   = requantize(acc_c, M_c) + y_zp, clamped to int8
// fc_s8 computes the same acc_c as sum x W - x_zp sum W; both are the exact
// integer (|acc| < 2^31 for in <= kFcS8MaxFeatures), so the bits are fc_s8's.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/int8/layers_s8.h"
#include "attn/mha_decode_s8.h"
#include "attn/scratch.h"
#include "kernels/s8/fixedpoint.h"
#include "kernels/s8/kernels_s8.h"

namespace attn {
namespace detail {

// Channels [c0, c1) of y[r, .] for rows r < rows (x rows of x_stride, y rows
// of y_stride). ws: 64-byte aligned, align64(2 in + 4) bytes for the packed
// row, then kMhaDecodeS8Channels int32 sums.
inline void fc_s8_channels(const FcS8Layer& l, const int8_t* x, std::size_t x_stride, int32_t rows,
                           int8_t* y, std::size_t y_stride, int32_t c0, int32_t c1, void* ws) {
  const auto in = static_cast<std::size_t>(l.in_features);
  auto* packed = static_cast<unsigned char*>(ws);
  auto* dots = static_cast<int32_t*>(static_cast<void*>(packed + align_up(2 * in + 4)));
  for (int32_t r = 0; r < rows; ++r) {
    qrow_s8_pack(x + static_cast<std::size_t>(r) * x_stride, l.input_zero_point, l.in_features,
                 packed);
    int8_t* yr = y + static_cast<std::size_t>(r) * y_stride;
    for (int32_t c = c0; c < c1; c += kMhaDecodeS8Channels) {
      const int32_t n = c1 - c < kMhaDecodeS8Channels ? c1 - c : kMhaDecodeS8Channels;
      qk_s8(packed, l.input_zero_point, l.weight + static_cast<std::size_t>(c) * in, in, n,
            l.in_features, dots);
      for (int32_t i = 0; i < n; ++i) {
        int32_t acc = dots[i];
        if (l.bias != nullptr) acc = q::wrap_add(acc, l.bias[c + i]);
        const QuantizedMultiplier& m = l.multipliers[c + i];
        yr[c + i] =
            static_cast<int8_t>(q::requantize(acc, m.multiplier, m.shift, l.output_zero_point));
      }
    }
  }
}

}  // namespace detail
}  // namespace attn
