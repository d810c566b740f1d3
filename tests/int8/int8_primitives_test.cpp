// The int8 primitives against their definitions in wide integers, and the
// int8 kernels against their references.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "attn/int8/quantize.h"
#include "case.h"
#include "kernels/s8/fixedpoint.h"
#include "kernels/s8/kernels_s8.h"

namespace {

using namespace attn::q;

// floor(a / 2^e) for any int64 (Python's >>).
int64_t floor_shift(int64_t a, int e) {
  const int64_t d = int64_t{1} << e;
  int64_t q = a / d;
  if (a % d != 0 && a < 0) --q;
  return q;
}

int32_t srdhm_def(int32_t a, int32_t b) {
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  return static_cast<int32_t>(floor_shift(int64_t{a} * b + (int64_t{1} << 30), 31));
}

// Round to nearest, ties away from zero, of x / 2^e.
int32_t rdbp_def(int32_t x, int e) {
  const int64_t d = int64_t{1} << e;
  const int64_t ax = x < 0 ? -int64_t{x} : int64_t{x};
  int64_t q = ax / d;
  if (2 * (ax % d) >= d) ++q;
  return static_cast<int32_t>(x < 0 ? -q : q);
}

std::vector<int32_t> interesting(attn_test::Rng& r) {
  // clang-format 14 gives these mixed-width values one line each:
  // clang-format off
  std::vector<int32_t> v = {0, 1, -1, 2, -2, INT32_MIN, INT32_MAX, INT32_MIN + 1, INT32_MAX - 1,
                            1 << 30, -(1 << 30), (1 << 30) + 1, -(1 << 30) - 1, 12345, -12345};
  // clang-format on
  for (int i = 0; i < 2000; ++i) {
    const auto u = static_cast<int32_t>(r.next());
    v.push_back(u);
    v.push_back(u >> (r.next() % 31));
  }
  return v;
}

TEST(Int8Primitives, SrdhmMatchesDefinition) {
  attn_test::Rng r(1);
  const auto v = interesting(r);
  for (std::size_t i = 0; i < v.size(); ++i) {
    for (std::size_t j = 0; j < v.size(); j += 37) {
      ASSERT_EQ(srdhm(v[i], v[j]), srdhm_def(v[i], v[j])) << v[i] << " " << v[j];
    }
  }
}

TEST(Int8Primitives, RoundingDivideByPotMatchesDefinition) {
  attn_test::Rng r(2);
  for (int32_t x : interesting(r)) {
    for (int e = 0; e <= 31; ++e)
      ASSERT_EQ(rounding_divide_by_pot(x, e), rdbp_def(x, e)) << x << " " << e;
  }
}

TEST(Int8Primitives, SaturatingShiftAndWrap) {
  attn_test::Rng r(3);
  for (int32_t x : interesting(r)) {
    for (int e = 1; e <= 30; ++e) {
      int64_t w = int64_t{x} * (int64_t{1} << e);
      const int32_t sat = w > INT32_MAX ? INT32_MAX
                                        : (w < INT32_MIN ? INT32_MIN : static_cast<int32_t>(w));
      ASSERT_EQ(saturating_shl(x, e), sat);
      ASSERT_EQ(wrap_shl(x, e), static_cast<int32_t>(static_cast<uint32_t>(w & 0xffffffff)));
    }
  }
}

TEST(Int8Primitives, QuantizeMultiplier) {
  EXPECT_EQ(attn::quantize_multiplier(0.5).multiplier, 1 << 30);
  EXPECT_EQ(attn::quantize_multiplier(0.5).shift, 0);
  EXPECT_EQ(attn::quantize_multiplier(1.0).shift, 1);
  // 2^31 - 1 keeps its full multiplier.
  EXPECT_EQ(attn::quantize_multiplier(2147483647.0).multiplier, INT32_MAX);
  EXPECT_EQ(attn::quantize_multiplier(2147483647.0).shift, 31);
  // Rounds up to 2^31: becomes 2^30 with shift + 1.
  const auto m = attn::quantize_multiplier(std::nextafter(1.0, 0.0));
  EXPECT_EQ(m.multiplier, 1 << 30);
  EXPECT_EQ(m.shift, 1);
  EXPECT_EQ(attn::quantize_multiplier(std::ldexp(1.0, -40)).multiplier, 0);
  EXPECT_EQ(attn::quantize_multiplier(std::ldexp(1.0, -40)).shift, 0);
  for (double x = 1e-9; x < 1e9; x *= 1.37) {
    const auto q = attn::quantize_multiplier(x);
    EXPECT_NEAR(std::ldexp(static_cast<double>(q.multiplier), q.shift - 31), x, x * 1e-9);
  }
}

TEST(Int8Primitives, ExpAndReciprocalAccuracy) {
  double worst = 0;
  for (int64_t a = -(int64_t{31} << 26); a <= 0; a += 9973) {
    const double e = exp_on_negative_values_q5_26(static_cast<int32_t>(a)) / 2147483648.0;
    worst = std::fmax(worst, std::fabs(e - std::exp(static_cast<double>(a) / 67108864.0)));
  }
  EXPECT_LT(worst, 5e-7);
  worst = 0;
  for (int64_t a = 0; a <= INT32_MAX; a += 99991) {
    const double x = static_cast<double>(a) / 2147483648.0;
    const double r = one_over_one_plus_x_for_x_in_0_1(static_cast<int32_t>(a)) / 2147483648.0;
    worst = std::fmax(worst, std::fabs(r - 1.0 / (1.0 + x)));
  }
  EXPECT_LT(worst, 1e-8);
}

TEST(Int8Kernels, FastKernelsMatchReference) {
  attn_test::Rng r(9);
  std::vector<int8_t> a(600), b(600);
  for (auto& x : a) x = static_cast<int8_t>(r.range(-128, 127));
  for (auto& x : b) x = static_cast<int8_t>(r.range(-128, 127));
  a[0] = -128;
  b[0] = -128;
  for (int32_t off = 0; off < 4; ++off) {
    for (int32_t n : {0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 255, 511}) {
      int32_t s_ref = 0, s = 0;
      const int32_t d_ref =
          attn::detail::dot_s8_ref(a.data() + off, b.data() + 3 - off % 2, n, &s_ref);
      const int32_t d = attn::detail::dot_s8(a.data() + off, b.data() + 3 - off % 2, n, &s);
      ASSERT_EQ(d, d_ref) << n;
      ASSERT_EQ(s, s_ref) << n;
      std::vector<int32_t> acc_ref(static_cast<std::size_t>(n) + 1, 7), acc(acc_ref);
      attn::detail::mac_s8_ref(acc_ref.data(), b.data() + off, 255 - off, n);
      attn::detail::mac_s8(acc.data(), b.data() + off, 255 - off, n);
      ASSERT_EQ(acc, acc_ref) << n;
    }
  }
}

}  // namespace
