// The float Q.K^T tile and P.V update this build selected (Cortex-M: the
// register-blocked mcu kernels; hosted: the SIMD backend) against the ref
// kernels, on block edges (query, key and column counts that are not
// multiples of the blocks), odd strides and odd offsets; its exp pass against
// double-precision exp.
//
// Bound: a sum of n products computed in any order with FMA or separate
// rounding differs from the exact one by at most n * eps * sum |terms| (plus
// the result's own rounding); two such sums by twice that. Checked against
// ref per element with tol = 2 (n + 1) eps sum_x |a_x b_x| (+ |acc| for P.V).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "case.h"
#include "kernels/f32/exp_poly.h"
#include "kernels/f32/kernels_f32.h"
#include "kernels/f32/tanh_poly.h"

namespace {

constexpr double kEps = 1.1920928955078125e-07;  // 2^-23
constexpr std::size_t kA = 700, kB = 1400, kOut = 400;

// The cases' buffers, from the shared test arena (the board images keep no
// RAM of their own for them).
struct Buffers {
  attn_test::Arena arena;
  float* a = arena.alloc<float>(kA);
  float* b = arena.alloc<float>(kB);
  float* out = arena.alloc<float>(kOut);
  float* out_ref = arena.alloc<float>(kOut);
  double* expected = arena.alloc<double>(kOut);
  double* tol = arena.alloc<double>(kOut);
};

// Shapes straddling the 4 x 4 blocks.
const int32_t kRows[] = {1, 2, 3, 4, 5, 7, 8, 9};
const int32_t kCols[] = {1, 3, 4, 5, 8, 13};
const int32_t kDepths[] = {1, 2, 3, 7, 16, 33};

}  // namespace

ATTN_CASE(KernelsF32, QkTileMatchesReference) {
  Buffers buf;
  ATTN_ASSERT_TRUE(buf.arena.ok());
  attn_test::Rng rng(91);
  attn_test::fill_uniform(rng, buf.a, kA, -2.0f, 2.0f);
  attn_test::fill_uniform(rng, buf.b, kB, -2.0f, 2.0f);
  for (int32_t off = 0; off < 3; ++off) {
    for (int32_t nq : kRows) {
      for (int32_t nk : kCols) {
        for (int32_t d : kDepths) {
          const std::size_t q_stride = static_cast<std::size_t>(d + off);
          const std::size_t k_stride = static_cast<std::size_t>(d + 2 * off + 1);
          const std::size_t s_stride = static_cast<std::size_t>(nk + off);
          const float* q = buf.a + off;
          const float* k = buf.b + 2 * off + 1;
          const std::size_t n = static_cast<std::size_t>(nq) * s_stride;
          for (std::size_t i = 0; i < n; ++i) buf.out[i] = buf.out_ref[i] = -7.0f;
          attn::kernels::qk_tile_f32(q, q_stride, nq, k, k_stride, nk, d, buf.out, s_stride);
          attn::ref::qk_tile_f32(q, q_stride, nq, k, k_stride, nk, d, buf.out_ref, s_stride);
          for (std::size_t e = 0; e < n; ++e) {
            const std::size_t i = e / s_stride, j = e % s_stride;
            buf.expected[e] = buf.out_ref[e];
            buf.tol[e] = 0.0;  // gaps between rows stay untouched
            if (j >= static_cast<std::size_t>(nk)) continue;
            double mag = 0.0;
            for (int32_t x = 0; x < d; ++x) {
              mag += std::fabs(static_cast<double>(q[i * q_stride + x]) * k[j * k_stride + x]);
            }
            buf.tol[e] = 2.0 * (d + 1) * kEps * mag;
          }
          ATTN_EXPECT_CLOSE("qk_tile_f32", buf.out, buf.expected, buf.tol, n);
        }
      }
    }
  }
}

