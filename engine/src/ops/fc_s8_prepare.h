// Prepare of one int8 per-channel FULLY_CONNECTED layer (internal; used by the
// mha, luong general and bahdanau prepares). Two steps so a prepare can check
// every layer before it writes any caller storage: a failing prepare leaves
// the channel storage untouched, as it leaves the params.
#pragma once

#include <cstdint>

#include "attn/int8/layers_s8.h"
#include "attn/status.h"

namespace attn {
namespace detail {

// kNullPointer if w.weight or w.scales is null; kBadArgument if a channel
// scale is not finite and > 0, or x.scale * scale / y.scale is below 2^-31
// (its multiplier would need a right shift > 30). Writes nothing.
Status fc_s8_check(const FcS8Weights& w, int32_t out, const QuantParams& x, const QuantParams& y);

// storage[c] = the channel multipliers (c < out), *layer = the layer over
// them. Only after fc_s8_check returned kOk for the same arguments.
void fc_s8_prepare(const FcS8Weights& w, int32_t in, int32_t out, const QuantParams& x,
                   const QuantParams& y, QuantizedMultiplier* storage, FcS8Layer* layer);

// One layer of fc_s8_prepare_layers: fc_s8_prepare's arguments but storage.
struct FcS8LayerArgs {
  const FcS8Weights* weights = nullptr;
  int32_t in = 0;
  int32_t out = 0;
  const QuantParams* x = nullptr;
  const QuantParams* y = nullptr;
  FcS8Layer* layer = nullptr;
};

// Checks every layer (the first failing fc_s8_check's status; nothing
// written), then prepares them in order, each layer's `out` multipliers in
// storage right after the previous layer's.
Status fc_s8_prepare_layers(const FcS8LayerArgs* layers, int count, QuantizedMultiplier* storage);

}  // namespace detail
}  // namespace attn
