// Every float kernel of every compiled SIMD backend against attn::ref.
//
// Backends: hwy (on x86 once per compiled Highway target the CPU supports,
// selected with ::hwy::SetSupportedTargetsForTest) and xsimd. Lengths 1, 3, 7,
// N-1, N, N+1, 3N, 8N+2 for N in {4, 8, 16} (every vector width on x86 and
// Arm) and N = the Highway static target's lanes (SVE: 4..64, set by the
// emulated vector length), pointers offset by 0, 1 and 3 floats from 64-byte
// alignment. The SVE preset runs this once per vector length with
// ATTN_EXPECT_SVE_BITS set: SveBuild checks the target and the length.
//
// Bounds (eps = FLT_EPSILON), stated against the reference result:
//   dot, qk tile, linear:     |got - ref| <= 2 (n + 2) eps sum_i |a_i b_i|
//   gemm_nt (k up to 300: several packed k chunks; strided rows; bias, accumulate):
//                             |got - ref| <= 2 (k + 3) eps (|y0| + |bias| + sum_x |a_x b_x|)
//                             (both sides accumulate n products in different orders)
//   gemm_nt_f16w (b binary16): the bits of the same SIMD backend's gemm_nt on the widened
//                             b (NaN: any NaN), and gemm_nt's bound against ref's; NaN,
//                             inf and subnormal halves among b's elements
//   qk_tile_f16k, pv_tile_f16v (K, V binary16; subnormal halves among them): the bits of
//                             the same SIMD backend's qk_tile / pv_tile on the widened rows,
//                             and their bounds against ref's qk_tile / pv_tile
//   qk_tile_kt, qk_tile_kt_f16 (K in 32-key transposed blocks, NaN in the lanes past nk):
//                             ref's and a backend's within qk_tile's bound of ref's qk_tile
//                             on the rows (the same sums in the same order in ref, but a
//                             compiler may contract either into FMAs: AArch64 GCC does); the
//                             f16 form = the float form on the widened blocks, bit for bit;
//                             no score past nk written
//   pv tile, dense, axpy:     |got - ref| <= 2 (n + 2) eps (|acc| + sum_j |p_j v_j|)
//   max, scale, add:          exact
//   exp_sub_sum elements:     |got - ref| <= (kMaxUlp + 1) eps |ref| + 2^-126
//   exp_sub_sum sum:          that, plus 2 (n + 2) eps sum
//   softmax (row in place):   |got - ref| <= (2 (kMaxUlp + 1) + 2 (n + 2) + 4) eps |ref| + 2^-126
//                             (each side: its exp's error, its sum's, the reciprocal's and
//                             the product's roundings); -inf entries and all -inf rows exactly 0
//   tanh:                     |got - ref| <= 4 eps |ref| + 2^-126
//   transposed tiles (tq = 16, 32, 48; d and nk over the lengths above):
//     qk_tile_t, pv_tile_t as qk_tile, pv_tile; softmax_t: m exact, st and
//     acc within (kMaxUlp + 1) eps |ref| + 2^-126, l within that plus the sum
//     bound; masked (-inf) columns, all-masked columns, a growing max.
//   exp_poly (x in [-87.3, 0] against double exp): <= kMaxUlp ulp of the result
//     (a dense sweep; every float of the interval with ATTN_EXP_EVERY_FLOAT=1);
//     below it: |got - exp(x)| < 2^-126 on [-88, -87.3), exactly 0 below -88 and for -inf.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "kernels/f32/exp_poly.h"
#include "kernels/f32/kernels_f32.h"
#include "kernels/f32/tanh_poly.h"
#if ATTN_TEST_HWY
#include "hwy/highway.h"
#include "kernels/f32/hwy/kernels_f32_hwy.h"
#endif
#if defined(__ARM_FEATURE_SVE)
#include <arm_sve.h>
#endif
#if ATTN_TEST_XSIMD
#include "kernels/f32/xsimd/kernels_f32_xsimd.h"
#endif

