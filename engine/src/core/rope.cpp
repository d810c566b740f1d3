// Rotary position embedding (see core/rope.h).
#include "core/rope.h"

#include <cmath>

namespace attn {
namespace detail {

void rope_angles(int64_t position, const RopeConfig& rope, float* cs) {
  const int32_t half = rope.dims / 2;
  const auto p = static_cast<double>(position);  // exact below 2^53
  const double log_theta = std::log(static_cast<double>(rope.theta));
  for (int32_t i = 0; i < half; ++i) {
    const double inv_freq =
        std::exp(-log_theta * static_cast<double>(2 * i) / static_cast<double>(rope.dims));
    const double angle = p * inv_freq;
    cs[i] = static_cast<float>(std::cos(angle));
    cs[half + i] = static_cast<float>(std::sin(angle));
  }
}

void rope_rotate(float* x, const RopeConfig& rope, const float* cs) {
  const int32_t half = rope.dims / 2;
  // (a, b) -> (a cos - b sin, b cos + a sin) for pairs (i, i + half) or (2i, 2i + 1).
  const int32_t step = rope.style == RopeStyle::kHalfSplit ? 1 : 2;
  const int32_t other = rope.style == RopeStyle::kHalfSplit ? half : 1;
  for (int32_t i = 0; i < half; ++i) {
    float* a = x + i * step;
    float* b = a + other;
    const float c = cs[i];
    const float s = cs[half + i];
    const float a0 = *a;
    const float b0 = *b;
    *a = a0 * c - b0 * s;
    *b = b0 * c + a0 * s;
  }
}

}  // namespace detail
}  // namespace attn
