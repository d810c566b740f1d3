// attn::platform::print against glibc's snprintf, an independent printf: the
// same format and arguments must give the same characters. The test replaces
// the console hook to capture the output.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "attn/platform.h"

namespace {
std::string g_out;
}  // namespace

extern "C" void attn_platform_putc(char c) { g_out.push_back(c); }

namespace {

template <typename... Args>
void expect_like_printf(const char* fmt, Args... args) {
  g_out.clear();
  attn::platform::print(fmt, args...);
  char want[512];
  std::snprintf(want, sizeof want, fmt, args...);
  EXPECT_EQ(g_out, want) << "format \"" << fmt << "\"";
}

double from_bits(uint64_t bits) {
  double v = 0;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

TEST(Print, IntegersStringsAndFlags) {
  expect_like_printf("%d|%5d|%-5d|%05d|%i", -42, 42, 42, -42, 0);
  expect_like_printf("%u %x %X %lu %llx %zu", 3000000000u, 0xbeefu, 0xbeefu, 123456789ul,
                     0x123456789abcdefull, std::size_t{77});
  expect_like_printf("%lld %ld", static_cast<long long>(INT64_MIN), -5l);
  expect_like_printf("[%s] [%8s] [%-8s] [%c] 100%%", "attn", "abc", "abc", 'x');
}

TEST(Print, FixedPointFloatMatchesPrintf) {
  expect_like_printf("%f %.0f %.1f %.3f %8.4f %-9.2f| %09.3f", 0.98522025, 2.5, 0.05, -1.0005,
                     1.74174051, 3.14159, -2.5);
  // Ties at the last digit, exact in binary: rounded to even like printf.
  expect_like_printf("%.0f %.0f %.0f %.1f %.1f %.2f", 0.5, 1.5, 2.5, 0.25, 0.75, 1.125);
  // Carries into the integer part, signed zero, rounding to zero.
  expect_like_printf("%.2f %.3f %.2f %.2f %f", 9.999, 99.9996, -0.0, -0.001, 1e-300);
  // Extremes: the largest fixed-point magnitudes, subnormals, precision 30.
  expect_like_printf("%f %f %.30f %.30f", 18446744073709549568.0, -9007199254740993.0,
                     std::numeric_limits<double>::denorm_min(), 0.1);
}

TEST(Print, NonFiniteAndHugeValues) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expect_like_printf("%f %f %5f %-5f| %f", inf, -inf, inf, nan, -nan);
  // 2^64 and above: C's %a form.
  g_out.clear();
  attn::platform::print("%f %f %f", 18446744073709551616.0, -1.5 * 18446744073709551616.0,
                        std::numeric_limits<double>::max());
  char want[128];
  std::snprintf(want, sizeof want, "%a %a %a", 18446744073709551616.0,
                -1.5 * 18446744073709551616.0, std::numeric_limits<double>::max());
  EXPECT_EQ(g_out, want);
}

// Random bit patterns over every exponent (doubles) and random floats as the
// engine's users print them (promoted to double), at precisions 0 to 12.
TEST(Print, RandomValuesMatchPrintf) {
  std::mt19937_64 rng(20261125);
  int checked = 0;
  for (int i = 0; i < 20000; ++i) {
    double v = from_bits(rng());
    if (i % 2 == 1) {
      uint32_t fbits = static_cast<uint32_t>(rng());
      float f = 0;
      std::memcpy(&f, &fbits, sizeof f);
      v = f;
    } else if (i % 4 == 0) {
      // Magnitudes around 1 (exponent within +-40): many digits on both sides.
      const uint64_t bits = rng();
      v = from_bits((bits & 0x800fffffffffffffull) |
                    (static_cast<uint64_t>(1023 - 40 + static_cast<int>(bits >> 52) % 81) << 52));
    }
    if (!std::isfinite(v) || std::fabs(v) >= 18446744073709551616.0) continue;
    const int precision = static_cast<int>(rng() % 13);
    char fmt[16];
    std::snprintf(fmt, sizeof fmt, "%%.%df", precision);
    expect_like_printf(fmt, v);
    ++checked;
  }
  EXPECT_GT(checked, 15000);
}

}  // namespace