ATTN_CASE(KernelsF32, PvTileMatchesReference) {
  Buffers buf;
  ATTN_ASSERT_TRUE(buf.arena.ok());
  attn_test::Rng rng(92);
  attn_test::fill_uniform(rng, buf.a, kA, 0.0f, 1.0f);  // probabilities
  attn_test::fill_uniform(rng, buf.b, kB, -2.0f, 2.0f);
  for (int32_t off = 0; off < 3; ++off) {
    for (int32_t nq : kRows) {
      for (int32_t dv : kCols) {
        for (int32_t nk : kDepths) {
          const std::size_t p_stride = static_cast<std::size_t>(nk + off);
          const std::size_t v_stride = static_cast<std::size_t>(dv + 2 * off + 1);
          const std::size_t a_stride = static_cast<std::size_t>(dv + off);
          const float* p = buf.a + off;
          const float* v = buf.b + 2 * off + 1;
          const std::size_t n = static_cast<std::size_t>(nq) * a_stride;
          for (std::size_t e = 0; e < n; ++e) {
            buf.out[e] = buf.out_ref[e] = rng.uniform(-1.0f, 1.0f);  // acc accumulates
          }
          attn::kernels::pv_tile_f32(p, p_stride, nq, nk, v, v_stride, dv, buf.out, a_stride);
          attn::ref::pv_tile_f32(p, p_stride, nq, nk, v, v_stride, dv, buf.out_ref, a_stride);
          for (std::size_t e = 0; e < n; ++e) {
            const std::size_t i = e / a_stride, c = e % a_stride;
            buf.expected[e] = buf.out_ref[e];
            buf.tol[e] = 0.0;
            if (c >= static_cast<std::size_t>(dv)) continue;
            double mag = std::fabs(static_cast<double>(buf.out_ref[e]));
            for (int32_t j = 0; j < nk; ++j) {
              mag += std::fabs(static_cast<double>(p[i * p_stride + j]) * v[j * v_stride + c]);
            }
            buf.tol[e] = 2.0 * (nk + 2) * kEps * mag;
          }
          ATTN_EXPECT_CLOSE("pv_tile_f32", buf.out, buf.expected, buf.tol, n);
        }
      }
    }
  }
}

// exp_sub_sum_f32 against double-precision exp: every backend's exp is within
// exp_poly::kMaxUlp (3) ulp of the result on [-87.3, 0] (ref: libm), -inf
// gives 0, and the sum is within n eps of the sum of the returned values.
ATTN_CASE(KernelsF32, ExpSubSumWithinUlpBound) {
  Buffers buf;
  ATTN_ASSERT_TRUE(buf.arena.ok());
  attn_test::Rng rng(93);
  static const int32_t lengths[] = {0, 1, 3, 4, 5, 16, 33, 64, 129};
  for (int32_t n : lengths) {
    for (int32_t i = 0; i < n; ++i) buf.a[i] = rng.uniform(-80.0f, 7.0f);
    if (n > 2) buf.a[1] = -std::numeric_limits<float>::infinity();
    const float m = 7.0f;
    for (int32_t i = 0; i < n; ++i) buf.b[i] = buf.a[i];
    const float sum = attn::kernels::exp_sub_sum_f32(buf.b, n, m);
    double sum_ref = 0.0;
    for (int32_t i = 0; i < n; ++i) {
      const double e = std::exp(static_cast<double>(buf.a[i] - m));  // the kernel's float x - m
      // 3 ulp of the result: ulp(e) <= 2^-23 e for normal results.
      buf.expected[i] = e;
      buf.tol[i] = attn::exp_poly::kMaxUlp * kEps * e;
      sum_ref += buf.b[i];
    }
    ATTN_EXPECT_CLOSE("exp_sub_sum_f32 values", buf.b, buf.expected, buf.tol,
                      static_cast<std::size_t>(n));
    ATTN_EXPECT_NEAR(sum, sum_ref, (n + 1) * kEps * sum_ref);
  }
}

