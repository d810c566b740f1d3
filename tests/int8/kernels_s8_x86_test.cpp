// The x86 int8 kernels (engine/src/int8/kernels_s8_x86.cpp) at every dispatch
// level this CPU supports (scalar, AVX2, AVX-VNNI, AVX-512 VNNI) against the
// portable references, bit for bit: lengths 1..300, misaligned pointers,
// runs of the extreme values -128 / 127, every requantization shift; then
// whole int8 SDPA runs at each level against the scalar level.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "attn/int8/kernels_s8.h"
#include "attn/sdpa_s8.h"
#include "attn/softmax_s8.h"

#if defined(ATTN_S8_KERNELS_X86)

namespace {

using namespace attn::detail;

constexpr int kLevels = 4;

// Restores the CPU's best level when a test ends.
struct LevelGuard {
  ~LevelGuard() { kernels_s8_x86_select(-1); }
};

std::vector<int8_t> random_s8(std::size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> v(n);
  for (auto& x : v) x = static_cast<int8_t>(d(rng));
  // Runs of extremes at the start and in the middle.
  for (std::size_t i = 0; i < n && i < 70; ++i) v[i] = (i / 3) % 2 ? int8_t{-128} : int8_t{127};
  for (std::size_t i = n / 2; i < n && i < n / 2 + 70; ++i) v[i] = int8_t{-128};
  return v;
}

std::string at(int level, int32_t n, int32_t off) {
  return std::string(kernels_s8_x86_level_name(level)) + " n=" + std::to_string(n) +
         " off=" + std::to_string(off);
}

TEST(KernelsS8X86, DetectsAndSelectsLevels) {
  LevelGuard g;
  EXPECT_TRUE(kernels_s8_x86_supported(0));
  EXPECT_FALSE(kernels_s8_x86_supported(4));
  EXPECT_FALSE(kernels_s8_x86_supported(-1));
  const int best = kernels_s8_x86_level();
  for (int l = 0; l < kLevels; ++l) {
    EXPECT_EQ(kernels_s8_x86_select(l), kernels_s8_x86_supported(l));
    if (kernels_s8_x86_supported(l)) {
      EXPECT_EQ(kernels_s8_x86_level(), l);
      EXPECT_STREQ(kernels_s8_name(), kernels_s8_x86_level_name(l));
    }
  }
  EXPECT_TRUE(kernels_s8_x86_select(-1));
  EXPECT_EQ(kernels_s8_x86_level(), best);
  std::printf("x86 int8 kernels: best level %s\n", kernels_s8_x86_level_name(best));
}

TEST(KernelsS8X86, DotAndMac) {
  LevelGuard g;
  const auto a = random_s8(400, 1), b = random_s8(400, 2);
  std::vector<int32_t> acc(400), acc_ref(400);
  for (int l = 0; l < kLevels; ++l) {
    if (!kernels_s8_x86_select(l)) continue;
    for (int32_t off = 0; off < 5; ++off) {
      for (int32_t n = 0; n <= 300; ++n) {
        int32_t s = 0, s_ref = 0;
        const int8_t* pa = a.data() + off;
        const int8_t* pb = b.data() + (7 - off);
        ASSERT_EQ(dot_s8(pa, pb, n, &s), dot_s8_ref(pa, pb, n, &s_ref)) << at(l, n, off);
        ASSERT_EQ(s, s_ref) << at(l, n, off);
        for (int32_t w : {0, 1, 128, 255}) {
          for (int32_t i = 0; i < 302; ++i) acc[i] = acc_ref[i] = i * 1000 - 7;
          mac_s8(acc.data() + 1 + off % 2, pb, w, n);
          mac_s8_ref(acc_ref.data() + 1 + off % 2, pb, w, n);
          ASSERT_EQ(acc, acc_ref) << at(l, n, off) << " w=" << w;
        }
      }
    }
  }
}

TEST(KernelsS8X86, QueryRowPackDotAndQk) {
  LevelGuard g;
  const auto q = random_s8(400, 3);
  const auto k = random_s8(40 * 320, 4);
  std::vector<uint8_t> packed(1024), packed_ref(1024);
  std::vector<int32_t> dots(64), dots_ref(64);
  for (int l = 0; l < kLevels; ++l) {
    if (!kernels_s8_x86_select(l)) continue;
    for (int32_t n = 1; n <= 300; ++n) {
      for (int32_t zp : {-128, -1, 0, 5, 127}) {
        const int32_t off = (n + zp) & 3;
        const int8_t* pq = q.data() + off;
        // The packed buffer exactly qrow_s8_bytes(n) long, misaligned by 1.
        uint8_t* pk = packed.data() + 1;
        ASSERT_EQ(qrow_s8_pack(pq, zp, n, pk), qrow_s8_pack_ref(pq, zp, n, packed_ref.data()))
            << at(l, n, off);
        for (int32_t kk = 0; kk < 3; ++kk) {
          const int8_t* pkey = k.data() + 3 + kk * 301;
          ASSERT_EQ(qrow_s8_dot(pk, zp, pkey, n), qrow_s8_dot_ref(packed_ref.data(), zp, pkey, n))
              << at(l, n, off) << " zp=" << zp;
        }
        // A whole score row: key counts around the 8-key groups, strided keys.
        const int32_t nkeys = 1 + (n * 7 + zp + 128) % 37;
        const std::size_t stride = static_cast<std::size_t>(n) + static_cast<std::size_t>(off);
        qk_s8(pk, zp, k.data() + 1, stride, nkeys, n, dots.data() + 1);
        qk_s8_ref(packed_ref.data(), zp, k.data() + 1, stride, nkeys, n, dots_ref.data() + 1);
        ASSERT_EQ(dots, dots_ref) << at(l, n, off) << " zp=" << zp << " nkeys=" << nkeys;
      }
    }
    // Every key count 0..40 at d = 64 and 65.
    for (int32_t n : {64, 65}) {
      qrow_s8_pack(q.data(), 3, n, packed.data());
      qrow_s8_pack_ref(q.data(), 3, n, packed_ref.data());
      for (int32_t nkeys = 0; nkeys <= 40; ++nkeys) {
        std::fill(dots.begin(), dots.end(), 0);
        std::fill(dots_ref.begin(), dots_ref.end(), 0);
        qk_s8(packed.data(), 3, k.data() + 2, static_cast<std::size_t>(n), nkeys, n, dots.data());
        qk_s8_ref(packed_ref.data(), 3, k.data() + 2, static_cast<std::size_t>(n), nkeys, n,
                  dots_ref.data());
        ASSERT_EQ(dots, dots_ref) << at(l, n, 0) << " nkeys=" << nkeys;
      }
    }
  }
}

TEST(KernelsS8X86, PackedRowSurvivesLevelChanges) {
  LevelGuard g;
  const auto q = random_s8(100, 5), k = random_s8(100, 6);
  std::vector<uint8_t> packed(qrow_s8_bytes(77)), packed_ref(qrow_s8_bytes(77));
  qrow_s8_pack_ref(q.data(), -9, 77, packed_ref.data());
  const int32_t want = qrow_s8_dot_ref(packed_ref.data(), -9, k.data(), 77);
  for (int lp = 0; lp < kLevels; ++lp) {
    if (!kernels_s8_x86_select(lp)) continue;
    qrow_s8_pack(q.data(), -9, 77, packed.data());
    for (int ld = 0; ld < kLevels; ++ld) {
      if (!kernels_s8_x86_select(ld)) continue;
      EXPECT_EQ(qrow_s8_dot(packed.data(), -9, k.data(), 77), want) << lp << " " << ld;
    }
  }
}

TEST(KernelsS8X86, PvAndPvStrided) {
  LevelGuard g;
  const auto v = random_s8(64 * 320, 7);
  std::mt19937 rng(8);
  std::uniform_int_distribution<int> dw(0, 255);
  std::vector<int16_t> w(65);
  for (std::size_t r = 0; r < w.size(); ++r) w[r] = static_cast<int16_t>(dw(rng));
  for (std::size_t r = 0; r < 8; ++r) w[r] = r % 3 ? int16_t{255} : int16_t{0};
  std::vector<int32_t> acc(320), acc_ref(320);
  std::vector<const int8_t*> rows(64);
  for (int l = 0; l < kLevels; ++l) {
    if (!kernels_s8_x86_select(l)) continue;
    for (int32_t n = 1; n <= 300; ++n) {
      const int32_t off = n % 5;
      for (int32_t nrows : {0, 1, 2, 3, 4, 5, 7, 8, 13, 33, 64}) {
        if (nrows > 13 && n % 7 != 0 && n != 64) continue;  // keep the run short
        const std::size_t stride = static_cast<std::size_t>(n) + 3;
        for (int32_t r = 0; r < nrows; ++r) {
          rows[static_cast<std::size_t>(r)] =
              v.data() + static_cast<std::size_t>((r * 37) % 60) * 301 + static_cast<std::size_t>(off);
        }
        std::fill(acc.begin(), acc.end(), -1);
        std::fill(acc_ref.begin(), acc_ref.end(), -1);
        pv_s8(rows.data(), w.data() + (n & 1), nrows, n, acc.data() + 1);
        pv_s8_ref(rows.data(), w.data() + (n & 1), nrows, n, acc_ref.data() + 1);
        ASSERT_EQ(acc, acc_ref) << at(l, n, off) << " nrows=" << nrows;
        pv_s8_strided(v.data() + off, stride, w.data() + (n & 1), nrows, n, acc.data() + 1);
        pv_s8_strided_ref(v.data() + off, stride, w.data() + (n & 1), nrows, n, acc_ref.data() + 1);
        ASSERT_EQ(acc, acc_ref) << at(l, n, off) << " nrows=" << nrows << " strided";
      }
    }
  }
}

TEST(KernelsS8X86, RequantizeRow) {
  LevelGuard g;
  std::mt19937 rng(9);
  std::vector<int32_t> acc(330);
  // |x| < 2^30 beyond the first 20 (x - offset never overflows there).
  for (auto& x : acc) x = static_cast<int32_t>(rng() >> 2) - (1 << 29) * 2;
  for (std::size_t i = 0; i < 20; ++i) acc[i] = i % 2 ? INT32_MIN : INT32_MAX;
  for (std::size_t i = 20; i < 60; ++i) acc[i] = static_cast<int32_t>(i) - 40;  // small, ties
  for (std::size_t i = 60; i < 120; ++i) acc[i] = static_cast<int32_t>(rng() % 2001) - 1000;
  std::vector<int8_t> out(320), out_ref(320);
  const int32_t mults[] = {1 << 30, 1518500250, INT32_MAX, 1073741825, 0, -5};
  for (int l = 0; l < kLevels; ++l) {
    if (!kernels_s8_x86_select(l)) continue;
    for (int32_t shift = -31; shift <= 30; ++shift) {
      for (int32_t m : mults) {
        for (int32_t n : {1, 7, 8, 15, 16, 17, 31, 33, 64, 100, 255, 300}) {
          for (int32_t offset : {0, -3, 100000}) {
            const int32_t off = (n + shift) & 3;
            std::fill(out.begin(), out.end(), int8_t{11});
            std::fill(out_ref.begin(), out_ref.end(), int8_t{11});
            const int32_t zp = shift & 1 ? -128 : 5;
            // acc - offset must not overflow: skip the extremes when offsetting.
            const int32_t* a = acc.data() + (offset != 0 ? 20 : 0) + off;
            requantize_row_s8(a, n, offset, m, shift, zp, out.data() + off);
            requantize_row_s8_ref(a, n, offset, m, shift, zp, out_ref.data() + off);
            ASSERT_EQ(out, out_ref) << at(l, n, off) << " shift=" << shift << " m=" << m
                                    << " offset=" << offset;
          }
        }
      }
    }
  }
}

TEST(KernelsS8X86, SoftmaxRow) {
  LevelGuard g;
  std::mt19937 rng(13);
  // Prepared tables (small and large input scales: diff_min cuts, sums that
  // saturate the output) and one arbitrary table (negative entries too).
  std::vector<attn::SoftmaxS8Params> tables;
  for (float scale : {0.002f, 0.05f, 0.2f, 1.0f, 30.0f}) {
    attn::SoftmaxS8Params p;
    ASSERT_EQ(attn::softmax_s8_prepare(scale, 1.0f, &p), attn::Status::kOk);
    tables.push_back(p);
  }
  attn::SoftmaxS8Params arb = tables[1];
  for (auto& e : arb.exp_table) e = static_cast<int32_t>(rng() >> 1) - (1 << 28);
  arb.diff_min = -200;
  tables.push_back(arb);
  const auto base = random_s8(4200, 14);
  std::vector<int8_t> in(4200), out(4200), out_ref(4200);
  for (int l = 0; l < kLevels; ++l) {
    if (!kernels_s8_x86_select(l)) continue;
    for (std::size_t t = 0; t < tables.size(); ++t) {
      const auto& p = tables[t];
      for (int32_t n : {1, 2, 15, 16, 17, 63, 64, 65, 100, 255, 256, 300, 1024, 4095}) {
        for (int32_t spread : {1, 4, 40, 256}) {
          for (std::size_t i = 0; i < in.size(); ++i) {
            in[i] = static_cast<int8_t>(base[i] % spread + (spread == 1 ? 0 : (t % 2 ? -20 : 30)));
          }
          const int32_t off = n & 3;
          std::fill(out.begin(), out.end(), int8_t{3});
          std::fill(out_ref.begin(), out_ref.end(), int8_t{3});
          softmax_s8_row(p.exp_table, p.diff_min, in.data() + off, out.data() + off, n);
          softmax_s8_row_ref(p.exp_table, p.diff_min, in.data() + off, out_ref.data() + off, n);
          ASSERT_EQ(out, out_ref) << at(l, n, off) << " table=" << t << " spread=" << spread;
          // In place.
          std::vector<int8_t> io(in);
          softmax_s8_row(p.exp_table, p.diff_min, io.data() + off, io.data() + off, n);
          ASSERT_TRUE(std::equal(io.begin() + off, io.begin() + off + n, out_ref.begin() + off))
              << at(l, n, off) << " in place";
        }
      }
    }
  }
}

// Whole SDPA (qk_s8, requantize, softmax, pv) at each level against the scalar
// level, over shapes that reach every tail path.
TEST(KernelsS8X86, SdpaSameBitsAtEveryLevel) {
  LevelGuard g;
  struct Shape {
    int32_t sq, skv, dk, dv;
  };
  const Shape shapes[] = {{1, 1, 1, 1}, {3, 17, 5, 9}, {8, 64, 64, 64}, {5, 300, 65, 33},
                          {16, 256, 64, 64}, {2, 129, 128, 127}};
  for (const Shape& s : shapes) {
    attn::SdpaShape shape{2, s.sq, s.skv, s.dk, s.dv};
    attn::SdpaS8Quant quant;
    quant.q = {0.05f, 3};
    quant.k = {0.04f, -7};
    quant.v = {0.03f, 5};
    quant.scores = {0.2f, 2};
    quant.out = {0.02f, -4};
    attn::SdpaS8Params params;
    ASSERT_EQ(attn::sdpa_s8_prepare(shape, quant, &params), attn::Status::kOk);
    const auto nq = static_cast<std::size_t>(2 * s.sq * s.dk);
    const auto nk = static_cast<std::size_t>(2 * s.skv * s.dk);
    const auto nv = static_cast<std::size_t>(2 * s.skv * s.dv);
    const auto no = static_cast<std::size_t>(2 * s.sq * s.dv);
    const auto q = random_s8(nq, 10), k = random_s8(nk, 11), v = random_s8(nv, 12);
    std::vector<unsigned char> scratch(attn::sdpa_s8_scratch_bytes(shape));
    for (bool causal : {false, true}) {
      std::vector<int8_t> want(no);
      for (int l = 0; l < kLevels; ++l) {
        if (!kernels_s8_x86_select(l)) continue;
        std::vector<int8_t> out(no, 0);
        attn::SdpaS8Args args;
        args.q = q.data();
        args.k = k.data();
        args.v = v.data();
        args.out = out.data();
        args.mask.causal = causal;
        ASSERT_EQ(attn::sdpa_s8(params, args, {scratch.data(), scratch.size()}), attn::Status::kOk);
        if (l == 0) {
          want = out;
        } else {
          ASSERT_EQ(out, want) << kernels_s8_x86_level_name(l) << " sq=" << s.sq
                               << " skv=" << s.skv << " dk=" << s.dk << " causal=" << causal;
        }
      }
    }
  }
}

}  // namespace

#else
TEST(KernelsS8X86, NotAnX86Build) { GTEST_SKIP() << "no x86 int8 kernels in this build"; }
#endif
