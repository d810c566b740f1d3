// The float decode op's rotary angles (core/rope.h) against cos and sin in
// double precision, on every target: the double path (hosted, Cortex-M7,
// M55) and the integer phase reduction of single-precision FPUs (Cortex-M4,
// M33), at small and large positions.
//
// Bound: 2^-23 absolute per value: the rounding to float (at most 2^-25 for
// values below 1) plus the reduction's error (at most 1.6e-9 in Q1.30, the
// frequency's below 1e-8 rad at these positions) and the reference's own
// (its angle p * theta^(-2i/dims) in double: below 1e-8 rad for p < 2^24).
#include <cmath>
#include <cstdint>

#include "attn/mha_decode.h"
#include "case.h"
#include "core/rope.h"

ATTN_CASE(RopeF32, AnglesMatchDoubleAtLargePositions) {
  static const int64_t positions[] = {0, 1, 7, 4095, 100003, 123457, 9999991};
  struct Config {
    int32_t dims;
    float theta;
  };
  static const Config configs[] = {{16, 10000.0f}, {12, 1e6f}, {64, 500000.0f}, {2, 10000.0f}};
  float cs[64];
  for (const Config& c : configs) {
    attn::RopeConfig rope;
    rope.dims = c.dims;
    rope.theta = c.theta;
    const int32_t half = c.dims / 2;
    for (int64_t p : positions) {
      attn::detail::rope_angles(p, rope, cs);
      for (int32_t i = 0; i < half; ++i) {
        const double inv_freq =
            std::pow(static_cast<double>(c.theta),
                     -2.0 * static_cast<double>(i) / static_cast<double>(c.dims));
        const double angle = static_cast<double>(p) * inv_freq;
        ATTN_EXPECT_NEAR(cs[i], std::cos(angle), 1.1920928955078125e-07);
        ATTN_EXPECT_NEAR(cs[half + i], std::sin(angle), 1.1920928955078125e-07);
      }
    }
  }
}