// tanh_f32 against double-precision tanh: within tanh_poly::kMaxRelEps (4)
// eps of |tanh(x)| (the Cortex-M backends' rational form, tanh_poly.h; the
// SIMD backends' and libm's are within 3 ulp), on every length's tail and
// the clamp's edge; +-inf give +-1, -0 gives 0, NaN stays NaN.
ATTN_CASE(KernelsF32, TanhWithinRelBound) {
  Buffers buf;
  ATTN_ASSERT_TRUE(buf.arena.ok());
  attn_test::Rng rng(94);
  static const int32_t lengths[] = {0, 1, 3, 4, 5, 7, 64, 129, 400};
  for (int32_t n : lengths) {
    attn_test::fill_uniform(rng, buf.a, static_cast<std::size_t>(n), -10.0f, 10.0f);
    for (int32_t i = 0; i < n; i += 3) buf.a[i] *= 0.25f;  // more of them near 0
    static const float edges[] = {8.5f, -8.49999905f, 1e-30f, -0.702146292f, 6.00997019f};
    for (int32_t i = 0; i < n && i < 5; ++i) buf.a[i] = edges[i];
    for (int32_t i = 0; i < n; ++i) buf.b[i] = buf.a[i];
    buf.b[n] = -7.0f;
    attn::kernels::tanh_f32(buf.b, n);
    for (int32_t i = 0; i < n; ++i) {
      const double t = std::tanh(static_cast<double>(buf.a[i]));
      buf.expected[i] = t;
      buf.tol[i] = attn::tanh_poly::kMaxRelEps * kEps * std::fabs(t);
    }
    ATTN_EXPECT_CLOSE("tanh_f32", buf.b, buf.expected, buf.tol, static_cast<std::size_t>(n));
    ATTN_EXPECT_TRUE(buf.b[n] == -7.0f);  // nothing written past n
  }
  const float inf = std::numeric_limits<float>::infinity();
  float special[5] = {inf, -inf, -0.0f, std::numeric_limits<float>::quiet_NaN(), 100.0f};
  attn::kernels::tanh_f32(special, 5);
  ATTN_EXPECT_TRUE(special[0] == 1.0f);
  ATTN_EXPECT_TRUE(special[1] == -1.0f);
  ATTN_EXPECT_TRUE(special[2] == 0.0f);  // the sign of -0: not every backend keeps it
  ATTN_EXPECT_TRUE(special[3] != special[3]);
  ATTN_EXPECT_TRUE(special[4] == 1.0f);
}

// add_f32 against ref: the same sums, every length's tail, odd offsets.
ATTN_CASE(KernelsF32, AddMatchesReference) {
  Buffers buf;
  ATTN_ASSERT_TRUE(buf.arena.ok());
  attn_test::Rng rng(95);
  attn_test::fill_uniform(rng, buf.a, kA, -3.0f, 3.0f);
  attn_test::fill_uniform(rng, buf.b, kB, -3.0f, 3.0f);
  static const int32_t lengths[] = {0, 1, 3, 4, 5, 8, 9, 64, 67};
  for (int32_t off = 0; off < 3; ++off) {
    for (int32_t n : lengths) {
      for (int32_t i = 0; i <= n; ++i) buf.out[i] = buf.out_ref[i] = -7.0f;
      attn::kernels::add_f32(buf.out + off, buf.a + 2 * off, buf.b + off + 1, n);
      attn::ref::add_f32(buf.out_ref + off, buf.a + 2 * off, buf.b + off + 1, n);
      for (int32_t i = 0; i <= n; ++i) {
        buf.expected[i] = buf.out_ref[i];
        buf.tol[i] = 0.0;
      }
      ATTN_EXPECT_CLOSE("add_f32", buf.out, buf.expected, buf.tol, static_cast<std::size_t>(n) + 1);
    }
  }
}
