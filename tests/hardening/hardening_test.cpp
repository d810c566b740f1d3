// Regression tests for findings of the sanitizer builds, the fuzzers and the
// static checks. Undefined behaviour in a constant expression is a compile
// error, so the static_asserts below prove the absence of UB for their inputs
// on every compiler that builds this file.
#include <gtest/gtest.h>

#include <cstdint>

#include "kernels/s8/fixedpoint.h"

namespace {

constexpr int32_t reciprocal(int32_t x, int* bits) { return attn::q::get_reciprocal(x, 12, bits); }

constexpr int32_t reciprocal_of(int32_t x) {
  int bits = 0;
  return reciprocal(x, &bits);
}

// clang-analyzer: get_reciprocal(0) shifted a uint32_t by 32 (clz32(0) = 32).
static_assert(reciprocal_of(0) == 0, "x == 0 is defined");
static_assert(reciprocal_of(1) > 0, "x == 1: constant expression, positive");
static_assert(reciprocal_of(1 << 19) > 0, "x == 1.0 in Q12.19");
static_assert(reciprocal_of(INT32_MAX) > 0, "x == INT32_MAX: constant expression, positive");

TEST(Hardening, ReciprocalOfZeroIsDefined) {
  int bits = -1;
  EXPECT_EQ(reciprocal(0, &bits), 0);
  EXPECT_EQ(bits, 0);
  // x = 1 in Q12.19 (the softmax sum of a row with one key): unchanged.
  int bits_one = 0;
  const int32_t r = reciprocal(1 << 19, &bits_one);
  EXPECT_EQ(bits_one, 12 - 12);
  EXPECT_GT(r, 0);
}

}  // namespace
