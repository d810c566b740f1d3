// IEEE binary16 <-> float32 conversion of one value, portable (integer bit
// manipulation, no compiler half type): the reference of the f16_to_f32 /
// f32_to_f16 kernels (kernels_f32.h), which convert whole rows.
//
// from_f32 rounds to nearest, ties to even: values from 65520 up become
// +-inf, below 2^-14 they round to the nearest subnormal (2^-24 steps), NaN
// stays a quiet NaN with the top mantissa bits kept. to_f32 is exact; a NaN
// keeps its sign and payload and comes out quiet (the quiet bit set, as the
// hardware conversions F16C, NEON FCVTL and SVE FCVT give it).
#pragma once

#include <cstdint>
#include <cstring>

namespace attn {
namespace f16 {

inline uint16_t from_f32(float f) {
  uint32_t x = 0;
  std::memcpy(&x, &f, sizeof x);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t mag = x & 0x7fffffffu;
  if (mag > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((mag >> 13) & 0x3ffu));
  if (mag >= 0x47800000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65536, inf
  uint32_t h = 0;
  uint32_t rem = 0;
  uint32_t half = 0;
  if (mag >= 0x38800000u) {  // normal: rebias the exponent by 127 - 15
    h = (mag - 0x38000000u) >> 13;
    rem = mag & 0x1fffu;
    half = 0x1000u;
  } else {
    const uint32_t e = mag >> 23;
    if (e < 102) return static_cast<uint16_t>(sign);  // below 2^-25: 0
    // value = m * 2^(e - 150); subnormal units of 2^-24: m >> (126 - e)
    const uint32_t m = (mag & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - e;
    h = m >> shift;
    rem = m & ((1u << shift) - 1u);
    half = 1u << (shift - 1u);
  }
  // A carry out of the mantissa steps into the exponent (65520 .. 65536: inf).
  if (rem > half || (rem == half && (h & 1u) != 0)) ++h;
  return static_cast<uint16_t>(sign | h);
}

inline float to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu;
  const uint32_t m = h & 0x3ffu;
  uint32_t x = 0;
  if (e == 31) {
    x = sign | 0x7f800000u | (m << 13) | (m != 0 ? 0x400000u : 0u);  // inf, or a quiet NaN
  } else if (e != 0) {
    x = sign | ((e + 112u) << 23) | (m << 13);
  } else {
    const float sub = static_cast<float>(m) * (1.0f / 16777216.0f);  // m * 2^-24, exact
    return sign != 0 ? -sub : sub;
  }
  float f = 0.0f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}

}  // namespace f16
}  // namespace attn
