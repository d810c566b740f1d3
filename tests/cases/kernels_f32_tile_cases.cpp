// The float kernels of the SDPA core's transposed tiles and row softmax that
// this build selected (Cortex-M55: Helium; hosted: the SIMD backend; other
// Cortex-M: ref) against the ref kernels: query tiles of 16 and 32, key
// counts and depths that straddle the register blocks, odd strides.
//
// Bounds: a sum of n products in any order differs from the exact one by at
// most n eps sum |terms| (two such sums: twice that), as in
// kernels_f32_cases.cpp; an exp is within exp_poly::kMaxUlp ulp of the true
// value (ref: libm, within 1), so two exps differ by at most kMaxUlp + 1 ulp;
// a product by one float rounds once, identically: bit for bit.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "case.h"
#include "kernels/f32/exp_poly.h"
#include "kernels/f32/kernels_f32.h"

namespace {

constexpr double kEps = 1.1920928955078125e-07;  // 2^-23
constexpr double kExpTol = (attn::exp_poly::kMaxUlp + 1) * kEps;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();
constexpr std::size_t kA = 1200, kB = 1200, kOut = 1200;

struct Buffers {
  attn_test::Arena arena;
  float* a = arena.alloc<float>(kA);
  float* b = arena.alloc<float>(kB);
  float* out = arena.alloc<float>(kOut);
  float* out_ref = arena.alloc<float>(kOut);
  double* expected = arena.alloc<double>(kOut);
  double* tol = arena.alloc<double>(kOut);
};

const int32_t kTq[] = {16, 32};
const int32_t kKeys[] = {1, 2, 3, 4, 5, 7, 13};
const int32_t kDepths[] = {1, 2, 3, 7, 16, 33};

std::size_t sz(int32_t i) { return static_cast<std::size_t>(i); }

}  // namespace

ATTN_CASE(KernelsF32Tile, QkTileTMatchesReference) {
  Buffers buf;
  ATTN_ASSERT_TRUE(buf.arena.ok());
  attn_test::Rng rng(94);
  attn_test::fill_uniform(rng, buf.a, kA, -2.0f, 2.0f);
  attn_test::fill_uniform(rng, buf.b, kB, -2.0f, 2.0f);
  for (int32_t tq : kTq) {
    for (int32_t nk : kKeys) {
      for (int32_t d : kDepths) {
        const std::size_t k_stride = sz(d + 3);
        const float* k = buf.b + 1;
        const std::size_t n = sz(nk) * sz(tq);
        attn::kernels::qk_tile_t_f32(buf.a, tq, d, k, k_stride, nk, buf.out);
        attn::ref::qk_tile_t_f32(buf.a, tq, d, k, k_stride, nk, buf.out_ref);
        for (std::size_t e = 0; e < n; ++e) {
          const std::size_t j = e / sz(tq), i = e % sz(tq);
          double mag = 0.0;
          for (int32_t x = 0; x < d; ++x) {
            mag +=
                std::fabs(static_cast<double>(buf.a[sz(x) * sz(tq) + i]) * k[j * k_stride + sz(x)]);
          }
          buf.expected[e] = buf.out_ref[e];
          buf.tol[e] = 2.0 * (d + 1) * kEps * mag;
        }
        ATTN_EXPECT_CLOSE("qk_tile_t_f32", buf.out, buf.expected, buf.tol, n);
      }
    }
  }
}

