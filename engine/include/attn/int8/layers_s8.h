// The int8 layers the attention ops share, with TensorFlow Lite's semantics
// (docs/INT8.md): the per-channel FULLY_CONNECTED layer (mha_s8, luong_s8,
// bahdanau_s8) and the ADD parameters (bahdanau_s8).
//
// FULLY_CONNECTED: weights int8 [out, in], symmetric (zero point 0), one
// float32 scale per output channel, bias int32 [out] (scale input_scale *
// weight_scale[c]) or null;
//   acc_c = sum_k (x_k - x_zp) * W[c, k] + bias[c]   (int32, wrapping as TFLite)
//   y_c   = requantize(acc_c, M_c) + y_zp, clamped to int8
// with M_c = QuantizeMultiplier((double)x_scale * (double)w_scale[c] /
// (double)y_scale) (see attn/mha_s8.h). Each op's prepare fills the
// FcS8Layer of its layers from FcS8Weights.
#pragma once

#include <cstdint>

#include "attn/int8/quantize.h"
#include "attn/status.h"

namespace attn {

// Largest input feature count of an exact layer: in * 255 * 128 < 2^31.
inline constexpr int32_t kFcS8MaxFeatures = 65793;

// One FULLY_CONNECTED layer: weight [out, in], scales [out], bias [out] or null.
struct FcS8Weights {
  const int8_t* weight = nullptr;
  const float* scales = nullptr;  // per output channel (prepare only)
  const int32_t* bias = nullptr;
};

// A prepared layer (what eval reads): per-channel multipliers from prepare.
struct FcS8Layer {
  const int8_t* weight = nullptr;
  const int32_t* bias = nullptr;
  const QuantizedMultiplier* multipliers = nullptr;  // [out]
  int32_t in_features = 0, out_features = 0;
  int32_t input_zero_point = 0, output_zero_point = 0;
};

// TFLite int8 ADD parameters.
struct AddS8Params {
  int32_t input1_zero_point = 0, input2_zero_point = 0, output_zero_point = 0;
  QuantizedMultiplier input1{}, input2{}, output{};
};

// TFLite int8 ADD prepare: kBadArgument for invalid quantization.
Status add_s8_prepare(const QuantParams& in1, const QuantParams& in2, const QuantParams& out,
                      AddS8Params* params);

}  // namespace attn
