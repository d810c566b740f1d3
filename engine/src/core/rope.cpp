// Rotary position embedding (see core/rope.h).
#include "core/rope.h"

#include <cmath>

#include "core/rope_s8.h"

namespace attn {
namespace detail {

#if defined(__ARM_FP) && !(__ARM_FP & 8)
// A single-precision FPU (Cortex-M4, M33): double arithmetic would be the C
// library's software emulation (about 5,000 instructions a pair on
// Cortex-M4). The int8 op's integer reduction instead: the frequency in turns
// f_i = f_0 r^i in Q0.64 (r = theta^(-2 / dims) from theta's bits), the phase
// position * f_i modulo one turn, exact in 64-bit integers, its cosine and
// sine in Q1.30 (absolute error at most 1.6e-9 over 2e7 random phases, far
// below float rounding), then rounded to float.
void rope_angles(int64_t position, const RopeConfig& rope, float* cs) {
  const int32_t half = rope.dims / 2;
  const uint64_t ratio = rope_s8_ratio(rope);
  const auto p = static_cast<uint64_t>(position);
  uint64_t f = kRopeInvTwoPiQ64;
  constexpr float kQ30 = 1.0f / 1073741824.0f;  // 2^-30
  for (int32_t i = 0; i < half; ++i) {
    int32_t c = 0;
    int32_t s = 0;
    rope_sincos_turns(p * f, &c, &s);
    cs[i] = static_cast<float>(c) * kQ30;
    cs[half + i] = static_cast<float>(s) * kQ30;
    f = mul_hi64(f, ratio);
  }
}
#else
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
#endif

void rope_rotate(float* x, const RopeConfig& rope, const float* cs) {
  // (a, b) -> (a cos - b sin, b cos + a sin) for pairs (i, i + half) or (2i, 2i + 1).
  rope_pairs(x, rope, cs, [](float* a, float* b, float c, float s) {
    const float a0 = *a;
    const float b0 = *b;
    *a = a0 * c - b0 * s;
    *b = b0 * c + a0 * s;
  });
}

}  // namespace detail
}  // namespace attn
