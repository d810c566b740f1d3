// Rotary position embedding for int8 codes, integer only (see core/rope_s8.h).
#include "core/rope_s8.h"

#include <cstring>

namespace attn {
namespace detail {
namespace {

constexpr uint64_t kInvTwoPiQ64 = 0x28BE60DB9391054Aull;  // round(2^64 / (2 pi))
constexpr uint64_t kLn2Q64 = 0xB17217F7D1CF79ACull;       // round(2^64 ln 2)
constexpr uint64_t kOneQ63 = uint64_t{1} << 63;
constexpr int64_t kHalfPiQ30 = 1686629713;  // round(2^30 pi / 2)
constexpr int64_t kOneQ30 = int64_t{1} << 30;

// floor(a * b / 2^64) with 32-bit halves (no 128-bit type on 32-bit Arm).
uint64_t mul_hi64(uint64_t a, uint64_t b) {
  const uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
  const uint64_t p0 = a0 * b0, p1 = a0 * b1, p2 = a1 * b0, p3 = a1 * b1;
  const uint64_t mid = (p0 >> 32) + (p1 & 0xFFFFFFFFu) + (p2 & 0xFFFFFFFFu);
  return p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32);
}

// round(a * b / 2^30), a, b >= 0 in Q2.30.
int64_t mul_q30(int64_t a, int64_t b) { return (a * b + (kOneQ30 >> 1)) >> 30; }

// 1 - x2 (1 - x2 / d_1 (1 - ...)) / d_0 for Horner denominators d (Q2.30),
// each division rounded half up.
int64_t horner_q30(int64_t x2, const int64_t* den, int n) {
  int64_t s = kOneQ30;
  for (int k = n - 1; k >= 0; --k) s = kOneQ30 - (mul_q30(x2, s) + den[k] / 2) / den[k];
  return s;
}

// cos and sin (Q1.30) of phase turns (Q0.64).
void sincos_turns(uint64_t phase, int32_t* c, int32_t* s) {
  const auto quadrant = static_cast<uint32_t>(phase >> 62);
  const uint64_t u = (phase >> 30) & 0xFFFFFFFFu;  // Q0.32 of the quadrant
  const bool upper = u > (uint64_t{1} << 31);       // sin(pi/2 - a) = cos(a)
  const uint64_t v = upper ? (uint64_t{1} << 32) - u : u;
  const auto x = static_cast<int64_t>((v * static_cast<uint64_t>(kHalfPiQ30) + (1u << 31)) >> 32);
  const int64_t x2 = mul_q30(x, x);
  static constexpr int64_t kSinDen[] = {2 * 3, 4 * 5, 6 * 7, 8 * 9, 10 * 11};
  static constexpr int64_t kCosDen[] = {1 * 2, 3 * 4, 5 * 6, 7 * 8, 9 * 10, 11 * 12};
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

// RoundingDivideByPOT(x, 30) on int64: to nearest, ties away from zero
// (floor and remainder without shifting a negative value).
int64_t round_shift30(int64_t x) {
  const int64_t mask = kOneQ30 - 1;
  const int64_t floor = x >= 0 ? x >> 30 : -((-x - 1) >> 30) - 1;
  const int64_t rem = x - floor * kOneQ30;  // 0 .. mask
  const int64_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return floor + (rem > threshold ? 1 : 0);
}

int8_t clamp_s8(int64_t v) {
  return static_cast<int8_t>(v < -128 ? -128 : (v > 127 ? 127 : v));
}

}  // namespace

uint64_t rope_s8_ratio(const RopeConfig& rope) {
  uint32_t bits = 0;
  std::memcpy(&bits, &rope.theta, sizeof bits);
  const uint64_t e = ((bits >> 23) & 0xFFu) - 127u;  // theta > 1: 0 .. 127
  uint64_t m = static_cast<uint64_t>((bits & 0x7FFFFFu) | 0x800000u) << 40;  // Q1.63
  uint64_t frac = 0;  // log2(m) in Q0.57, one bit per squaring
  for (int b = 0; b < 57; ++b) {
    const uint64_t sq = mul_hi64(m, m);  // m^2 in Q2.62
    const bool two = sq >= kOneQ63;
    frac = (frac << 1) | (two ? 1u : 0u);
    m = two ? sq : sq << 1;
  }
  const uint64_t log2_theta = (e << 57) | frac;  // Q7.57
  const uint64_t x = log2_theta / static_cast<uint64_t>(rope.dims / 2);
  const uint64_t whole = x >> 57;
  if (whole >= 64) return 0;
  // 2^-phi = exp(-y), y = phi ln 2 in Q1.63, Horner over 20 Taylor terms.
  const uint64_t y = mul_hi64((x & ((uint64_t{1} << 57) - 1)) << 7, kLn2Q64) >> 1;
  uint64_t s = kOneQ63;
  for (uint64_t k = 20; k >= 1; --k) s = kOneQ63 - (mul_hi64(y, s) << 1) / k;
  const uint64_t r = s >= kOneQ63 ? ~uint64_t{0} : s << 1;  // Q0.64
  return r >> whole;
}

void rope_s8_angles(int64_t position, int32_t dims, uint64_t ratio, int32_t* cs) {
  const int32_t half = dims / 2;
  const auto p = static_cast<uint64_t>(position);
  uint64_t f = kInvTwoPiQ64;
  for (int32_t i = 0; i < half; ++i) {
    sincos_turns(p * f, &cs[i], &cs[half + i]);  // p f modulo one turn
    f = mul_hi64(f, ratio);
  }
}

void rope_s8_rotate(int8_t* x, const RopeConfig& rope, int32_t zp, const int32_t* cs) {
  const int32_t half = rope.dims / 2;
  const int32_t step = rope.style == RopeStyle::kHalfSplit ? 1 : 2;
  const int32_t other = rope.style == RopeStyle::kHalfSplit ? half : 1;
  for (int32_t i = 0; i < half; ++i) {
    int8_t* pa = x + i * step;
    int8_t* pb = pa + other;
    const int64_t a = *pa - zp;
    const int64_t b = *pb - zp;
    const int64_t c = cs[i];
    const int64_t s = cs[half + i];
    *pa = clamp_s8(round_shift30(a * c - b * s) + zp);
    *pb = clamp_s8(round_shift30(b * c + a * s) + zp);
  }
}

}  // namespace detail
}  // namespace attn