namespace {

constexpr float kEps = FLT_EPSILON;
std::size_t Sz(int32_t i) { return static_cast<std::size_t>(i); }
constexpr float kTiny = FLT_MIN;
constexpr float kInf = std::numeric_limits<float>::infinity();

struct Kernels {
  float (*dot)(const float*, const float*, int32_t);
  void (*qk_tile)(const float*, std::size_t, int32_t, const float*, std::size_t, int32_t, int32_t,
                  float*, std::size_t);
  float (*max)(const float*, int32_t);
  float (*exp_sub_sum)(float*, int32_t, float);
  void (*softmax)(float*, int32_t);
  void (*pv_tile)(const float*, std::size_t, int32_t, int32_t, const float*, std::size_t, int32_t,
                  float*, std::size_t);
  void (*axpy)(float*, const float*, int32_t, float);
  void (*scale)(float*, int32_t, float);
  void (*add)(float*, const float*, const float*, int32_t);
  void (*tanh)(float*, int32_t);
  void (*linear)(const float*, int32_t, int32_t, const float*, const float*, int32_t, float*);
  void (*dense)(const float*, int32_t, int32_t, const float*, const float*, int32_t, float*);
  void (*qk_tile_t)(const float*, int32_t, int32_t, const float*, std::size_t, int32_t, float*);
  void (*transpose_scale)(const float*, std::size_t, int32_t, int32_t, float, float*, int32_t);
  void (*softmax_t)(float*, int32_t, int32_t, float*, float*, int32_t, float*, std::size_t,
                    int32_t);
  void (*pv_tile_t)(const float*, int32_t, int32_t, int32_t, const float*, std::size_t, int32_t,
                    float*, std::size_t);
  void (*gemm_nt)(const float*, std::size_t, int32_t, int32_t, const float*, std::size_t, int32_t,
                  const float*, bool, float*, std::size_t);
  void (*gemm_nt_f16w)(const float*, std::size_t, int32_t, int32_t, const uint16_t*, std::size_t,
                       int32_t, const float*, bool, float*, std::size_t);
  void (*f32_to_f16)(const float*, int32_t, uint16_t*);
  void (*qk_tile_f16k)(const float*, std::size_t, int32_t, const uint16_t*, std::size_t, int32_t,
                       int32_t, float*, std::size_t);
  void (*pv_tile_f16v)(const float*, std::size_t, int32_t, int32_t, const uint16_t*, std::size_t,
                       int32_t, float*, std::size_t);
  void (*qk_tile_kt)(const float*, std::size_t, int32_t, const float*, int32_t, int32_t, float*,
                     std::size_t);
  void (*qk_tile_kt_f16)(const float*, std::size_t, int32_t, const uint16_t*, int32_t, int32_t,
                         float*, std::size_t);
};

#define ATTN_KERNEL_TABLE(ns)                                                               \
  Kernels {                                                                                 \
    &ns::dot_f32, &ns::qk_tile_f32, &ns::max_f32, &ns::exp_sub_sum_f32, &ns::softmax_f32,   \
        &ns::pv_tile_f32, &ns::axpy_f32, &ns::scale_f32, &ns::add_f32, &ns::tanh_f32,       \
        &ns::linear_f32, &ns::dense_f32, &ns::qk_tile_t_f32, &ns::transpose_scale_f32,      \
        &ns::softmax_t_f32, &ns::pv_tile_t_f32, &ns::gemm_nt_f32, &ns::gemm_nt_f16w_f32,    \
        &ns::f32_to_f16, &ns::qk_tile_f16k_f32, &ns::pv_tile_f16v_f32, &ns::qk_tile_kt_f32, \
        &ns::qk_tile_kt_f16_f32                                                             \
  }

const Kernels kRef = ATTN_KERNEL_TABLE(attn::ref);

struct Variant {
  std::string name;
  Kernels k;
  int64_t hwy_target;  // 0: not a Highway variant (or nothing to select)
};

std::vector<Variant> Variants() {
  std::vector<Variant> v;
#if ATTN_TEST_HWY
#if HWY_ARCH_X86
  for (int64_t t : ::hwy::SupportedAndGeneratedTargets()) {
    v.push_back({std::string("hwy_") + ::hwy::TargetName(t), ATTN_KERNEL_TABLE(attn::hwy), t});
  }
#else
  v.push_back({std::string("hwy_") + ::hwy::TargetName(HWY_STATIC_TARGET),
               ATTN_KERNEL_TABLE(attn::hwy), 0});
#endif
#endif
#if ATTN_TEST_XSIMD
  v.push_back({"xsimd", ATTN_KERNEL_TABLE(attn::xsimd), 0});
#endif
  if (v.empty()) v.push_back({"ref_self", kRef, 0});  // a ref build checks the harness
  return v;
}

// Float lanes of Highway's static target when it is scalable (SVE: set at run
// time by the vector length), else 16 (already a length base above; x86's
// static target is HWY_SCALAR). HWY_ATTR: Highway's ops inline only into code
// compiled for their target (SVE2's target string adds to -march's).
#if ATTN_TEST_HWY && HWY_HAVE_SCALABLE
HWY_ATTR int32_t ScalableLanes() {
  return static_cast<int32_t>(
      ::hwy::HWY_NAMESPACE::Lanes(::hwy::HWY_NAMESPACE::ScalableTag<float>()));
}
#endif

int32_t StaticLanes() {
#if ATTN_TEST_HWY && HWY_HAVE_SCALABLE
  return ScalableLanes();
#else
  return 16;
#endif
}

std::vector<int32_t> Lengths() {
  std::vector<int32_t> out;
  for (int32_t n : {4, 8, 16, StaticLanes()}) {
    for (int32_t len : {1, 3, 7, n - 1, n, n + 1, 3 * n, 8 * n + 2}) {
      bool seen = false;
      for (int32_t o : out) seen = seen || o == len;
      if (!seen) out.push_back(len);
    }
  }
  return out;
}

constexpr int kOffsets[] = {0, 1, 3};

// A 64-byte aligned buffer viewed at a float offset.
struct Buf {
  explicit Buf(std::size_t n, int offset) : store(n + 32, 0.0f) {
    auto addr = reinterpret_cast<std::uintptr_t>(store.data());
    const std::size_t pad = ((64 - addr % 64) % 64) / sizeof(float);
    p = store.data() + pad + static_cast<std::size_t>(offset);
  }
  std::vector<float> store;
  float* p;
};

void Fill(float* x, std::size_t n, std::mt19937& rng, float lo = -1.0f, float hi = 1.0f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  for (std::size_t i = 0; i < n; ++i) x[i] = dist(rng);
}

void PrintTo(const Variant& v, std::ostream* os) { *os << v.name; }

class KernelTest : public ::testing::TestWithParam<Variant> {
 protected:
  void SetUp() override {
#if ATTN_TEST_HWY && HWY_ARCH_X86
    if (GetParam().hwy_target != 0) ::hwy::SetSupportedTargetsForTest(GetParam().hwy_target);
#endif
  }
  void TearDown() override {
#if ATTN_TEST_HWY && HWY_ARCH_X86
    ::hwy::SetSupportedTargetsForTest(0);
#endif
  }
  const Kernels& K() const { return GetParam().k; }
  bool SimdBackend() const { return GetParam().name != "ref_self"; }
};

TEST_P(KernelTest, Dot) {
  std::mt19937 rng(1);
  for (int32_t n : Lengths()) {
    for (int off : kOffsets) {
      Buf a(static_cast<std::size_t>(n), off), b(static_cast<std::size_t>(n), (off * 2) % 4);
      Fill(a.p, static_cast<std::size_t>(n), rng);
      Fill(b.p, static_cast<std::size_t>(n), rng);
      float mag = 0.0f;
      for (int32_t i = 0; i < n; ++i) mag += std::fabs(a.p[i] * b.p[i]);
      const float want = kRef.dot(a.p, b.p, n);
      EXPECT_NEAR(K().dot(a.p, b.p, n), want, 2.0f * static_cast<float>(n + 2) * kEps * mag)
          << "n=" << n << " off=" << off;
    }
  }
  EXPECT_EQ(K().dot(nullptr, nullptr, 0), 0.0f);
}

// qk_tile against the reference on an [nq, d] query block (row stride d + 3)
// and nk keys (stride d + 1), scores at stride nk + 5 and offset `off`:
// |got - ref| <= 2 (d + 2) eps sum_x |q_x k_x| per score, and the column past
// nk of each row untouched.
void ExpectQkTileMatchesRef(const Kernels& k_, std::mt19937& rng, int32_t d, int32_t nq, int32_t nk,
                            int off) {
  const std::size_t qs = static_cast<std::size_t>(d) + 3, ks = static_cast<std::size_t>(d) + 1;
  const std::size_t ss = static_cast<std::size_t>(nk) + 5;
  Buf q(qs * static_cast<std::size_t>(nq), off), k(ks * static_cast<std::size_t>(nk), 1);
  Buf s(ss * static_cast<std::size_t>(nq), off), r(ss * static_cast<std::size_t>(nq), 0);
  Fill(q.p, qs * static_cast<std::size_t>(nq), rng);
  Fill(k.p, ks * static_cast<std::size_t>(nk), rng);
  k_.qk_tile(q.p, qs, nq, k.p, ks, nk, d, s.p, ss);
  kRef.qk_tile(q.p, qs, nq, k.p, ks, nk, d, r.p, ss);
  for (int32_t i = 0; i < nq; ++i) {
    for (int32_t j = 0; j < nk; ++j) {
      float mag = 0.0f;
      for (int32_t x = 0; x < d; ++x) {
        mag += std::fabs(q.p[static_cast<std::size_t>(i) * qs + static_cast<std::size_t>(x)] *
                         k.p[static_cast<std::size_t>(j) * ks + static_cast<std::size_t>(x)]);
      }
      const std::size_t at = static_cast<std::size_t>(i) * ss + static_cast<std::size_t>(j);
      ASSERT_NEAR(s.p[at], r.p[at], 2.0f * static_cast<float>(d + 2) * kEps * mag)
          << "d=" << d << " nq=" << nq << " nk=" << nk << " i=" << i << " j=" << j;
    }
    // Columns past nk untouched.
    EXPECT_EQ(s.p[static_cast<std::size_t>(i) * ss + static_cast<std::size_t>(nk)], 0.0f);
  }
}

TEST_P(KernelTest, QkTileAndLinear) {
  std::mt19937 rng(2);
  for (int32_t d : Lengths()) {
    for (int32_t nq : {1, 3, 4, 8}) {
      for (int32_t nk : {1, 3, 4, 7, 16, 31, 64, 65}) {
        const int off = (d + nq + nk) % 4;
        ExpectQkTileMatchesRef(K(), rng, d, nq, nk, off);
        if (HasFatalFailure()) return;
        // linear = the same contraction with contiguous rows, plus bias.
        Buf x(static_cast<std::size_t>(nq * d), off), w(static_cast<std::size_t>(nk * d), 0);
        Buf bias(static_cast<std::size_t>(nk), 1);
        Buf y(static_cast<std::size_t>(nq * nk), 3), yr(static_cast<std::size_t>(nq * nk), 0);
        Fill(x.p, static_cast<std::size_t>(nq * d), rng);
        Fill(w.p, static_cast<std::size_t>(nk * d), rng);
        Fill(bias.p, static_cast<std::size_t>(nk), rng);
        for (const float* bp :
             {static_cast<const float*>(nullptr), static_cast<const float*>(bias.p)}) {
          K().linear(x.p, nq, d, w.p, bp, nk, y.p);
          kRef.linear(x.p, nq, d, w.p, bp, nk, yr.p);
          for (int32_t i = 0; i < nq * nk; ++i) {
            ASSERT_NEAR(y.p[i], yr.p[i],
                        2.0f * static_cast<float>(d + 3) * kEps * static_cast<float>(d + 1))
                << "linear d=" << d << " rows=" << nq << " out=" << nk;
          }
        }
      }
    }
  }
}

// Single query rows over many keys (from 8192 = nk * d on, d <= 4 lanes: the
// key-by-key path with its ring of 16 partial sums; d = 4 lanes for 4, 8 and
// 16 lanes and the static target's): same bound as QkTileAndLinear.
TEST_P(KernelTest, QkTileLongRow) {
  std::mt19937 rng(22);
  for (int32_t d : {16, 31, 32, 48, 64, 4 * StaticLanes()}) {
    for (int32_t nq : {1, 2}) {
      for (int32_t nk : {512, 515, 1027}) {
        ExpectQkTileMatchesRef(K(), rng, d, nq, nk, (d + nk) % 4);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST_P(KernelTest, GemmNt) {
  std::mt19937 rng(9);
  std::vector<int32_t> ks = Lengths();
  ks.push_back(300);
  for (int32_t k : ks) {
    for (int32_t m : {1, 2, 3, 4, 5, 7, 13, 33}) {
      for (int32_t n : {1, 3, 7, 16, 17, 33, 65}) {
        const int off = (k + m + n) % 4;
        const auto uk = static_cast<std::size_t>(k), um = static_cast<std::size_t>(m),
                   un = static_cast<std::size_t>(n);
        const std::size_t as = uk + 3, bs = uk + 5, ys = un + 2;
        Buf a(as * um, off), b(bs * un, (off + 1) % 4), bias(un, 3);
        Buf y(ys * um, off), yr(ys * um, 0), y0(ys * um, 0);
        Fill(a.p, as * um, rng);
        Fill(b.p, bs * un, rng);
        Fill(bias.p, un, rng);
        Fill(y0.p, ys * um, rng);
        for (const float* bp :
             {static_cast<const float*>(nullptr), static_cast<const float*>(bias.p)}) {
          for (bool accumulate : {false, true}) {
            std::memcpy(y.p, y0.p, ys * um * sizeof(float));
            std::memcpy(yr.p, y0.p, ys * um * sizeof(float));
            K().gemm_nt(a.p, as, m, k, b.p, bs, n, bp, accumulate, y.p, ys);
            kRef.gemm_nt(a.p, as, m, k, b.p, bs, n, bp, accumulate, yr.p, ys);
            for (std::size_t i = 0; i < um; ++i) {
              for (std::size_t j = 0; j < ys; ++j) {
                const std::size_t at = i * ys + j;
                if (j >= un) {
                  ASSERT_EQ(y.p[at], y0.p[at]) << "column past n written";
                  continue;
                }
                float mag = (accumulate ? std::fabs(y0.p[at]) : 0.0f) +
                            (bp != nullptr ? std::fabs(bp[j]) : 0.0f);
                for (std::size_t x = 0; x < uk; ++x)
                  mag += std::fabs(a.p[i * as + x] * b.p[j * bs + x]);
                ASSERT_NEAR(y.p[at], yr.p[at], 2.0f * static_cast<float>(k + 3) * kEps * mag)
                    << "k=" << k << " m=" << m << " n=" << n << " i=" << i << " j=" << j
                    << " bias=" << (bp != nullptr) << " accumulate=" << accumulate;
              }
            }
          }
        }
      }
    }
  }
}

// The float16 conversions, bit for bit against the reference (whose own
// values are checked against an independent ldexp decoding): every binary16
// pattern widened (NaNs included: quiet, sign and payload kept), and
// narrowed: every finite binary16 value, every midpoint between neighbours
// and one float ulp either side, the overflow threshold, subnormals and their
// ties, float subnormals, infinities, quiet and signalling float NaNs with
// payloads, random floats over 2^-30 .. 2^18. Misaligned pointers and the
// lengths above (the vector body and the scalar tail).
uint32_t FloatBits(float f) {
  uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
float BitsFloat(uint32_t u) {
  float f = 0.0f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

std::vector<float> F16NarrowingInputs() {
  std::vector<float> in;
  std::vector<uint16_t> all(0x10000);
  for (uint32_t h = 0; h < 0x10000; ++h) all[h] = static_cast<uint16_t>(h);
  std::vector<float> wide(0x10000);
  attn::ref::f16_to_f32(all.data(), 0x10000, wide.data());
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7c00u) == 0x7c00u) continue;  // inf, NaN: below
    in.push_back(wide[h]);
    if ((h & 0x7fffu) == 0x7bffu) continue;            // the largest finite: no upper neighbour
    const float mid = (wide[h] + wide[h + 1]) * 0.5f;  // exact: a float has the bits
    in.push_back(mid);
    in.push_back(std::nextafter(mid, 0.0f));
    in.push_back(std::nextafter(mid, (h & 0x8000u) != 0 ? -kInf : kInf));
  }
  for (float x : {65504.0f, 65519.99f, 65520.0f, 65536.0f, 1e30f, kInf, FLT_MIN, FLT_MIN / 3.0f,
                  std::ldexp(1.0f, -25), std::nextafter(std::ldexp(1.0f, -25), 1.0f),
                  std::ldexp(1.5f, -25), std::ldexp(1.0f, -26)}) {
    in.push_back(x);
    in.push_back(-x);
  }
  for (uint32_t nan :
       {0x7fc00000u, 0x7f800001u, 0x7fa00000u, 0x7fbfe000u, 0x7fffffffu, 0x7f802000u}) {
    in.push_back(BitsFloat(nan));
    in.push_back(BitsFloat(nan | 0x80000000u));
  }
  std::mt19937 rng(61);
  std::uniform_real_distribution<float> e(-30.0f, 18.0f);
  for (int i = 0; i < 20000; ++i) in.push_back((i % 2 != 0 ? -1.0f : 1.0f) * std::exp2(e(rng)));
  return in;
}

TEST(F16Reference, WideningMatchesLdexpDecoding) {
  std::vector<uint16_t> all(0x10000);
  for (uint32_t h = 0; h < 0x10000; ++h) all[h] = static_cast<uint16_t>(h);
  std::vector<float> f(0x10000);
  attn::ref::f16_to_f32(all.data(), 0x10000, f.data());
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    const float sign = (h & 0x8000u) != 0 ? -1.0f : 1.0f;
    const uint32_t got = FloatBits(f[h]);
    if (e == 31 && m != 0) {
      // NaN: sign and payload kept, quiet bit set.
      ASSERT_EQ(got, ((h & 0x8000u) << 16) | 0x7fc00000u | (m << 13)) << std::hex << h;
      continue;
    }
    const float want = e == 31
                           ? sign * kInf
                           : sign * static_cast<float>(e == 0 ? std::ldexp(m, -24)
                                                              : std::ldexp(1024 + m, int(e) - 25));
    ASSERT_EQ(got, FloatBits(want)) << std::hex << h;
  }
}

// The same value: equal bits, or both NaN (a NaN's payload may come from
// either operand of an FMA, whose order a load folded into it can change).
bool SameValue(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || FloatBits(a) == FloatBits(b);
}

TEST_P(KernelTest, F16ConversionsBitExact) {
  std::vector<uint16_t> all(0x10000);
  for (uint32_t h = 0; h < 0x10000; ++h) all[h] = static_cast<uint16_t>(h);
  const std::vector<float> in = F16NarrowingInputs();
  for (int off : kOffsets) {
    // Widening, every pattern in one call: the binary16 loads of the float16
    // cache's P.V tile, as acc = -0 + 1 * v (exact; a NaN keeps its payload,
    // quiet). The zeros compare as values: a one-row tile also adds its
    // second accumulator (+0), so -0 comes out +0.
    std::vector<uint16_t> h16(0x10000 + 8);
    std::copy(all.begin(), all.end(), h16.begin() + off);
    Buf got(0x10000, off), want(0x10000, 0);
    for (std::size_t i = 0; i < 0x10000; ++i) got.p[i] = -0.0f;
    const float one = 1.0f;
    K().pv_tile_f16v(&one, 1, 1, 1, h16.data() + off, 0x10000, 0x10000, got.p, 0x10000);
    attn::ref::f16_to_f32(h16.data() + off, 0x10000, want.p);
    for (std::size_t i = 0; i < 0x10000; ++i) {
      ASSERT_TRUE(want.p[i] == 0.0f ? got.p[i] == 0.0f : SameValue(got.p[i], want.p[i]))
          << std::hex << "f16 " << i;
    }
    constexpr std::size_t kMaxIn = 1 << 19;  // more than the inputs (a fixed size for GCC's checks)
    ASSERT_LT(in.size(), kMaxIn);
    const auto nin = static_cast<int32_t>(in.size());
    Buf src(kMaxIn, off);
    std::copy(in.begin(), in.end(), src.p);
    std::vector<uint16_t> n16(kMaxIn + 8), r16(kMaxIn);
    K().f32_to_f16(src.p, nin, n16.data() + off);
    kRef.f32_to_f16(src.p, nin, r16.data());
    for (std::size_t i = 0; i < in.size(); ++i) {
      ASSERT_EQ(n16[i + Sz(off)], r16[i]) << std::hex << "f32 " << FloatBits(in[i]);
    }
    for (int32_t n : Lengths()) {
      if (n <= 0 || n > 4096) continue;  // (tells GCC's size check the range)
      std::vector<uint16_t> a16(Sz(n) + 8, 0xabcd);
      K().f32_to_f16(src.p + 1000, n, a16.data() + off);
      kRef.f32_to_f16(src.p + 1000, n, r16.data());
      for (int32_t i = 0; i < n; ++i) ASSERT_EQ(a16[Sz(i + off)], r16[Sz(i)]) << "n=" << n;
      ASSERT_EQ(a16[Sz(n + off)], 0xabcd) << "past n written, n=" << n;
    }
  }
}

// gemm_nt with at most 4 rows of a (the GEMV, b's rows in place): each
// output is the same bits whichever range of b's rows a call covers (the
// decode ops split the output features over threads), for every row count.
// gemm(a, as, m, k, j0, cols, bias, y, ys) computes outputs j0 .. j0 + cols
// from b's rows j0 .. (float32 or binary16 b).
template <class Gemm>
void ExpectGemvIndependentOfTheRange(std::mt19937& rng, const Gemm& gemm) {
  for (int32_t k : {1, 7, 16, 67, 300, 512}) {
    for (int32_t m = 1; m <= 4; ++m) {
      const int32_t n = 75;
      const std::size_t uk = Sz(k), as = uk + 1;
      Buf a(as * Sz(m), 1), bias(Sz(n), 2), y(Sz(m * n), 0), yr(Sz(m * n), 0);
      Fill(a.p, as * Sz(m), rng);
      Fill(bias.p, Sz(n), rng);
      gemm(a.p, as, m, k, 0, n, bias.p, y.p, Sz(n));
      for (int32_t split : {1, 5, 16, 33, 74}) {
        std::fill(yr.p, yr.p + m * n, -1.0f);
        gemm(a.p, as, m, k, 0, split, bias.p, yr.p, Sz(n));
        gemm(a.p, as, m, k, split, n - split, bias.p + split, yr.p + split, Sz(n));
        ASSERT_EQ(std::memcmp(y.p, yr.p, Sz(m * n) * sizeof(float)), 0)
            << "k=" << k << " m=" << m << " split=" << split;
      }
    }
  }
}

TEST_P(KernelTest, GemvOutputsIndependentOfTheRange) {
  std::mt19937 rng(19);
  std::vector<float> b(512 * 75);
  Fill(b.data(), b.size(), rng);
  ExpectGemvIndependentOfTheRange(
      rng, [&](const float* a, std::size_t as, int32_t m, int32_t k, int32_t j0, int32_t cols,
               const float* bias, float* y, std::size_t ys) {
        K().gemm_nt(a, as, m, k, b.data() + Sz(j0) * Sz(k), Sz(k), cols, bias, false, y, ys);
      });
}

TEST_P(KernelTest, GemvF16WeightsIndependentOfTheRange) {
  std::mt19937 rng(20);
  std::vector<float> f(512 * 75);
  Fill(f.data(), f.size(), rng);
  std::vector<uint16_t> b(f.size());
  kRef.f32_to_f16(f.data(), static_cast<int32_t>(f.size()), b.data());
  ExpectGemvIndependentOfTheRange(
      rng, [&](const float* a, std::size_t as, int32_t m, int32_t k, int32_t j0, int32_t cols,
               const float* bias, float* y, std::size_t ys) {
        K().gemm_nt_f16w(a, as, m, k, b.data() + Sz(j0) * Sz(k), Sz(k), cols, bias, false, y, ys);
      });
}

// gemm_nt_f16w on [n, k] binary16 bits b16 (row stride bs) against gemm_nt
// on their widening bw, for the shapes of GemmNt: a SIMD backend's gemm_nt
// gives the same values (SameValue; not checked for ref_self, whose two loops
// a compiler may contract or vectorize differently), ref's gemm_nt_f16w within
// GemmNt's bound (non-finite: the same inf, or NaN for NaN), and the columns
// past n untouched.
void ExpectGemmF16wMatches(const Kernels& k_, bool same_bits, std::mt19937& rng, int32_t m,
                           int32_t k, int32_t n, const uint16_t* b16, const float* bw,
                           std::size_t bs) {
  const int off = (k + m + n) % 4;
  const std::size_t uk = Sz(k), um = Sz(m), un = Sz(n);
  const std::size_t as = uk + 3, ys = un + 2;
  Buf a(as * um, off), bias(un, 3), y(ys * um, off), yw(ys * um, 0), yr(ys * um, 0), y0(ys * um, 0);
  Fill(a.p, as * um, rng);
  Fill(bias.p, un, rng);
  Fill(y0.p, ys * um, rng);
  for (const float* bp : {static_cast<const float*>(nullptr), static_cast<const float*>(bias.p)}) {
    for (bool accumulate : {false, true}) {
      for (Buf* out : {&y, &yw, &yr}) std::memcpy(out->p, y0.p, ys * um * sizeof(float));
      k_.gemm_nt_f16w(a.p, as, m, k, b16, bs, n, bp, accumulate, y.p, ys);
      k_.gemm_nt(a.p, as, m, k, bw, bs, n, bp, accumulate, yw.p, ys);
      kRef.gemm_nt_f16w(a.p, as, m, k, b16, bs, n, bp, accumulate, yr.p, ys);
      for (std::size_t i = 0; i < um; ++i) {
        for (std::size_t j = 0; j < ys; ++j) {
          const std::size_t at = i * ys + j;
          ASSERT_TRUE(!same_bits || SameValue(y.p[at], yw.p[at]))
              << "not gemm_nt's value on the widened b: " << y.p[at] << " vs " << yw.p[at]
              << " k=" << k << " m=" << m << " n=" << n << " i=" << i << " j=" << j;
          if (j >= un) {
            ASSERT_EQ(FloatBits(y.p[at]), FloatBits(y0.p[at])) << "column past n written";
            continue;
          }
          if (!std::isfinite(yr.p[at])) {
            ASSERT_TRUE(SameValue(y.p[at], yr.p[at])) << y.p[at] << " vs ref " << yr.p[at];
            continue;
          }
          float mag = (accumulate ? std::fabs(y0.p[at]) : 0.0f) +
                      (bp != nullptr ? std::fabs(bp[j]) : 0.0f);
          for (std::size_t x = 0; x < uk; ++x) mag += std::fabs(a.p[i * as + x] * bw[j * bs + x]);
          ASSERT_NEAR(y.p[at], yr.p[at], 2.0f * static_cast<float>(k + 3) * kEps * mag)
              << "k=" << k << " m=" << m << " n=" << n << " i=" << i << " j=" << j
              << " bias=" << (bp != nullptr) << " accumulate=" << accumulate;
        }
      }
    }
  }
}

TEST_P(KernelTest, GemmNtF16Weights) {
  std::mt19937 rng(29);
  std::vector<int32_t> ks = Lengths();
  ks.push_back(300);
  for (int32_t k : ks) {
    for (int32_t m : {1, 2, 3, 4, 5, 7, 13, 33}) {
      for (int32_t n : {1, 3, 7, 16, 17, 33, 65}) {
        const std::size_t bs = Sz(k) + 5, count = bs * Sz(n);
        std::vector<float> f(count);
        Fill(f.data(), count, rng, -2.0f, 2.0f);
        std::vector<uint16_t> b16(count + 4);
        const std::size_t boff = Sz(k + n) % 3;  // binary16 rows misaligned too
        kRef.f32_to_f16(f.data(), static_cast<int32_t>(count), b16.data() + boff);
        Buf bw(count, 1);
        attn::ref::f16_to_f32(b16.data() + boff, static_cast<int32_t>(count), bw.p);
        ExpectGemmF16wMatches(K(), SimdBackend(), rng, m, k, n, b16.data() + boff, bw.p, bs);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// NaN (quiet and signalling, with payloads), infinities, subnormals and the
// largest finite half among b's elements, in the GEMV's vector body and tail
// and in packed panels: one special value per row of b, at a column that
// moves with the row (rows without one stay finite).
TEST_P(KernelTest, GemmNtF16WeightsSpecialHalves) {
  const uint16_t kSpecial[] = {0x7e00, 0x7c01, 0xfd55, 0x7c00, 0xfc00, 0x0001,
                               0x8001, 0x03ff, 0x0200, 0x7bff, 0xfbff, 0x8000};
  constexpr std::size_t kCount = sizeof kSpecial / sizeof kSpecial[0];
  std::mt19937 rng(31);
  for (int32_t k : {5, 16, 37, 300}) {
    for (int32_t m : {1, 2, 4, 5, 9}) {
      const int32_t n = 2 * static_cast<int32_t>(kCount) + 3;
      const std::size_t bs = Sz(k), count = bs * Sz(n);
      std::vector<float> f(count);
      Fill(f.data(), count, rng, -1.0f, 1.0f);
      std::vector<uint16_t> b16(count);
      kRef.f32_to_f16(f.data(), static_cast<int32_t>(count), b16.data());
      for (std::size_t j = 0; j < 2 * kCount; ++j) {
        b16[j * bs + (j * 7) % bs] = kSpecial[j % kCount];
      }
      Buf bw(count, 0);
      attn::ref::f16_to_f32(b16.data(), static_cast<int32_t>(count), bw.p);
      ExpectGemmF16wMatches(K(), SimdBackend(), rng, m, k, n, b16.data(), bw.p, bs);
      if (HasFatalFailure()) return;
    }
  }
}

// The float16 cache's tiles: K / V rounded to binary16 (row stride d + 1,
// misaligned by up to 2 halves, a subnormal half in every row), against the
// float tiles on the widened rows. Shapes cover the register blocks (4 and
// single rows, 4 and 8 keys, their tails), the single-row key stream (nk * d
// >= 8192) and the P.V column blocks and tail.
TEST_P(KernelTest, CacheTilesF16) {
  std::mt19937 rng(37);
  std::vector<int32_t> ds = Lengths();
  ds.push_back(64);
  for (int32_t d : ds) {
    for (int32_t nq : {1, 2, 4, 5, 8}) {
      for (int32_t nk : {1, 3, 7, 16, 17, 65, 260}) {
        const std::size_t rs = Sz(d) + 1, count = rs * Sz(nk), boff = Sz(d + nk) % 3;
        std::vector<float> f(count);
        Fill(f.data(), count, rng, -2.0f, 2.0f);
        std::vector<uint16_t> h(count + 2);
        kRef.f32_to_f16(f.data(), static_cast<int32_t>(count), h.data() + boff);
        for (std::size_t j = 0; j < Sz(nk); ++j) h[boff + j * rs + j % Sz(d)] = 0x8201;
        const uint16_t* h16 = h.data() + boff;
        Buf w(count, 1);
        attn::ref::f16_to_f32(h16, static_cast<int32_t>(count), w.p);
        const std::size_t qs = Sz(d) + 3, ss = Sz(nk) + 5, as = Sz(d) + 5;
        Buf q(qs * Sz(nq), 2), s(ss * Sz(nq), 0), sw(ss * Sz(nq), 0), sr(ss * Sz(nq), 0);
        Fill(q.p, qs * Sz(nq), rng);
        K().qk_tile_f16k(q.p, qs, nq, h16, rs, nk, d, s.p, ss);
        K().qk_tile(q.p, qs, nq, w.p, rs, nk, d, sw.p, ss);
        kRef.qk_tile(q.p, qs, nq, w.p, rs, nk, d, sr.p, ss);
        Buf p(ss * Sz(nq), 1), a(as * Sz(nq), 3), aw(as * Sz(nq), 0), ar(as * Sz(nq), 0);
        Fill(p.p, ss * Sz(nq), rng, 0.0f, 1.0f);
        Fill(a.p, as * Sz(nq), rng);
        std::memcpy(aw.p, a.p, as * Sz(nq) * sizeof(float));
        std::memcpy(ar.p, a.p, as * Sz(nq) * sizeof(float));
        const std::vector<float> a0(a.p, a.p + as * Sz(nq));
        K().pv_tile_f16v(p.p, ss, nq, nk, h16, rs, d, a.p, as);
        K().pv_tile(p.p, ss, nq, nk, w.p, rs, d, aw.p, as);
        kRef.pv_tile(p.p, ss, nq, nk, w.p, rs, d, ar.p, as);
        for (std::size_t i = 0; i < Sz(nq); ++i) {
          for (std::size_t j = 0; j < Sz(nk); ++j) {
            const std::size_t at = i * ss + j;
            ASSERT_TRUE(!SimdBackend() || FloatBits(s.p[at]) == FloatBits(sw.p[at]))
                << "qk: not qk_tile's bits, d=" << d << " nq=" << nq << " nk=" << nk;
            float mag = 0.0f;
            for (std::size_t x = 0; x < Sz(d); ++x)
              mag += std::fabs(q.p[i * qs + x] * w.p[j * rs + x]);
            ASSERT_NEAR(s.p[at], sr.p[at], 2.0f * static_cast<float>(d + 2) * kEps * mag)
                << "qk d=" << d << " nq=" << nq << " nk=" << nk;
          }
          for (std::size_t c = 0; c < as; ++c) {
            const std::size_t at = i * as + c;
            if (c >= Sz(d)) {
              ASSERT_EQ(FloatBits(a.p[at]), FloatBits(a0[at])) << "column past dv written";
              continue;
            }
            ASSERT_TRUE(!SimdBackend() || FloatBits(a.p[at]) == FloatBits(aw.p[at]))
                << "pv: not pv_tile's bits, d=" << d << " nq=" << nq << " nk=" << nk;
            float mag = std::fabs(a0[at]);
            for (std::size_t j = 0; j < Sz(nk); ++j)
              mag += std::fabs(p.p[i * ss + j] * w.p[j * rs + c]);
            ASSERT_NEAR(a.p[at], ar.p[at], 2.0f * static_cast<float>(nk + 2) * kEps * mag)
                << "pv d=" << d << " nq=" << nq << " nk=" << nk;
          }
        }
      }
    }
  }
}

// The packed float cache's Q.K^T: K rows (nk of d) laid out in transposed
// blocks of kKtBlock keys, the lanes past nk of the last block NaN (read,
// never stored), against the row-major tile kernels. Row counts cover the
// 4-row blocks and the 1-3 rows left (each with its own passes and partial
// sums); key counts the block edges and every pass of a block.
TEST_P(KernelTest, QkTileKt) {
  std::mt19937 rng(41);
  std::vector<int32_t> ds = Lengths();
  ds.push_back(64);
  for (int32_t d : ds) {
    for (int32_t nq : {1, 2, 3, 4, 5, 8}) {
      for (int32_t nk : {1, 3, 8, 15, 16, 17, 31, 32, 33, 65, 130}) {
        const std::size_t kB = Sz(attn::kKtBlock);
        const std::size_t rows = Sz(nk), blocks = (rows + kB - 1) / kB, ud = Sz(d);
        std::vector<float> f(rows * ud);
        Fill(f.data(), f.size(), rng, -2.0f, 2.0f);
        std::vector<uint16_t> h(f.size());
        kRef.f32_to_f16(f.data(), static_cast<int32_t>(f.size()), h.data());
        Buf w(f.size(), 0);  // the binary16 rows widened
        attn::ref::f16_to_f32(h.data(), static_cast<int32_t>(h.size()), w.p);
        Buf kt(blocks * kB * ud, 0), wt(blocks * kB * ud, 0);
        std::vector<uint16_t> ht(blocks * kB * ud, 0x7e00);  // binary16 NaN
        for (std::size_t t = 0; t < blocks * kB * ud; ++t) kt.p[t] = wt.p[t] = std::nanf("");
        for (std::size_t j = 0; j < rows; ++j) {
          for (std::size_t x = 0; x < ud; ++x) {
            const std::size_t at = j / kB * kB * ud + x * kB + j % kB;
            kt.p[at] = f[j * ud + x];
            wt.p[at] = w.p[j * ud + x];
            ht[at] = h[j * ud + x];
          }
        }
        const std::size_t qs = ud + 3, ss = rows + 5;
        Buf q(qs * Sz(nq), 2), r(ss * Sz(nq), 0), rr(ss * Sz(nq), 0), s(ss * Sz(nq), 1);
        Buf sh(ss * Sz(nq), 0), sw(ss * Sz(nq), 0);
        Fill(q.p, qs * Sz(nq), rng);
        kRef.qk_tile(q.p, qs, nq, f.data(), ud, nk, d, r.p, ss);
        kRef.qk_tile_kt(q.p, qs, nq, kt.p, nk, d, rr.p, ss);
        K().qk_tile_kt(q.p, qs, nq, kt.p, nk, d, s.p, ss);
        K().qk_tile_kt_f16(q.p, qs, nq, ht.data(), nk, d, sh.p, ss);
        K().qk_tile_kt(q.p, qs, nq, wt.p, nk, d, sw.p, ss);
        for (std::size_t i = 0; i < Sz(nq); ++i) {
          for (std::size_t j = 0; j < rows; ++j) {
            const std::size_t at = i * ss + j;
            float mag = 0.0f;
            for (std::size_t x = 0; x < ud; ++x) mag += std::fabs(q.p[i * qs + x] * f[j * ud + x]);
            const float bound = 2.0f * static_cast<float>(d + 2) * kEps * mag;
            ASSERT_NEAR(rr.p[at], r.p[at], bound)
                << "ref kt d=" << d << " nq=" << nq << " nk=" << nk << " i=" << i << " j=" << j;
            ASSERT_NEAR(s.p[at], r.p[at], bound)
                << "kt d=" << d << " nq=" << nq << " nk=" << nk << " i=" << i << " j=" << j;
            ASSERT_EQ(FloatBits(sh.p[at]), FloatBits(sw.p[at]))
                << "kt f16: not the widened blocks' bits, d=" << d << " nq=" << nq << " nk=" << nk;
          }
          for (std::size_t j = rows; j < ss; ++j) {
            ASSERT_EQ(s.p[i * ss + j], 0.0f) << "score past nk written, nk=" << nk;
            ASSERT_EQ(sh.p[i * ss + j], 0.0f) << "f16 score past nk written, nk=" << nk;
          }
        }
      }
    }
  }
}

TEST_P(KernelTest, Max) {
  std::mt19937 rng(3);
  for (int32_t n : Lengths()) {
    for (int off : kOffsets) {
      Buf x(static_cast<std::size_t>(n), off);
      Fill(x.p, static_cast<std::size_t>(n), rng, -50.0f, 50.0f);
      EXPECT_EQ(K().max(x.p, n), kRef.max(x.p, n)) << n;
      x.p[n - 1] = 100.0f;  // the max in the tail
      EXPECT_EQ(K().max(x.p, n), 100.0f) << n;
      x.p[0] = std::nanf("");  // NaN is skipped
      if (n == 1) {
        EXPECT_TRUE(std::isnan(K().max(x.p, n)));
      } else {
        EXPECT_EQ(K().max(x.p, n), 100.0f) << n;
      }
      for (int32_t i = 0; i < n; ++i) x.p[i] = -kInf;  // a fully masked row
      EXPECT_EQ(K().max(x.p, n), -kInf) << n;
      for (int32_t i = 0; i < n; ++i) x.p[i] = std::nanf("");
      EXPECT_TRUE(std::isnan(K().max(x.p, n))) << n;
      x.p[n / 2] = -kInf;
      const float got = K().max(x.p, n), want = kRef.max(x.p, n);
      EXPECT_TRUE((std::isnan(got) && std::isnan(want)) || got == want) << n;
    }
  }
}

TEST_P(KernelTest, ExpSubSum) {
  std::mt19937 rng(4);
  for (int32_t n : Lengths()) {
    for (int off : kOffsets) {
      Buf x(static_cast<std::size_t>(n), off), r(static_cast<std::size_t>(n), 0);
      Fill(x.p, static_cast<std::size_t>(n), rng, -40.0f, 8.0f);
      if (n > 2) x.p[1] = -kInf;    // masked: exactly 0
      if (n > 3) x.p[2] = -200.0f;  // below the domain: 0
      std::memcpy(r.p, x.p, static_cast<std::size_t>(n) * sizeof(float));
      const float m = kRef.max(x.p, n);
      const float got = K().exp_sub_sum(x.p, n, m);
      const float want = kRef.exp_sub_sum(r.p, n, m);
      constexpr float kRel = static_cast<float>(attn::exp_poly::kMaxUlp + 1) * kEps;
      for (int32_t i = 0; i < n; ++i) {
        ASSERT_NEAR(x.p[i], r.p[i], kRel * r.p[i] + kTiny) << "n=" << n << " i=" << i;
      }
      if (n > 2) {
        EXPECT_EQ(x.p[1], 0.0f);
      }
      EXPECT_EQ(x.p[n], 0.0f);  // nothing written past n
      EXPECT_NEAR(got, want, (kRel + 2.0f * static_cast<float>(n + 2) * kEps) * want + kTiny) << n;
    }
  }
  float nan_row[5] = {0.0f, std::nanf(""), -1.0f, -2.0f, -3.0f};
  K().exp_sub_sum(nan_row, 5, 0.0f);
  EXPECT_TRUE(std::isnan(nan_row[1]));
  EXPECT_EQ(nan_row[0], 1.0f);
}

TEST_P(KernelTest, Softmax) {
  std::mt19937 rng(14);
  std::vector<int32_t> lengths = Lengths();
  lengths.push_back(1024);  // the benchmark's rows
  for (int32_t n : lengths) {
    const float kBound = static_cast<float>(2 * (attn::exp_poly::kMaxUlp + 1) + 2 * (n + 2) + 4) *
                         kEps;
    for (int off : kOffsets) {
      const std::size_t sn = static_cast<std::size_t>(n);
      Buf x(sn, off), r(sn, 0);
      Fill(x.p, sn, rng, -40.0f, 8.0f);
      if (n > 2) x.p[1] = -kInf;      // masked: exactly 0
      if (n > 3) x.p[2] = -200.0f;    // far below the max: 0
      if (n > 4) x.p[n - 1] = 30.0f;  // the max in the tail
      std::memcpy(r.p, x.p, sn * sizeof(float));
      K().softmax(x.p, n);
      kRef.softmax(r.p, n);
      for (int32_t i = 0; i < n; ++i) {
        ASSERT_NEAR(x.p[i], r.p[i], kBound * r.p[i] + kTiny)
            << "n=" << n << " off=" << off << " i=" << i;
      }
      if (n > 2) {
        EXPECT_EQ(x.p[1], 0.0f);
      }
      if (n == 1) {
        EXPECT_EQ(x.p[0], 1.0f);
      }
      EXPECT_EQ(x.p[n], 0.0f);  // nothing written past n
      // A fully masked row: all 0, as the ops write it.
      for (int32_t i = 0; i < n; ++i) x.p[i] = -kInf;
      K().softmax(x.p, n);
      for (int32_t i = 0; i <= n; ++i) ASSERT_EQ(x.p[i], 0.0f) << "all -inf, n=" << n << " i=" << i;
      // A NaN entry makes the row NaN.
      Fill(x.p, sn, rng);
      x.p[n / 2] = std::nanf("");
      K().softmax(x.p, n);
      for (int32_t i = 0; i < n; ++i)
        ASSERT_TRUE(std::isnan(x.p[i])) << "NaN row, n=" << n << " i=" << i;
    }
  }
  K().softmax(nullptr, 0);  // nothing to do
}

// The polynomial itself, on a dense sweep of [-87.3, 0], through each backend.
TEST_P(KernelTest, ExpPolyWithinStatedUlp) {
  constexpr int32_t kCount = 1 << 16;
  std::vector<float> x(kCount), xs(kCount);
  for (int32_t i = 0; i < kCount; ++i) x[i] = -87.3f * static_cast<float>(i) / (kCount - 1);
  x[1] = -1e-30f;
  x[2] = -0.34657359f;  // r at the edge of the reduced interval
  xs = x;
  K().exp_sub_sum(x.data(), kCount, 0.0f);
  double worst = 0.0;
  for (int32_t i = 0; i < kCount; ++i) {
    const double want = std::exp(static_cast<double>(xs[i]));
    const double ulp = std::ldexp(1.0, std::ilogb(static_cast<float>(want)) - 23);
    const double err = std::fabs(x[i] - want) / ulp;
    const double err_scalar = std::fabs(attn::exp_poly::exp_poly_f32(xs[i]) - want) / ulp;
    worst = std::max(worst, std::max(err, err_scalar));
  }
  EXPECT_LE(worst, attn::exp_poly::kMaxUlp) << "worst " << worst << " ulp";
  RecordProperty("exp_poly_worst_ulp", std::to_string(worst));
}

// Below the stated interval: absolute error < 2^-126 on [-88, -87.3), and
// exactly 0 below -88 and for -inf (every backend's form, exp_poly.h).
TEST_P(KernelTest, ExpPolyBelowInterval) {
  constexpr int32_t kCount = 4096;
  std::vector<float> x(kCount), xs(kCount);
  for (int32_t i = 0; i < kCount; ++i) x[i] = -87.3f - 40.0f * static_cast<float>(i) / kCount;
  x[kCount - 1] = -kInf;
  x[kCount - 2] = -1e30f;
  xs = x;
  K().exp_sub_sum(x.data(), kCount, 0.0f);
  for (int32_t i = 0; i < kCount; ++i) {
    const double want = std::exp(static_cast<double>(xs[i]));
    if (xs[i] < -88.0f) {
      ASSERT_EQ(x[i], 0.0f) << "x = " << xs[i];
    } else {
      ASSERT_LT(std::fabs(x[i] - want), static_cast<double>(kTiny)) << "x = " << xs[i];
    }
  }
}

// The AVX-512 exp's integer table: entry j plus j << 18 is the float nearest
// 2^(j / 32) (exp_poly.h).
TEST(ExpPolyTables, BitsTableIsExp2RoundedToFloat) {
  for (uint32_t j = 0; j < 32; ++j) {
    const uint32_t bits = attn::exp_poly::kExp2Table32Bits[j] + (j << 18);
    float f;
    std::memcpy(&f, &bits, sizeof f);
    EXPECT_EQ(f, static_cast<float>(std::exp2(static_cast<double>(j) / 32.0))) << j;
  }
}

// Every float of [-87.3, 0] (about 1.1e9, some 2 minutes per variant), through
// each backend and the scalar form: opt-in, ATTN_EXP_EVERY_FLOAT=1 (the
// worst errors quoted in exp_poly.h come from this sweep).
TEST_P(KernelTest, ExpPolyEveryFloat) {
  if (std::getenv("ATTN_EXP_EVERY_FLOAT") == nullptr) {
    GTEST_SKIP() << "set ATTN_EXP_EVERY_FLOAT=1 to sweep every float of [-87.3, 0]";
  }
  constexpr uint32_t kChunk = 1u << 16;
  const float lim = -87.3f;
  uint32_t last;
  std::memcpy(&last, &lim, sizeof last);
  std::vector<float> x(kChunk), xs(kChunk);
  double worst = 0.0, worst_scalar = 0.0;
  float worst_x = 0.0f;
  for (uint64_t b = 0x80000000u; b <= last; b += kChunk) {
    const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(kChunk, last - b + 1));
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t bits = static_cast<uint32_t>(b + i);
      std::memcpy(&xs[i], &bits, sizeof bits);
    }
    std::memcpy(x.data(), xs.data(), n * sizeof(float));
    K().exp_sub_sum(x.data(), static_cast<int32_t>(n), 0.0f);
    for (uint32_t i = 0; i < n; ++i) {
      const double want = std::exp(static_cast<double>(xs[i]));
      const double ulp = std::ldexp(1.0, std::ilogb(static_cast<float>(want)) - 23);
      const double err = std::fabs(x[i] - want) / ulp;
      if (err > worst) {
        worst = err;
        worst_x = xs[i];
      }
      worst_scalar =
          std::max(worst_scalar, std::fabs(attn::exp_poly::exp_poly_f32(xs[i]) - want) / ulp);
    }
  }
  EXPECT_LE(worst, attn::exp_poly::kMaxUlp) << "worst " << worst << " ulp at " << worst_x;
  EXPECT_LE(worst_scalar, attn::exp_poly::kMaxUlp) << "scalar worst " << worst_scalar << " ulp";
  std::printf("exp every float of [-87.3, 0]: kernel worst %.3f ulp (x = %.9g), scalar %.3f ulp\n",
              worst, static_cast<double>(worst_x), worst_scalar);
}

// tanh_poly.h's scalar form (the Cortex-M mcu and mve backends' tanh_f32,
// the same bits) against double tanh, relative error in FLT_EPSILON: a dense
// sweep of [0, 9] here, every float with ATTN_TANH_EVERY_FLOAT=1 (the figure
// quoted in tanh_poly.h). Compiled without contraction, as those backends are.
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("fp-contract=off")))
#endif
static float
TanhPolyScalar(float x) {
  return attn::tanh_poly::tanh_poly_f32(x);
}

static double TanhRelErr(float x) {
  const double want = std::tanh(static_cast<double>(x));
  const double got = TanhPolyScalar(x);
  if (want == 0.0) return got == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  return std::fabs(got - want) / std::fabs(want) / FLT_EPSILON;
}

TEST(TanhPoly, WithinStatedBound) {
  constexpr int32_t kCount = 1 << 20;
  double worst = 0.0;
  for (int32_t i = 0; i < kCount; ++i) {
    const float x = 9.0f * static_cast<float>(i) / kCount;
    worst = std::max(worst, std::max(TanhRelErr(x), TanhRelErr(-x)));
  }
  for (float x : {1e-30f, 1e-40f, 0.702146292f, 6.00997019f, 8.49999905f, 8.5f, 8.50000095f}) {
    worst = std::max(worst, std::max(TanhRelErr(x), TanhRelErr(-x)));
  }
  EXPECT_LE(worst, attn::tanh_poly::kMaxRelEps) << "worst " << worst << " eps";
  RecordProperty("tanh_poly_worst_eps", std::to_string(worst));
  EXPECT_EQ(TanhPolyScalar(kInf), 1.0f);
  EXPECT_EQ(TanhPolyScalar(-kInf), -1.0f);
  EXPECT_EQ(TanhPolyScalar(8.5f), 1.0f);
  EXPECT_EQ(TanhPolyScalar(1e-30f), 1e-30f);
  EXPECT_TRUE(std::signbit(TanhPolyScalar(-0.0f)));
  EXPECT_TRUE(std::isnan(TanhPolyScalar(std::nanf(""))));
  // The clamp: inside the formula at the last float below 8.5 gives 1 too.
  EXPECT_EQ(attn::tanh_poly::tanh_inside(8.5f, 8.5f * 8.5f), 1.0f);
}

// Every non-negative finite float (the negative half is the mirror):
// opt-in, ATTN_TANH_EVERY_FLOAT=1.
TEST(TanhPoly, EveryFloat) {
  if (std::getenv("ATTN_TANH_EVERY_FLOAT") == nullptr) {
    GTEST_SKIP() << "set ATTN_TANH_EVERY_FLOAT=1 to sweep every float";
  }
  double worst = 0.0;
  float worst_x = 0.0f;
  for (uint32_t b = 0; b < 0x7f800000u; ++b) {
    float x;
    std::memcpy(&x, &b, sizeof x);
    const double e = TanhRelErr(x);
    if (e > worst) {
      worst = e;
      worst_x = x;
    }
  }
  EXPECT_LE(worst, attn::tanh_poly::kMaxRelEps) << "worst " << worst << " eps at " << worst_x;
  std::printf("tanh every float: worst %.3f FLT_EPSILON relative (x = %.9g)\n", worst,
              static_cast<double>(worst_x));
}

TEST_P(KernelTest, PvTileAndDense) {
  std::mt19937 rng(5);
  for (int32_t dv : Lengths()) {
    for (int32_t nq : {1, 3, 4, 8}) {
      for (int32_t nk : {1, 3, 64, 65}) {
        const int off = (dv + nq) % 4;
        const std::size_t ps = static_cast<std::size_t>(nk) + 3,
                          vs = static_cast<std::size_t>(dv) + 1;
        const std::size_t as = static_cast<std::size_t>(dv) + 5;
        Buf p(ps * static_cast<std::size_t>(nq), off), v(vs * static_cast<std::size_t>(nk), 3);
        Buf a(as * static_cast<std::size_t>(nq), off), r(as * static_cast<std::size_t>(nq), 0);
        Fill(p.p, ps * static_cast<std::size_t>(nq), rng, 0.0f, 1.0f);
        Fill(v.p, vs * static_cast<std::size_t>(nk), rng);
        Fill(a.p, as * static_cast<std::size_t>(nq), rng);
        std::memcpy(r.p, a.p, as * static_cast<std::size_t>(nq) * sizeof(float));
        K().pv_tile(p.p, ps, nq, nk, v.p, vs, dv, a.p, as);
        kRef.pv_tile(p.p, ps, nq, nk, v.p, vs, dv, r.p, as);
        for (int32_t i = 0; i < nq; ++i) {
          for (int32_t c = 0; c < static_cast<int32_t>(as); ++c) {
            const std::size_t at = static_cast<std::size_t>(i) * as + static_cast<std::size_t>(c);
            if (c >= dv) {
              ASSERT_EQ(a.p[at], r.p[at]) << "column past dv written";
              continue;
            }
            float mag = std::fabs(r.p[at]);
            for (int32_t j = 0; j < nk; ++j) {
              mag += std::fabs(p.p[static_cast<std::size_t>(i) * ps + static_cast<std::size_t>(j)] *
                               v.p[static_cast<std::size_t>(j) * vs + static_cast<std::size_t>(c)]);
            }
            ASSERT_NEAR(a.p[at], r.p[at], 2.0f * static_cast<float>(nk + 2) * kEps * mag)
                << "dv=" << dv << " nq=" << nq << " nk=" << nk;
          }
        }
        Buf w(static_cast<std::size_t>(nk * dv), off), bias(static_cast<std::size_t>(dv), 2);
        Buf y(static_cast<std::size_t>(nq * dv), 1), yr(static_cast<std::size_t>(nq * dv), 0);
        Fill(w.p, static_cast<std::size_t>(nk * dv), rng);
        Fill(bias.p, static_cast<std::size_t>(dv), rng);
        for (const float* bp :
             {static_cast<const float*>(nullptr), static_cast<const float*>(bias.p)}) {
          K().dense(p.p, nq, nk, w.p, bp, dv, y.p);  // x = p viewed as [nq, nk] contiguous
          kRef.dense(p.p, nq, nk, w.p, bp, dv, yr.p);
          for (int32_t i = 0; i < nq * dv; ++i) {
            ASSERT_NEAR(y.p[i], yr.p[i],
                        2.0f * static_cast<float>(nk + 3) * kEps * static_cast<float>(nk + 1))
                << "dense";
          }
        }
      }
    }
  }
}

TEST_P(KernelTest, AxpyScaleAddTanh) {
  std::mt19937 rng(6);
  for (int32_t n : Lengths()) {
    for (int off : kOffsets) {
      const std::size_t sn = static_cast<std::size_t>(n);
      Buf x(sn, off), y(sn, (off + 1) % 4), yr(sn, 0), b(sn, 3);
      Fill(x.p, sn, rng);
      Fill(y.p, sn, rng);
      Fill(b.p, sn, rng);
      std::memcpy(yr.p, y.p, sn * sizeof(float));
      K().axpy(y.p, x.p, n, 0.75f);
      kRef.axpy(yr.p, x.p, n, 0.75f);
      for (int32_t i = 0; i < n; ++i) {
        ASSERT_NEAR(y.p[i], yr.p[i], 2.0f * kEps * (std::fabs(yr.p[i]) + std::fabs(x.p[i])));
      }
      EXPECT_EQ(y.p[n], 0.0f);
      std::memcpy(yr.p, y.p, sn * sizeof(float));
      K().scale(y.p, n, -1.5f);
      kRef.scale(yr.p, n, -1.5f);
      for (int32_t i = 0; i <= n; ++i) ASSERT_EQ(y.p[i], yr.p[i]);
      K().add(y.p, x.p, b.p, n);
      kRef.add(yr.p, x.p, b.p, n);
      for (int32_t i = 0; i <= n; ++i) ASSERT_EQ(y.p[i], yr.p[i]);
      for (int32_t i = 0; i < n; ++i) y.p[i] = yr.p[i] = 6.0f * x.p[i] * std::fabs(x.p[i]);
      K().tanh(y.p, n);
      kRef.tanh(yr.p, n);
      for (int32_t i = 0; i < n; ++i) {
        ASSERT_NEAR(y.p[i], yr.p[i], 4.0f * kEps * std::fabs(yr.p[i]) + kTiny) << "tanh " << i;
      }
      EXPECT_EQ(y.p[n], 0.0f);
    }
  }
  float special[6] = {0.0f, -0.0f, kInf, -kInf, std::nanf(""), 1e-30f};
  K().tanh(special, 6);
  EXPECT_EQ(special[0], 0.0f);
  EXPECT_EQ(special[2], 1.0f);
  EXPECT_EQ(special[3], -1.0f);
  EXPECT_TRUE(std::isnan(special[4]));
  EXPECT_EQ(special[5], 1e-30f);
}

TEST_P(KernelTest, TransposeScaleExact) {
  std::mt19937 rng(8);
  for (int32_t tq : {16, 32}) {
    for (int32_t nq : {1, 3, 5, 16, 17, 32}) {
      if (nq > tq) continue;
      for (int32_t d : Lengths()) {
        const std::size_t qs = static_cast<std::size_t>(d) + 3, t = static_cast<std::size_t>(tq);
        Buf q(qs * static_cast<std::size_t>(nq), d % 4);
        Buf got(t * static_cast<std::size_t>(d), 0), want(t * static_cast<std::size_t>(d), 0);
        Fill(q.p, qs * static_cast<std::size_t>(nq), rng);
        for (std::size_t i = 0; i < t * static_cast<std::size_t>(d); ++i) got.p[i] = 7.0f;
        K().transpose_scale(q.p, qs, nq, d, 0.125f, got.p, tq);
        kRef.transpose_scale(q.p, qs, nq, d, 0.125f, want.p, tq);
        for (std::size_t i = 0; i <= t * static_cast<std::size_t>(d); ++i) {
          ASSERT_EQ(got.p[i], want.p[i])
              << "tq=" << tq << " nq=" << nq << " d=" << d << " at " << i;
        }
      }
    }
  }
}

TEST_P(KernelTest, TransposedTiles) {
  std::mt19937 rng(7);
  const float kNegInf = -kInf;
  for (int32_t tq : {16, 32, 48}) {
    for (int32_t d : Lengths()) {
      for (int32_t nk : {1, 3, 5, 16, 17, 64}) {
        const std::size_t t = static_cast<std::size_t>(tq);
        Buf qt(t * static_cast<std::size_t>(d), d % 4),
            k(static_cast<std::size_t>(nk * (d + 1)), 1);
        Buf s(t * static_cast<std::size_t>(nk), 0), r(t * static_cast<std::size_t>(nk), 0);
        Fill(qt.p, t * static_cast<std::size_t>(d), rng);
        Fill(k.p, static_cast<std::size_t>(nk * (d + 1)), rng);
        K().qk_tile_t(qt.p, tq, d, k.p, static_cast<std::size_t>(d) + 1, nk, s.p);
        kRef.qk_tile_t(qt.p, tq, d, k.p, static_cast<std::size_t>(d) + 1, nk, r.p);
        for (std::size_t i = 0; i < t * static_cast<std::size_t>(nk); ++i) {
          ASSERT_NEAR(s.p[i], r.p[i],
                      2.0f * static_cast<float>(d + 2) * kEps * static_cast<float>(d))
              << "qk_tile_t tq=" << tq << " d=" << d << " nk=" << nk;
        }
        EXPECT_EQ(s.p[t * static_cast<std::size_t>(nk)], 0.0f);

        // softmax_t on these scores (scaled up), with some columns masked.
        for (std::size_t i = 0; i < t * static_cast<std::size_t>(nk); ++i)
          r.p[i] = s.p[i] = 4.0f * r.p[i];
        for (int32_t j = 0; j < nk; ++j) {
          s.p[static_cast<std::size_t>(j) * t + 1] = r.p[static_cast<std::size_t>(j) * t + 1] =
              kNegInf;
          if (j % 2 == 0)
            s.p[static_cast<std::size_t>(j) * t + 2] = r.p[static_cast<std::size_t>(j) * t + 2] =
                kNegInf;
        }
        const int32_t dv = d, nq = tq - 3;
        std::vector<float> m(t), mr(t), l(t), lr(t);
        Buf acc(static_cast<std::size_t>(nq * dv), 1), accr(static_cast<std::size_t>(nq * dv), 0);
        Fill(acc.p, static_cast<std::size_t>(nq * dv), rng);
        std::memcpy(accr.p, acc.p, static_cast<std::size_t>(nq * dv) * sizeof(float));
        for (std::size_t i = 0; i < t; ++i) {
          m[i] = mr[i] = (i % 3 == 0) ? kNegInf : static_cast<float>(i % 5) - 2.0f;
          l[i] = lr[i] = (m[i] == kNegInf) ? 0.0f : 1.5f;
        }
        m[1] = mr[1] = kNegInf;  // nothing visible at all
        l[1] = lr[1] = 0.0f;
        K().softmax_t(s.p, tq, nk, m.data(), l.data(), nq, acc.p, static_cast<std::size_t>(dv), dv);
        kRef.softmax_t(r.p, tq, nk, mr.data(), lr.data(), nq, accr.p, static_cast<std::size_t>(dv),
                       dv);
        constexpr float kRel = static_cast<float>(attn::exp_poly::kMaxUlp + 1) * kEps;
        for (std::size_t i = 0; i < t; ++i) {
          ASSERT_EQ(m[i], mr[i]) << "softmax_t m, column " << i;
          ASSERT_NEAR(l[i], lr[i],
                      (kRel + 2.0f * static_cast<float>(nk + 2) * kEps) * lr[i] + kTiny)
              << "softmax_t l, column " << i << " tq=" << tq << " nk=" << nk;
        }
        for (std::size_t i = 0; i < t * static_cast<std::size_t>(nk); ++i) {
          ASSERT_NEAR(s.p[i], r.p[i], kRel * r.p[i] + kTiny) << "softmax_t p " << i;
        }
        for (int32_t i = 0; i < nq * dv; ++i) {
          ASSERT_NEAR(acc.p[i], accr.p[i], kRel * std::fabs(accr.p[i]) + kTiny) << "softmax_t acc";
        }
        EXPECT_EQ(acc.p[nq * dv], 0.0f);

        // pv_tile_t with those probabilities.
        Buf v(static_cast<std::size_t>(nk * (dv + 2)), 2);
        Fill(v.p, static_cast<std::size_t>(nk * (dv + 2)), rng);
        K().pv_tile_t(s.p, tq, nq, nk, v.p, static_cast<std::size_t>(dv) + 2, dv, acc.p,
                      static_cast<std::size_t>(dv));
        kRef.pv_tile_t(s.p, tq, nq, nk, v.p, static_cast<std::size_t>(dv) + 2, dv, accr.p,
                       static_cast<std::size_t>(dv));
        for (int32_t i = 0; i < nq * dv; ++i) {
          ASSERT_NEAR(acc.p[i], accr.p[i],
                      2.0f * static_cast<float>(nk + 2) * kEps *
                          (std::fabs(accr.p[i]) + static_cast<float>(nk)))
              << "pv_tile_t tq=" << tq << " dv=" << dv << " nk=" << nk;
        }
        EXPECT_EQ(acc.p[nq * dv], 0.0f);
      }
    }
  }
}

// pv_tile_t for every row count of a tile (the register blocks take rows 8
// or 4 at a time and the rest as a smaller block) and column counts around
// the blocks' widths; the bound of TransposedTiles.
TEST_P(KernelTest, PvTileTEveryRowCount) {
  std::mt19937 rng(8);
  for (int32_t tq : {16, 32}) {
    const std::size_t t = static_cast<std::size_t>(tq);
    for (int32_t nq = 1; nq <= tq; ++nq) {
      for (int32_t dv : {1, 4, 7, 8, 13, 64}) {
        for (int32_t nk : {1, 6}) {
          const std::size_t vs = static_cast<std::size_t>(dv) + 2;
          const std::size_t n_acc = static_cast<std::size_t>(nq * dv);
          Buf pt(t * static_cast<std::size_t>(nk), 1), v(vs * static_cast<std::size_t>(nk), 2);
          Buf acc(n_acc, 1), accr(n_acc, 0);
          Fill(pt.p, t * static_cast<std::size_t>(nk), rng, 0.0f, 1.0f);
          Fill(v.p, vs * static_cast<std::size_t>(nk), rng);
          Fill(acc.p, n_acc, rng);
          std::memcpy(accr.p, acc.p, n_acc * sizeof(float));
          K().pv_tile_t(pt.p, tq, nq, nk, v.p, vs, dv, acc.p, static_cast<std::size_t>(dv));
          kRef.pv_tile_t(pt.p, tq, nq, nk, v.p, vs, dv, accr.p, static_cast<std::size_t>(dv));
          for (std::size_t i = 0; i < n_acc; ++i) {
            ASSERT_NEAR(acc.p[i], accr.p[i],
                        2.0f * static_cast<float>(nk + 2) * kEps *
                            (std::fabs(accr.p[i]) + static_cast<float>(nk)))
                << "pv_tile_t tq=" << tq << " nq=" << nq << " dv=" << dv << " nk=" << nk;
          }
          EXPECT_EQ(acc.p[n_acc], 0.0f) << "row past nq written";
        }
      }
    }
  }
}

// The SVE preset's runs: Highway's static target is SVE (or SVE2), the CPU's
// vector length (svcntw) is the one qemu was asked for, and Highway uses its
// largest power-of-two part (Highway 1.0.3 rounds a 384-bit length down to 256).
TEST(SveBuild, TargetAndVectorLength) {
  const char* bits = std::getenv("ATTN_EXPECT_SVE_BITS");
  if (bits == nullptr) GTEST_SKIP() << "not an SVE vector-length run (ATTN_EXPECT_SVE_BITS unset)";
#if ATTN_TEST_HWY && defined(__ARM_FEATURE_SVE)
  const std::string name = ::hwy::TargetName(HWY_STATIC_TARGET);
  const int vl = static_cast<int>(svcntw());
  std::printf("Highway static target %s, %d float lanes (SVE vector: %d floats)\n", name.c_str(),
              StaticLanes(), vl);
  EXPECT_EQ(name.rfind("SVE", 0), 0u) << name;
  EXPECT_EQ(vl * 32, std::atoi(bits));
  int pow2 = 1;
  while (pow2 * 2 <= vl) pow2 *= 2;
  EXPECT_EQ(StaticLanes(), pow2);
#else
  FAIL() << "ATTN_EXPECT_SVE_BITS set in a build without SVE or without the Highway backend";
#endif
}

INSTANTIATE_TEST_SUITE_P(Backends, KernelTest, ::testing::ValuesIn(Variants()),
                         [](const ::testing::TestParamInfo<Variant>& p) { return p.param.name; });

}  // namespace