ATTN_CASE(KernelsF32Tile, PvTileTMatchesReference) {
  Buffers buf;
  ATTN_ASSERT_TRUE(buf.arena.ok());
  attn_test::Rng rng(95);
  attn_test::fill_uniform(rng, buf.a, kA, 0.0f, 1.0f);  // probabilities
  attn_test::fill_uniform(rng, buf.b, kB, -2.0f, 2.0f);
  static const int32_t cols[] = {1, 4, 5, 8, 12, 13, 27};
  static const int32_t rows[] = {1, 2, 3, 9, 16};
  for (int32_t tq : kTq) {
    for (int32_t nq : rows) {
      for (int32_t dv : cols) {
        for (int32_t nk : kDepths) {
          const std::size_t v_stride = sz(dv + 1), a_stride = sz(dv + 2);
          const float* v = buf.b + 1;
          const std::size_t n = sz(nq) * a_stride;
          for (std::size_t e = 0; e < n; ++e)
            buf.out[e] = buf.out_ref[e] = rng.uniform(-1.0f, 1.0f);
          attn::kernels::pv_tile_t_f32(buf.a, tq, nq, nk, v, v_stride, dv, buf.out, a_stride);
          attn::ref::pv_tile_t_f32(buf.a, tq, nq, nk, v, v_stride, dv, buf.out_ref, a_stride);
          for (std::size_t e = 0; e < n; ++e) {
            const std::size_t i = e / a_stride, c = e % a_stride;
            buf.expected[e] = buf.out_ref[e];
            buf.tol[e] = 0.0;  // the gap between rows stays untouched
            if (c >= sz(dv)) continue;
            double mag = std::fabs(static_cast<double>(buf.out_ref[e]));
            for (int32_t j = 0; j < nk; ++j) {
              mag += std::fabs(static_cast<double>(buf.a[sz(j) * sz(tq) + i]) *
                               v[sz(j) * v_stride + c]);
            }
            buf.tol[e] = 2.0 * (nk + 2) * kEps * mag;
          }
          ATTN_EXPECT_CLOSE("pv_tile_t_f32", buf.out, buf.expected, buf.tol, n);
        }
      }
    }
  }
}

// One online-softmax step from a running state (m, l, acc) in which column 0
// has seen nothing (m = -inf), column 1's max grows, the others' may: every
// output (exp'd scores, m, l, the rescaled acc rows) against ref.
ATTN_CASE(KernelsF32Tile, SoftmaxTMatchesReference) {
  Buffers buf;
  ATTN_ASSERT_TRUE(buf.arena.ok());
  attn_test::Rng rng(96);
  constexpr int32_t kDv = 5;
  for (int32_t tq : kTq) {
    for (int32_t nk : kKeys) {
      float* m = buf.arena.alloc<float>(2 * sz(tq));
      float* l = buf.arena.alloc<float>(2 * sz(tq));
      ATTN_ASSERT_TRUE(buf.arena.ok());
      float* m_ref = m + tq;
      float* l_ref = l + tq;
      const std::size_t ns = sz(nk) * sz(tq);
      attn_test::fill_uniform(rng, buf.a, ns, -30.0f, 5.0f);
      if (nk > 2) buf.a[sz(tq) + 3] = kNegInf;  // a masked score
      for (int32_t i = 0; i < tq; ++i) {
        m[i] = m_ref[i] = i == 0 ? kNegInf : (i == 1 ? -40.0f : rng.uniform(-10.0f, 5.0f));
        l[i] = l_ref[i] = i == 0 ? 0.0f : rng.uniform(1.0f, 3.0f);
      }
      for (std::size_t e = 0; e < ns; ++e) buf.out[e] = buf.out_ref[e] = buf.a[e];
      const int32_t nq = tq - 3;
      float* acc = buf.b;
      float* acc_ref = buf.b + sz(nq) * kDv;
      attn_test::fill_uniform(rng, acc, sz(nq) * kDv, -1.0f, 1.0f);
      for (int32_t e = 0; e < nq * kDv; ++e) acc_ref[e] = acc[e];
      attn::kernels::softmax_t_f32(buf.out, tq, nk, m, l, nq, acc, kDv, kDv);
      attn::ref::softmax_t_f32(buf.out_ref, tq, nk, m_ref, l_ref, nq, acc_ref, kDv, kDv);
      ATTN_EXPECT_SAME_BITS("softmax_t_f32 m", m, m_ref, sz(tq));
      for (std::size_t e = 0; e < ns; ++e) {
        buf.expected[e] = buf.out_ref[e];
        buf.tol[e] = kExpTol * buf.out_ref[e];
      }
      ATTN_EXPECT_CLOSE("softmax_t_f32 exp", buf.out, buf.expected, buf.tol, ns);
      // l = l alpha + sum of nk exps: each term within kExpTol, the sums' order n eps.
      for (int32_t i = 0; i < tq; ++i) {
        buf.expected[i] = l_ref[i];
        buf.tol[i] = (kExpTol + 2.0 * (nk + 2) * kEps) * l_ref[i];
      }
      ATTN_EXPECT_CLOSE("softmax_t_f32 l", l, buf.expected, buf.tol, sz(tq));
      for (int32_t e = 0; e < nq * kDv; ++e) {
        buf.expected[e] = acc_ref[e];
        buf.tol[e] = kExpTol * std::fabs(static_cast<double>(acc_ref[e]));
      }
      ATTN_EXPECT_CLOSE("softmax_t_f32 acc", acc, buf.expected, buf.tol, sz(nq * kDv));
    }
  }
}

