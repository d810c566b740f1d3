// Softmax, int8 in and int8 out, bit-identical to TensorFlow Lite's reference
// SOFTMAX (and CMSIS-NN's arm_softmax_s8).
//
//   out[r, c] = softmax(beta * input_scale * (in[r, :] - zp))[c] quantized with
//               scale 1/256 and zero point -128 (the TFLite int8 convention)
//
// Layout: in, out [rows, cols] row-major int8. The input zero point cancels
// (only differences to the row maximum matter), so it is not a parameter.
//
// Prepare (floating point, once): from (input_scale, beta)
//   real      = min((double)beta * (double)input_scale * 2^26, 2^31 - 1)
//   (mult, shift) = quantize_multiplier(real)          shift in [1, 31]
//   diff_min  = -floor(31 * 2^26 / 2^shift)
//   exp_table[i] = exp_on_negative_values(SRDHM(-i * 2^shift, mult)), i = 0..255
//              (Q0.31; 0 for -i < diff_min)
// The table makes eval one lookup per element instead of the gemmlowp
// polynomial, with the same bits. Eval uses integer arithmetic only.
//
// Row length limit: the row's sum of exponentials is accumulated in Q12.19,
// each term at most 2^19, so a row of up to kSoftmaxS8MaxCols = 4095 elements
// is exact; longer rows return kOverflow (TFLite's int32 sum would wrap).
// Rows with >= 512 elements at the maximum make the final shift exceed 31:
// those outputs are the exactly rounded value (-128), as Arm hardware and
// CMSIS-NN give; gemmlowp's RoundingDivideByPOT asserts exponent <= 31 there.
#pragma once

#include <cstdint>

#include "attn/status.h"

namespace attn {

inline constexpr int32_t kSoftmaxS8MaxCols = 4095;

struct SoftmaxS8Params {
  int32_t input_multiplier = 0;
  int32_t input_left_shift = 0;
  int32_t diff_min = 0;
  // exp(-i) of every possible int8 difference i = max - x, Q0.31.
  int32_t exp_table[256] = {};
};

// Returns kOk, or kNullPointer (params null) or kBadArgument (input_scale or
// beta not finite and > 0, or beta * input_scale < 2^-26 so that the TFLite
// multiplier would be below one).
Status softmax_s8_prepare(float input_scale, float beta, SoftmaxS8Params* params);

struct SoftmaxS8Shape {
  int32_t rows = 0;
  int32_t cols = 0;
};

struct SoftmaxS8Args {
  const int8_t* in = nullptr;  // [rows, cols]
  int8_t* out = nullptr;       // [rows, cols]; may alias in exactly (in place)
};

// Returns kOk, or without writing anything:
//   kNullPointer  in or out is null
//   kBadShape     rows or cols <= 0
//   kOverflow     cols > kSoftmaxS8MaxCols
// Needs no scratch.
Status softmax_s8(const SoftmaxS8Shape& shape, const SoftmaxS8Params& params,
                  const SoftmaxS8Args& args);

}  // namespace attn
