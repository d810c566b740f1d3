// Prepare-side quantization helpers (see attn/int8/quantize.h).
#include "attn/int8/quantize.h"

#include <cmath>

namespace attn {

QuantizedMultiplier quantize_multiplier(double m) {
  QuantizedMultiplier r;
  if (!(m > 0.0) || std::isinf(m)) return r;
  int e = 0;
  const double q = std::frexp(m, &e);
  // q * 2^31 is exact (a power-of-two scaling); std::round rounds half away from 0.
  auto fixed = static_cast<int64_t>(std::round(q * 2147483648.0));
  if (fixed == (int64_t{1} << 31)) {
    fixed /= 2;
    ++e;
  }
  if (e < -31) {
    fixed = 0;
    e = 0;
  }
  r.multiplier = static_cast<int32_t>(fixed);
  r.shift = e;
  return r;
}

bool quant_params_ok(const QuantParams& p) {
  return p.scale > 0.0f && !std::isinf(p.scale) && p.zero_point >= -128 && p.zero_point <= 127;
}

}  // namespace attn
