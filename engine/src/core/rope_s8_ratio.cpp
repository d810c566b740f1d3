// Rotary frequency ratio for int8 RoPE, integer only (see core/rope_s8.h).
// Prepare time: 64-bit divisions are fine here.
#include <cstring>

#include "core/rope_s8.h"

namespace attn {
namespace detail {
namespace {

constexpr uint64_t kLn2Q64 = 0xB17217F7D1CF79ACull;  // round(2^64 ln 2)
constexpr uint64_t kOneQ63 = uint64_t{1} << 63;

}  // namespace

uint64_t rope_s8_ratio(const RopeConfig& rope) {
  uint32_t bits = 0;
  std::memcpy(&bits, &rope.theta, sizeof bits);
  const uint64_t e = ((bits >> 23) & 0xFFu) - 127u;                          // theta > 1: 0 .. 127
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

}  // namespace detail
}  // namespace attn
