// Quantization parameters and the prepare-time conversion of real multipliers
// to TFLite's Q31 multiplier + shift (see docs/INT8.md). Uses floating point:
// prepare-side only; nothing on an op's eval path calls these.
#pragma once

#include <cstdint>

#include "attn/status.h"

namespace attn {

// real = scale * (q - zero_point); scale a finite float32 > 0, zero_point in
// [-128, 127].
struct QuantParams {
  float scale = 0.0f;
  int32_t zero_point = 0;
};

// A real multiplier m ~= multiplier * 2^(shift - 31), multiplier in
// [2^30, 2^31) (or 0), shift positive = left.
struct QuantizedMultiplier {
  int32_t multiplier = 0;
  int32_t shift = 0;
};

// TFLite's QuantizeMultiplier: q, e = frexp(m); multiplier =
// round-half-away-from-zero(q * 2^31); a multiplier of 2^31 becomes 2^30 with
// e + 1; e < -31 gives (0, 0). m must be >= 0 and finite.
QuantizedMultiplier quantize_multiplier(double m);

// True when scale is finite and > 0 and the zero point is an int8 value.
bool quant_params_ok(const QuantParams& p);

}  // namespace attn
