// Prepare of an int8 per-channel FULLY_CONNECTED layer (see fc_s8_prepare.h).
#include "ops/fc_s8_prepare.h"

#include <cmath>

#include "attn/int8/quantize.h"

namespace attn {
namespace detail {
namespace {

// TFLite PopulateConvolutionQuantizationParams: in double, no float rounding.
QuantizedMultiplier channel_multiplier(const QuantParams& x, float w_scale, const QuantParams& y) {
  return quantize_multiplier(static_cast<double>(x.scale) * static_cast<double>(w_scale) /
                             static_cast<double>(y.scale));
}

}  // namespace

Status fc_s8_check(const FcS8Weights& w, int32_t out, const QuantParams& x, const QuantParams& y) {
  if (w.weight == nullptr || w.scales == nullptr) return Status::kNullPointer;
  for (int32_t c = 0; c < out; ++c) {
    const float s = w.scales[c];
    if (!(s > 0.0f) || std::isinf(s)) return Status::kBadArgument;
    if (channel_multiplier(x, s, y).shift > 30) return Status::kBadArgument;
  }
  return Status::kOk;
}

void fc_s8_prepare(const FcS8Weights& w, int32_t in, int32_t out, const QuantParams& x,
                   const QuantParams& y, QuantizedMultiplier* storage, FcS8Layer* layer) {
  for (int32_t c = 0; c < out; ++c) storage[c] = channel_multiplier(x, w.scales[c], y);
  layer->weight = w.weight;
  layer->bias = w.bias;
  layer->multipliers = storage;
  layer->in_features = in;
  layer->out_features = out;
  layer->input_zero_point = x.zero_point;
  layer->output_zero_point = y.zero_point;
}

Status fc_s8_prepare_layers(const FcS8LayerArgs* layers, int count, QuantizedMultiplier* storage) {
  for (int l = 0; l < count; ++l) {
    const FcS8LayerArgs& a = layers[l];
    const Status st = fc_s8_check(*a.weights, a.out, *a.x, *a.y);
    if (st != Status::kOk) return st;
  }
  for (int l = 0; l < count; ++l) {
    const FcS8LayerArgs& a = layers[l];
    fc_s8_prepare(*a.weights, a.in, a.out, *a.x, *a.y, storage, a.layer);
    storage += a.out;
  }
  return Status::kOk;
}

}  // namespace detail
}  // namespace attn
