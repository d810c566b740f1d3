// Rotary position embedding for int8 Q/K codes, in integer arithmetic only
// (internal; the math is in attn/mha_decode_s8.h and docs/INT8.md). Every
// target computes the same bits: no libm call, no floating point.
#pragma once

#include <cstdint>

#include "attn/mha_decode.h"

namespace attn {
namespace detail {

// floor(a * b / 2^64) with 32-bit halves (no 128-bit type on 32-bit Arm).
inline uint64_t mul_hi64(uint64_t a, uint64_t b) {
  const uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
  const uint64_t p0 = a0 * b0, p1 = a0 * b1, p2 = a1 * b0, p3 = a1 * b1;
  const uint64_t mid = (p0 >> 32) + (p1 & 0xFFFFFFFFu) + (p2 & 0xFFFFFFFFu);
  return p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32);
}

// Q0.64 ratio r = theta^(-2 / dims) of consecutive rotary frequencies, from
// the float32 bits of theta (finite, > 1) and dims (even, > 0): log2(theta)
// bit by bit in Q7.57, divided by dims / 2, then 2^-x by a 20-term Taylor
// series of exp(-x ln 2) in Q1.63 (rope_s8_ratio.cpp; prepare time).
uint64_t rope_s8_ratio(const RopeConfig& rope);

// round(2^64 / (2 pi)): the Q0.64 frequency in turns of the first pair.
inline constexpr uint64_t kRopeInvTwoPiQ64 = 0x28BE60DB9391054Aull;

// cos and sin (Q1.30) of phase turns (Q0.64): a Taylor polynomial on an
// eighth of a turn, every division a 32-bit one.
void rope_sincos_turns(uint64_t phase, int32_t* c, int32_t* s);

// cs[i] = cos(angle_i), cs[dims/2 + i] = sin(angle_i) in Q1.30 for pair
// i < dims / 2, angle_i = position * theta^(-2i / dims): the frequency in
// turns f_i = f_{i-1} * r (Q0.64, f_0 = 1 / 2pi), the phase position * f_i
// modulo one turn (exact: modulo 2^64), its cosine and sine by a Taylor
// polynomial on an eighth of a turn.
void rope_s8_angles(int64_t position, int32_t dims, uint64_t ratio, int32_t* cs);

// Calls rotate(a, b, cos_i, sin_i) for each pair (a, b) of element pointers
// that rotary position embedding rotates in one head's row x, i < rope.dims
// / 2: (x[i], x[i + dims/2]) with kHalfSplit, (x[2i], x[2i + 1]) with
// kInterleaved; cs holds the cosines, then the sines (cs[i], cs[dims/2 + i]:
// rope_angles' float32 or rope_s8_angles' Q1.30). The pairing of both the
// float32 and the int8 rotation.
template <class T, class C, class F>
inline void rope_pairs(T* x, const RopeConfig& rope, const C* cs, F rotate) {
  const int32_t half = rope.dims / 2;
  const int32_t step = rope.style == RopeStyle::kHalfSplit ? 1 : 2;
  const int32_t other = rope.style == RopeStyle::kHalfSplit ? half : 1;
  for (int32_t i = 0; i < half; ++i) {
    T* a = x + i * step;
    rotate(a, a + other, cs[i], cs[half + i]);
  }
}

// Rotates the first rope.dims int8 codes of one head's row x (zero point zp,
// one scale) in place, pairs as rope.style says:
//   (a, b) -> (a cos - b sin, b cos + a sin), a = x - zp, in int64, rounded
//   to nearest (ties away from zero) back to the same scale, + zp, clamped.
void rope_s8_rotate(int8_t* x, const RopeConfig& rope, int32_t zp, const int32_t* cs);

}  // namespace detail
}  // namespace attn
