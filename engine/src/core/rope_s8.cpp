// Rotary position embedding for int8 codes, integer only (see core/rope_s8.h).
#include "core/rope_s8.h"

namespace attn {
namespace detail {
namespace {

constexpr int64_t kHalfPiQ30 = 1686629713;  // round(2^30 pi / 2)
constexpr int64_t kOneQ30 = int64_t{1} << 30;

// round(a * b / 2^30), a, b >= 0 in Q2.30.
int64_t mul_q30(int64_t a, int64_t b) { return (a * b + (kOneQ30 >> 1)) >> 30; }

// 1 - x2 (1 - x2 / d_1 (1 - ...)) / d_0 for Horner denominators d (Q2.30),
// each division rounded half up (the dividend stays below 2^31: a 32-bit
// division, one instruction on Cortex-M).
int64_t horner_q30(int64_t x2, const uint32_t* den, int n) {
  int64_t s = kOneQ30;
  for (int k = n - 1; k >= 0; --k) {
    const auto num = static_cast<uint32_t>(mul_q30(x2, s)) + den[k] / 2;
    s = kOneQ30 - static_cast<int64_t>(num / den[k]);
  }
  return s;
}

// RoundingDivideByPOT(x, 30) on int64: to nearest, ties away from zero
// (floor and remainder without shifting a negative value).
int64_t round_shift30(int64_t x) {
  const int64_t mask = kOneQ30 - 1;
  const int64_t floor = x >= 0 ? x >> 30 : -((-x - 1) >> 30) - 1;
  const int64_t rem = x - floor * kOneQ30;  // 0 .. mask
  const int64_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return floor + (rem > threshold ? 1 : 0);
}

int8_t clamp_s8(int64_t v) { return static_cast<int8_t>(v < -128 ? -128 : (v > 127 ? 127 : v)); }

}  // namespace

void rope_sincos_turns(uint64_t phase, int32_t* c, int32_t* s) {
  const auto quadrant = static_cast<uint32_t>(phase >> 62);
  const uint64_t u = (phase >> 30) & 0xFFFFFFFFu;  // Q0.32 of the quadrant
  const bool upper = u > (uint64_t{1} << 31);      // sin(pi/2 - a) = cos(a)
  const uint64_t v = upper ? (uint64_t{1} << 32) - u : u;
  const auto x = static_cast<int64_t>((v * static_cast<uint64_t>(kHalfPiQ30) + (1u << 31)) >> 32);
  const int64_t x2 = mul_q30(x, x);
  static constexpr uint32_t kSinDen[] = {2 * 3, 4 * 5, 6 * 7, 8 * 9, 10 * 11};
  static constexpr uint32_t kCosDen[] = {1 * 2, 3 * 4, 5 * 6, 7 * 8, 9 * 10, 11 * 12};
  const int64_t sin_a = mul_q30(x, horner_q30(x2, kSinDen, 5));
  const int64_t cos_a = horner_q30(x2, kCosDen, 6);
  const auto sa = static_cast<int32_t>(upper ? cos_a : sin_a);
  const auto ca = static_cast<int32_t>(upper ? sin_a : cos_a);
  // angle = quadrant * pi / 2 + a
  const int32_t cq[4] = {ca, -sa, -ca, sa};
  const int32_t sq[4] = {sa, ca, -sa, -ca};
  *c = cq[quadrant];
  *s = sq[quadrant];
}

void rope_s8_angles(int64_t position, int32_t dims, uint64_t ratio, int32_t* cs) {
  const int32_t half = dims / 2;
  const auto p = static_cast<uint64_t>(position);
  uint64_t f = kRopeInvTwoPiQ64;
  for (int32_t i = 0; i < half; ++i) {
    rope_sincos_turns(p * f, &cs[i], &cs[half + i]);  // p f modulo one turn
    f = mul_hi64(f, ratio);
  }
}

void rope_s8_rotate(int8_t* x, const RopeConfig& rope, int32_t zp, const int32_t* cs) {
  rope_pairs(x, rope, cs, [zp](int8_t* pa, int8_t* pb, int64_t c, int64_t s) {
    const int64_t a = *pa - zp;
    const int64_t b = *pb - zp;
    *pa = clamp_s8(round_shift30(a * c - b * s) + zp);
    *pb = clamp_s8(round_shift30(b * c + a * s) + zp);
  });
}

}  // namespace detail
}  // namespace attn