// The row softmax and its passes, lengths around the vector widths: max_f32
// exactly (NaN skipped; all -inf and all NaN rows as ref), scale_f32 and
// transpose_scale_f32 bit for bit, softmax_f32 and dot_f32 within the bounds.
ATTN_CASE(KernelsF32Tile, RowKernelsMatchReference) {
  Buffers buf;
  ATTN_ASSERT_TRUE(buf.arena.ok());
  attn_test::Rng rng(97);
  static const int32_t lengths[] = {1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 33, 64, 129};
  for (int32_t n : lengths) {
    attn_test::fill_uniform(rng, buf.a, sz(n), -20.0f, 20.0f);
    attn_test::fill_uniform(rng, buf.b, sz(n), -2.0f, 2.0f);
    if (n > 3) buf.a[2] = std::numeric_limits<float>::quiet_NaN();
    const float mx_k = attn::kernels::max_f32(buf.a, n), mx_r = attn::ref::max_f32(buf.a, n);
    ATTN_EXPECT_SAME_BITS("max_f32", &mx_k, &mx_r, 1);
    for (int32_t i = 0; i < n; ++i) buf.out[i] = kNegInf;
    ATTN_EXPECT_TRUE(attn::kernels::max_f32(buf.out, n) == kNegInf);
    if (n > 3) buf.a[2] = 1.0f;
    // dot_f32 within 2 (n + 1) eps sum |a_i b_i| of ref.
    double mag = 0.0;
    for (int32_t i = 0; i < n; ++i) mag += std::fabs(static_cast<double>(buf.a[i]) * buf.b[i]);
    ATTN_EXPECT_NEAR(attn::kernels::dot_f32(buf.a, buf.b, n), attn::ref::dot_f32(buf.a, buf.b, n),
                     2.0 * (n + 1) * kEps * mag);
    for (int32_t i = 0; i < n; ++i) buf.out[i] = buf.out_ref[i] = buf.a[i];
    attn::kernels::scale_f32(buf.out, n, 0.37f);
    attn::ref::scale_f32(buf.out_ref, n, 0.37f);
    ATTN_EXPECT_SAME_BITS("scale_f32", buf.out, buf.out_ref, sz(n));
    // softmax_f32 against double precision: each p = e_i / sum within
    // kExpTol of the exps plus (n + 2) eps for the sum and the reciprocal.
    if (n > 1) buf.a[1] = kNegInf;  // a masked entry gives 0
    for (int32_t i = 0; i < n; ++i) buf.out[i] = buf.a[i];
    attn::kernels::softmax_f32(buf.out, n);
    double mx = -1e300, sum = 0.0;
    for (int32_t i = 0; i < n; ++i) mx = buf.a[i] > mx ? buf.a[i] : mx;
    for (int32_t i = 0; i < n; ++i) sum += std::exp(static_cast<double>(buf.a[i]) - mx);
    for (int32_t i = 0; i < n; ++i) {
      buf.expected[i] = std::exp(static_cast<double>(buf.a[i]) - mx) / sum;
      buf.tol[i] = (2.0 * kExpTol + (n + 2) * kEps) * buf.expected[i] + 1e-45;
    }
    ATTN_EXPECT_CLOSE("softmax_f32", buf.out, buf.expected, buf.tol, sz(n));
  }
  // The transposed, scaled query tile: nq < tq rows, the rest zero.
  for (int32_t tq : kTq) {
    for (int32_t d : kDepths) {
      const int32_t nq = tq - 5;
      attn_test::fill_uniform(rng, buf.a, sz(nq) * sz(d + 1), -3.0f, 3.0f);
      const std::size_t n = sz(d) * sz(tq);
      attn::kernels::transpose_scale_f32(buf.a, sz(d + 1), nq, d, 0.125f, buf.out, tq);
      attn::ref::transpose_scale_f32(buf.a, sz(d + 1), nq, d, 0.125f, buf.out_ref, tq);
      ATTN_EXPECT_SAME_BITS("transpose_scale_f32", buf.out, buf.out_ref, n);
    }
  }
}
