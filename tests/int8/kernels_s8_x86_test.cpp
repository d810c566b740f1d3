// The x86 int8 kernels (engine/src/kernels/s8/x86/kernels_s8_x86.cpp) at every dispatch
// level this CPU supports (scalar, AVX2, AVX-VNNI, AVX-512 VNNI) against the
// portable references, bit for bit: lengths 1..300, misaligned pointers,
// runs of the extreme values -128 / 127, every requantization shift; then
// whole int8 SDPA runs at each level against the scalar level. One test
// instance per level (Levels/KernelsS8X86Level.*/<level>); a level this CPU
// lacks is reported as skipped.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "attn/sdpa_s8.h"
#include "attn/softmax_s8.h"
#include "kernels/s8/fixedpoint.h"
#include "kernels/s8/kernels_s8.h"

#if defined(ATTN_S8_KERNELS_X86)
#include <cpuid.h>

namespace {

using namespace attn::detail;

constexpr int kLevels = 4;

// Restores the CPU's best level when a test ends.
struct LevelGuard {
  ~LevelGuard() { kernels_s8_select(-1); }
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
  return std::string(kernels_s8_level_name(level)) + " n=" + std::to_string(n) +
         " off=" + std::to_string(off);
}

// One dispatch level per test instance (KernelsS8X86Level/<test>/<level>): a
// level this CPU lacks is reported as skipped, never passed.
class KernelsS8X86Level : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    if (!kernels_s8_select(GetParam())) {
      GTEST_SKIP() << "this CPU lacks the x86 int8 level " << kernels_s8_level_name(GetParam());
    }
  }
  void TearDown() override { kernels_s8_select(-1); }
  // The level under test, as a one-element range for the per-level loops.
  std::array<int, 1> level() const { return {GetParam()}; }
};

TEST(KernelsS8X86, DetectsAndSelectsLevels) {
  LevelGuard g;
  EXPECT_TRUE(kernels_s8_supported(0));
  EXPECT_FALSE(kernels_s8_supported(4));
  EXPECT_FALSE(kernels_s8_supported(-1));
  const int best = kernels_s8_level();
  for (int l = 0; l < kLevels; ++l) {
    EXPECT_EQ(kernels_s8_select(l), kernels_s8_supported(l));
    if (kernels_s8_supported(l)) {
      EXPECT_EQ(kernels_s8_level(), l);
      EXPECT_STREQ(kernels_s8_name(), kernels_s8_level_name(l));
    }
  }
  EXPECT_TRUE(kernels_s8_select(-1));
  EXPECT_EQ(kernels_s8_level(), best);
  std::printf("x86 int8 kernels: best level %s\n", kernels_s8_level_name(best));
}

// Level 2 is the VEX-encoded AVX-VNNI, which some AVX512-VNNI CPUs (Ice
// Lake, Cascade Lake) lack: its support follows its own CPUID bit
// (leaf 7, sub-leaf 1, EAX bit 4), not "best level >= 2".
TEST(KernelsS8X86, LevelTwoFollowsTheAvxVnniBit) {
  unsigned a = 0, b = 0, c = 0, d = 0;
  const bool leaf7 = __get_cpuid_count(7, 1, &a, &b, &c, &d) != 0;
  const bool avxvnni_bit = leaf7 && (a & (1u << 4)) != 0;
  if (!avxvnni_bit) {
    EXPECT_FALSE(kernels_s8_supported(2));
  } else if (kernels_s8_supported(1)) {
    EXPECT_TRUE(kernels_s8_supported(2));  // AVX2 with OS ymm state, plus the bit
  }
}

TEST_P(KernelsS8X86Level, DotAndMac) {
  const auto a = random_s8(400, 1), b = random_s8(400, 2);
  std::vector<int32_t> acc(400), acc_ref(400);
  for (int l : level()) {
    kernels_s8_select(l);
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

TEST_P(KernelsS8X86Level, QueryRowPackDotAndQk) {
  const auto q = random_s8(400, 3);
  const auto k = random_s8(40 * 320, 4);
  std::vector<uint8_t> packed(1024), packed_ref(1024);
  std::vector<int32_t> dots(64), dots_ref(64);
  for (int l : level()) {
    kernels_s8_select(l);
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

TEST_P(KernelsS8X86Level, PackedRowSurvivesLevelChanges) {
  const auto q = random_s8(100, 5), k = random_s8(100, 6);
  std::vector<uint8_t> packed(qrow_s8_bytes(77)), packed_ref(qrow_s8_bytes(77));
  qrow_s8_pack_ref(q.data(), -9, 77, packed_ref.data());
  const int32_t want = qrow_s8_dot_ref(packed_ref.data(), -9, k.data(), 77);
  for (int lp : level()) {
    kernels_s8_select(lp);
    qrow_s8_pack(q.data(), -9, 77, packed.data());
    // Read back at every level this CPU runs (the others are skipped as
    // packing levels of their own instances).
    for (int ld = 0; ld < kLevels; ++ld) {
      if (!kernels_s8_select(ld)) continue;
      EXPECT_EQ(qrow_s8_dot(packed.data(), -9, k.data(), 77), want) << lp << " " << ld;
    }
  }
}

TEST_P(KernelsS8X86Level, PvAndPvStrided) {
  const auto v = random_s8(64 * 320, 7);
  std::mt19937 rng(8);
  std::uniform_int_distribution<int> dw(0, 255);
  std::vector<int16_t> w(65);
  for (std::size_t r = 0; r < w.size(); ++r) w[r] = static_cast<int16_t>(dw(rng));
  for (std::size_t r = 0; r < 8; ++r) w[r] = r % 3 ? int16_t{255} : int16_t{0};
  std::vector<int32_t> acc(320), acc_ref(320);
  std::vector<const int8_t*> rows(64);
  for (int l : level()) {
    kernels_s8_select(l);
    for (int32_t n = 1; n <= 300; ++n) {
      const int32_t off = n % 5;
      for (int32_t nrows : {0, 1, 2, 3, 4, 5, 7, 8, 13, 33, 64}) {
        if (nrows > 13 && n % 7 != 0 && n != 64) continue;  // keep the run short
        const std::size_t stride = static_cast<std::size_t>(n) + 3;
        for (int32_t r = 0; r < nrows; ++r) {
          rows[static_cast<std::size_t>(r)] = v.data() +
                                              static_cast<std::size_t>((r * 37) % 60) * 301 +
                                              static_cast<std::size_t>(off);
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

TEST_P(KernelsS8X86Level, RequantizeRow) {
  std::mt19937 rng(9);
  std::vector<int32_t> acc(330);
  // |x| < 2^30 beyond the first 20 (x - offset never overflows there).
  for (auto& x : acc) x = static_cast<int32_t>(rng() >> 2) - (1 << 29) * 2;
  for (std::size_t i = 0; i < 20; ++i) acc[i] = i % 2 ? INT32_MIN : INT32_MAX;
  for (std::size_t i = 20; i < 60; ++i) acc[i] = static_cast<int32_t>(i) - 40;  // small, ties
  for (std::size_t i = 60; i < 120; ++i) acc[i] = static_cast<int32_t>(rng() % 2001) - 1000;
  std::vector<int8_t> out(320), out_ref(320);
  const int32_t mults[] = {1 << 30, 1518500250, INT32_MAX, 1073741825, 0, -5};
  for (int l : level()) {
    kernels_s8_select(l);
    for (int32_t shift = -31; shift <= 30; ++shift) {
      for (int32_t m : mults) {
        for (int32_t n : {1, 7, 8, 15, 16, 17, 31, 33, 64, 100, 255, 300}) {
          for (int32_t offset : {0, -3, 100000, -100000}) {
            const int32_t off = (n + shift) & 3;
            std::fill(out.begin(), out.end(), int8_t{11});
            std::fill(out_ref.begin(), out_ref.end(), int8_t{11});
            const int32_t zps[] = {5, -128, 127, -7};
            const int32_t zp = zps[(shift + n) & 3];
            // acc - offset must not overflow: skip the extremes when offsetting.
            const int32_t* a = acc.data() + (offset != 0 ? 20 : 0) + off;
            requantize_row_s8(a, n, offset, m, shift, zp, out.data() + off);
            requantize_row_s8_ref(a, n, offset, m, shift, zp, out_ref.data() + off);
            ASSERT_EQ(out, out_ref)
                << at(l, n, off) << " shift=" << shift << " m=" << m << " offset=" << offset;
          }
        }
      }
    }
  }
}

TEST_P(KernelsS8X86Level, SoftmaxRow) {
  std::mt19937 rng(13);
  // Prepared tables (small and large input scales: diff_min cuts, sums that
  // saturate the output) and two arbitrary tables (negative entries too, and
  // non-negative ones).
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
  // Arbitrary non-negative entries (up to INT32_MAX, not decreasing): the
  // byte-table kernels take these too.
  attn::SoftmaxS8Params arb_pos = tables[2];
  for (auto& e : arb_pos.exp_table) e = static_cast<int32_t>(rng() >> 1);
  arb_pos.exp_table[0] = INT32_MAX;
  arb_pos.diff_min = -230;
  tables.push_back(arb_pos);
  const auto base = random_s8(4200, 14);
  std::vector<int8_t> in(4200), out(4200), out_ref(4200);
  for (int l : level()) {
    kernels_s8_select(l);
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

// softmax_s8_row_w (the tiled core's softmax: unsigned weights, zero padding,
// their sum, from a once-prepared table) against softmax_s8_row_w_ref, in
// place and not, at every level; prepared and arbitrary tables.
TEST_P(KernelsS8X86Level, SoftmaxRowWeights) {
  std::mt19937 rng(15);
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
  // Arbitrary non-negative entries (up to INT32_MAX, not decreasing): the
  // byte-table kernels take these too.
  attn::SoftmaxS8Params arb_pos = tables[2];
  for (auto& e : arb_pos.exp_table) e = static_cast<int32_t>(rng() >> 1);
  arb_pos.exp_table[0] = INT32_MAX;
  arb_pos.diff_min = -230;
  tables.push_back(arb_pos);
  const auto base = random_s8(4200, 16);
  std::vector<int8_t> in(4200);
  for (std::size_t t = 0; t < tables.size(); ++t) {
    const auto& p = tables[t];
    alignas(64) unsigned char lut[kSoftmaxS8LutBytes];
    softmax_s8_tile_prepare(p.exp_table, p.diff_min, 4095, lut);
    for (int l : level()) {
      kernels_s8_select(l);
      for (int32_t n : {1, 2, 15, 16, 17, 63, 64, 65, 100, 255, 256, 300, 1024, 4095}) {
        for (int32_t spread : {1, 4, 40, 256}) {
          for (std::size_t i = 0; i < in.size(); ++i) {
            in[i] = static_cast<int8_t>(base[i] % spread + (spread == 1 ? 0 : (t % 2 ? -20 : 30)));
          }
          const int32_t off = n & 3;
          const int32_t n_pad = n + (n % 5);
          std::vector<uint8_t> w(4200, 7), w_ref(4200, 7);
          const int32_t sum_ref = softmax_s8_row_w_ref(p.exp_table, p.diff_min, in.data() + off,
                                                       w_ref.data() + off, n, n_pad);
          const int32_t sum = softmax_s8_row_w(lut, p.exp_table, p.diff_min, in.data() + off,
                                               w.data() + off, n, n_pad);
          ASSERT_EQ(sum, sum_ref) << at(l, n, off) << " table=" << t << " spread=" << spread;
          ASSERT_EQ(w, w_ref) << at(l, n, off) << " table=" << t << " spread=" << spread;
          std::vector<int8_t> io(in);
          auto* iw = reinterpret_cast<uint8_t*>(io.data());
          ASSERT_EQ(
              softmax_s8_row_w(lut, p.exp_table, p.diff_min, io.data() + off, iw + off, n, n_pad),
              sum_ref);
          ASSERT_TRUE(std::equal(iw + off, iw + off + n_pad, w_ref.begin() + off))
              << at(l, n, off) << " in place";
        }
      }
      // softmax_s8_tile_w: 1..33 rows of mixed lengths (0 included) in place;
      // short tiles (every row at most 16 columns) padded to 16 or 300.
      for (int32_t nq : {1, 5, 16, 17, 33})
        for (int shortrows = 0; shortrows < 3; ++shortrows) {
          const std::size_t stride = 301;
          const int32_t n_pad = shortrows == 1 ? 16 : 300;
          std::vector<int32_t> ns(static_cast<std::size_t>(nq));
          std::vector<int8_t> rows(stride * static_cast<std::size_t>(nq));
          std::vector<uint8_t> want(rows.size(), 0);
          std::vector<int32_t> want_sum(ns.size()), sum(ns.size());
          for (int32_t r = 0; r < nq; ++r) {
            const auto ur = static_cast<std::size_t>(r);
            const int32_t lens[] = {0, 1, 63, 64, 65, 200, 256, 299};
            const int32_t short_lens[] = {0, 1, 2, 3, 5, 8, 15, 16};
            ns[ur] =
                (shortrows != 0 ? short_lens : lens)[(static_cast<std::size_t>(r) * 3 + t) % 8];
            const int32_t spread = r % 2 ? 256 : 40;
            for (std::size_t c = 0; c < stride; ++c) {
              rows[ur * stride + c] =
                  static_cast<int8_t>(base[(ur * 7 + c) % base.size()] % spread);
            }
            want_sum[ur] = softmax_s8_row_w_ref(p.exp_table, p.diff_min, rows.data() + ur * stride,
                                                want.data() + ur * stride, ns[ur], n_pad);
            // Bytes past n_pad stay as they were.
            for (std::size_t c = static_cast<std::size_t>(n_pad); c < stride; ++c) {
              want[ur * stride + c] = static_cast<uint8_t>(rows[ur * stride + c]);
            }
          }
          softmax_s8_tile_w(lut, p.exp_table, p.diff_min, rows.data(), stride, nq, ns.data(), n_pad,
                            sum.data());
          ASSERT_EQ(sum, want_sum) << kernels_s8_level_name(l) << " tile nq=" << nq
                                   << " table=" << t << " short=" << shortrows;
          ASSERT_TRUE(std::equal(want.begin(), want.end(), reinterpret_cast<uint8_t*>(rows.data())))
              << kernels_s8_level_name(l) << " tile nq=" << nq << " table=" << t
              << " short=" << shortrows;
        }
    }
  }
}

// The query-tile kernels: kpack_s8 + qtile_s8_pack + qk_tile_s8 and
// vpack_s8 + pv_tile_s8 at each level against direct sums (and the *_ref
// kernels; the packings byte for byte against theirs), over tile rows 1..33,
// keys 1..200, depths 1..128, misaligned source and packed pointers.
TEST_P(KernelsS8X86Level, QueryTileKernels) {
  const int32_t rows[] = {1, 2, 3, 4, 5, 8, 9, 16, 17, 33};
  const int32_t keys[] = {1, 3, 8, 15, 16, 17, 33, 64, 100, 200};
  const int32_t depths[] = {1, 3, 4, 5, 16, 17, 63, 64, 65, 128};
  const int32_t zps[] = {-128, -5, 0, 127};
  std::mt19937 rng(77);
  std::uniform_int_distribution<int> byte(0, 255);
  int combo = 0;
  for (int32_t nq : rows) {
    for (int32_t nk : keys) {
      for (int32_t d : depths) {
        ++combo;
        const auto off = static_cast<std::size_t>(combo % 4);
        const int32_t zp = zps[combo % 4];
        const auto uq = static_cast<std::size_t>(nq), uk = static_cast<std::size_t>(nk),
                   ud = static_cast<std::size_t>(d);
        const std::size_t qs = ud + 3, ks = ud + 1;  // row strides
        const auto q = random_s8(off + uq * qs, static_cast<uint32_t>(combo));
        const auto k = random_s8(off + uk * ks, static_cast<uint32_t>(combo + 1000));
        const int8_t* qp = q.data() + off;
        const int8_t* kp = k.data() + off;
        // Q K^T.
        std::vector<int32_t> want(uq * uk);
        for (std::size_t i = 0; i < uq; ++i) {
          for (std::size_t j = 0; j < uk; ++j) {
            int64_t acc = 0;
            for (std::size_t c = 0; c < ud; ++c) acc += (qp[i * qs + c] - zp) * kp[j * ks + c];
            want[i * uk + j] = static_cast<int32_t>(acc);
          }
        }
        std::vector<int8_t> kpacked(off + kpack_s8_bytes(nk, d) + 64);
        std::vector<int32_t> ksum(1 + round_up_s8(uk, 16));
        kpack_s8(kp, ks, nk, d, kpacked.data() + off, ksum.data() + 1);
        std::vector<uint8_t> u(off + uq * round_up_s8(ud, 4));
        std::vector<int32_t> qsum(uq);
        qtile_s8_pack(qp, qs, nq, zp, d, u.data() + off, qsum.data());
        for (std::size_t i = 0; i < uq; ++i) {
          int32_t sq = 0;
          for (std::size_t c = 0; c < ud; ++c) sq += qp[i * qs + c] - zp;
          ASSERT_EQ(qsum[i], sq);
        }
        // The packings at every level against their references (the
        // references' packed bytes and sums; guard bytes untouched).
        {
          std::vector<int8_t> kref(kpack_s8_bytes(nk, d));
          std::vector<int32_t> ksref(round_up_s8(uk, 16));
          kpack_s8_ref(kp, ks, nk, d, kref.data(), ksref.data());
          std::vector<uint8_t> uref(uq * round_up_s8(ud, 4));
          std::vector<int32_t> qsref(uq);
          qtile_s8_pack_ref(qp, qs, nq, zp, d, uref.data(), qsref.data());
          ASSERT_TRUE(std::equal(qsref.begin(), qsref.end(), qsum.begin()));
          for (int l : level()) {
            kernels_s8_select(l);
            std::vector<int8_t> kl(off + kref.size() + 64, 7);
            std::vector<int32_t> ksl(ksref.size() + 2, 7);
            kpack_s8(kp, ks, nk, d, kl.data() + off, ksl.data() + 1);
            ASSERT_TRUE(
                std::equal(kref.begin(), kref.end(), kl.begin() + static_cast<std::ptrdiff_t>(off)))
                << "kpack " << kernels_s8_level_name(l) << " nk=" << nk << " d=" << d;
            ASSERT_TRUE(std::equal(ksref.begin(), ksref.end(), ksl.begin() + 1))
                << "ksum " << kernels_s8_level_name(l) << " nk=" << nk << " d=" << d;
            ASSERT_EQ(ksl[0], 7);
            ASSERT_EQ(ksl[ksl.size() - 1], 7);
            ASSERT_EQ(kl[off + kref.size()], 7);
            std::vector<uint8_t> ul(off + uref.size() + 16, 7);
            std::vector<int32_t> qsl(uq);
            qtile_s8_pack(qp, qs, nq, zp, d, ul.data() + off, qsl.data());
            ASSERT_TRUE(
                std::equal(uref.begin(), uref.end(), ul.begin() + static_cast<std::ptrdiff_t>(off)))
                << "qtile pack " << kernels_s8_level_name(l) << " nq=" << nq << " d=" << d;
            ASSERT_EQ(ul[off + uref.size()], 7);
            ASSERT_TRUE(std::equal(qsref.begin(), qsref.end(), qsl.begin()))
                << "qsum " << kernels_s8_level_name(l) << " nq=" << nq << " d=" << d;
          }
        }
        const std::size_t os = round_up_s8(uk, 16) + 5;
        for (int l : {-1, GetParam()}) {
          if (l >= 0) kernels_s8_select(l);
          std::vector<int32_t> out(1 + uq * os, 0);
          if (l < 0) {
            qk_tile_s8_ref(u.data() + off, nq, zp, kpacked.data() + off, ksum.data() + 1, nk, d,
                           out.data() + 1, os);
          } else {
            qk_tile_s8(u.data() + off, nq, zp, kpacked.data() + off, ksum.data() + 1, nk, d,
                       out.data() + 1, os);
          }
          for (std::size_t i = 0; i < uq; ++i) {
            for (std::size_t j = 0; j < uk; ++j) {
              ASSERT_EQ(out[1 + i * os + j], want[i * uk + j])
                  << "qk " << (l < 0 ? "ref" : kernels_s8_level_name(l)) << " nq=" << nq
                  << " nk=" << nk << " d=" << d << " i=" << i << " j=" << j;
            }
          }
        }
        // Q K^T with the requantization fused, at every level against
        // qk_tile_s8_rq_ref (a level without the fused form writes nothing),
        // over shifts with and without rounding and per-row offsets.
        {
          std::vector<int32_t> offsets(uq);
          // Small offsets, and offsets that put qk - offset near either end of
          // int32 (|qk| < 2^23 here): the fused forms' 64-bit products at
          // their extremes, the zero point's int32 wrap-around, saturation.
          for (std::size_t i = 0; i < uq; ++i) {
            offsets[i] = i % 4 == 1   ? INT32_MAX - (1 << 23)
                         : i % 4 == 2 ? INT32_MIN + (1 << 23)
                                      : static_cast<int32_t>(i * 37) - 300;
          }
          const std::size_t ss = round_up_s8(uk, 16) + 7;
          const int32_t shifts[] = {0, -1, -7, -13, -23, -24, 1};
          const int32_t mults[] = {1 << 30, 1518500250, INT32_MAX};
          const int32_t ozps[] = {-128, 3, 127};
          const int32_t shift = shifts[combo % 7];
          const int32_t mult = mults[combo % 3];
          const int32_t ozp = ozps[(combo / 3) % 3];
          std::vector<int8_t> sref(off + uq * ss, 9);
          qk_tile_s8_rq_ref(u.data() + off, nq, zp, kpacked.data() + off, ksum.data() + 1, nk, d,
                            offsets.data(), mult, shift, ozp, sref.data() + off, ss);
          for (std::size_t i = 0; i < uq; ++i) {
            for (std::size_t j = 0; j < uk; ++j) {
              ASSERT_EQ(sref[off + i * ss + j],
                        attn::q::requantize(want[i * uk + j] - offsets[i], mult, shift, ozp))
                  << "qk rq ref nq=" << nq << " nk=" << nk << " d=" << d;
            }
          }
          for (int l : level()) {
            kernels_s8_select(l);
            std::vector<int8_t> sl(off + uq * ss, 9);
            const bool fused = qk_tile_s8_rq(u.data() + off, nq, zp, kpacked.data() + off,
                                             ksum.data() + 1, nk, d, offsets.data(), mult, shift,
                                             ozp, sl.data() + off, ss);
            for (std::size_t i = 0; i < uq; ++i) {
              for (std::size_t j = 0; j < uk; ++j) {
                ASSERT_EQ(sl[off + i * ss + j], fused ? sref[off + i * ss + j] : int8_t{9})
                    << "qk rq " << kernels_s8_level_name(l) << " nq=" << nq << " nk=" << nk
                    << " d=" << d << " shift=" << shift << " i=" << i << " j=" << j;
              }
              if (fused) {
                ASSERT_EQ(sl[off + i * ss + round_up_s8(uk, 16)], 9);
              }
            }
          }
        }
        // P V: nk rows of V with d columns, weights 0..255 (extremes first).
        const std::size_t vs = ud + 2;
        const auto v = random_s8(off + uk * vs, static_cast<uint32_t>(combo + 2000));
        const int8_t* vp = v.data() + off;
        const std::size_t wst = round_up_s8(uk, 4) + 3;
        std::vector<uint8_t> w(off + uq * wst, 0);
        for (std::size_t i = 0; i < uq; ++i) {
          for (std::size_t j = 0; j < uk; ++j) {
            const int r = byte(rng);
            w[off + i * wst + j] = static_cast<uint8_t>((i + j) % 7 == 0 ? 255 : r);
          }
        }
        std::vector<int32_t> want_pv(uq * ud);
        for (std::size_t i = 0; i < uq; ++i) {
          for (std::size_t c = 0; c < ud; ++c) {
            int64_t acc = 0;
            for (std::size_t j = 0; j < uk; ++j) acc += w[off + i * wst + j] * vp[j * vs + c];
            want_pv[i * ud + c] = static_cast<int32_t>(acc);
          }
        }
        std::vector<int8_t> vref(vpack_s8_bytes(nk, d));
        vpack_s8_ref(vp, vs, nk, d, vref.data());
        const std::size_t as = round_up_s8(ud, 16) + 3;
        for (int l : {-1, GetParam()}) {
          if (l >= 0) kernels_s8_select(l);
          std::vector<int8_t> vpacked(off + vpack_s8_bytes(nk, d) + 64, 1);
          if (l < 0) {
            vpack_s8_ref(vp, vs, nk, d, vpacked.data() + off);
          } else {
            vpack_s8(vp, vs, nk, d, vpacked.data() + off);
          }
          // The reference layout's bytes: round4(nk) rows of round16(d) (the
          // buffer has room for 16-row blocks).
          const auto vbytes = static_cast<std::ptrdiff_t>(round_up_s8(uk, 4) * round_up_s8(ud, 16));
          ASSERT_TRUE(std::equal(vref.begin(), vref.begin() + vbytes,
                                 vpacked.begin() + static_cast<std::ptrdiff_t>(off)))
              << "vpack " << (l < 0 ? "ref" : kernels_s8_level_name(l)) << " nk=" << nk
              << " d=" << d;
          std::vector<int32_t> acc(1 + uq * as, 0);
          if (l < 0) {
            pv_tile_s8_ref(w.data() + off, wst, nq, vpacked.data() + off, nk, d, acc.data() + 1,
                           as);
          } else {
            std::vector<int32_t> work(pv_tile_s8_work_bytes(nk) / 4);
            pv_tile_s8(w.data() + off, wst, nq, vpacked.data() + off, nk, d, acc.data() + 1, as,
                       work.data());
          }
          for (std::size_t i = 0; i < uq; ++i) {
            for (std::size_t c = 0; c < ud; ++c) {
              ASSERT_EQ(acc[1 + i * as + c], want_pv[i * ud + c])
                  << "pv " << (l < 0 ? "ref" : kernels_s8_level_name(l)) << " nq=" << nq
                  << " nk=" << nk << " d=" << d << " i=" << i << " c=" << c;
            }
          }
        }
        // P V with the requantization fused, at every level against
        // pv_tile_s8_rq_ref (a level without the fused form writes nothing),
        // over shifts with and without rounding, per-row offsets (small and
        // near both ends of int32: |pv| < 2^23 here), exactly d bytes per row.
        {
          std::vector<int32_t> offsets(uq);
          for (std::size_t i = 0; i < uq; ++i) {
            offsets[i] = i % 4 == 2   ? INT32_MAX - (1 << 23)
                         : i % 4 == 3 ? INT32_MIN + (1 << 23)
                                      : static_cast<int32_t>(i * 53) - 900;
          }
          const std::size_t ost = ud + 5;
          const int32_t shifts[] = {-7, 0, -1, -13, -23, -24, 1};
          const int32_t mults[] = {1518500250, 1 << 30, INT32_MAX};
          const int32_t ozps[] = {-4, -128, 127};
          const int32_t shift = shifts[combo % 7];
          const int32_t mult = mults[(combo / 7) % 3];
          const int32_t ozp = ozps[combo % 3];
          std::vector<int8_t> vpacked(off + vpack_s8_bytes(nk, d) + 64, 1);
          vpack_s8_ref(vp, vs, nk, d, vpacked.data() + off);
          std::vector<int8_t> oref(off + uq * ost, 9);
          pv_tile_s8_rq_ref(w.data() + off, wst, nq, vpacked.data() + off, nk, d, offsets.data(),
                            mult, shift, ozp, oref.data() + off, ost);
          for (std::size_t i = 0; i < uq; ++i) {
            for (std::size_t c = 0; c < ud; ++c) {
              ASSERT_EQ(oref[off + i * ost + c],
                        attn::q::requantize(want_pv[i * ud + c] - offsets[i], mult, shift, ozp))
                  << "pv rq ref nq=" << nq << " nk=" << nk << " d=" << d;
            }
            ASSERT_EQ(oref[off + i * ost + ud], 9);
          }
          for (int l : level()) {
            kernels_s8_select(l);
            std::vector<int8_t> ol(off + uq * ost, 9);
            std::vector<int32_t> work(pv_tile_s8_work_bytes(nk) / 4);
            const bool fused = pv_tile_s8_rq(w.data() + off, wst, nq, vpacked.data() + off, nk, d,
                                             offsets.data(), mult, shift, ozp, ol.data() + off, ost,
                                             work.data());
            for (std::size_t i = 0; i < uq; ++i) {
              for (std::size_t c = 0; c < ost; ++c) {
                const int8_t want_b = fused && c < ud ? oref[off + i * ost + c] : int8_t{9};
                ASSERT_EQ(ol[off + i * ost + c], want_b)
                    << "pv rq " << kernels_s8_level_name(l) << " nq=" << nq << " nk=" << nk
                    << " d=" << d << " shift=" << shift << " i=" << i << " c=" << c;
              }
            }
          }
        }
      }
    }
  }
}

// Whole SDPA (qk_s8, requantize, softmax, pv) at each level against the scalar
// level, over shapes that reach every tail path.
TEST_P(KernelsS8X86Level, SdpaSameBitsAtEveryLevel) {
  struct Shape {
    int32_t sq, skv, dk, dv;
  };
  const Shape shapes[] = {
      {1, 1, 1, 1},       {3, 17, 5, 9},     {8, 64, 64, 64}, {5, 300, 65, 33}, {16, 256, 64, 64},
      {2, 129, 128, 127}, {33, 200, 17, 40}, {20, 10, 3, 5},  {4, 1, 1, 1},     {37, 97, 64, 64}};
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
    // Key lengths: all, none, one, about half (the tiled core's per-row limits).
    const int32_t lengths[2] = {0, s.skv / 2 + 1};
    const int32_t all[2] = {s.skv, s.skv};
    const auto nw = static_cast<std::size_t>(2 * s.sq * s.skv);
    for (int masks = 0; masks < 4; ++masks) {
      const bool causal = (masks & 1) != 0;
      const bool keylen = (masks & 2) != 0;
      std::vector<int8_t> want(no), want_w(nw);
      // The scalar level first: the bits every level must give.
      for (int l : {0, GetParam()}) {
        kernels_s8_select(l);
        std::vector<int8_t> out(no, 0), weights(nw, 1);
        attn::SdpaS8Args args;
        args.q = q.data();
        args.k = k.data();
        args.v = v.data();
        args.out = out.data();
        args.probs = weights.data();
        args.mask.causal = causal;
        args.mask.key_lengths = keylen ? lengths : all;
        ASSERT_EQ(attn::sdpa_s8(params, args, {scratch.data(), scratch.size()}), attn::Status::kOk);
        if (l == 0) {
          want = out;
          want_w = weights;
        } else {
          ASSERT_EQ(out, want) << kernels_s8_level_name(l) << " sq=" << s.sq << " skv=" << s.skv
                               << " dk=" << s.dk << " causal=" << causal
                               << " key_lengths=" << keylen;
          ASSERT_EQ(weights, want_w) << kernels_s8_level_name(l) << " sq=" << s.sq
                                     << " skv=" << s.skv << " causal=" << causal;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Levels, KernelsS8X86Level, ::testing::Range(0, kLevels),
                         [](const ::testing::TestParamInfo<int>& i) {
                           std::string n = kernels_s8_level_name(i.param);
                           for (char& c : n) c = c == '-' ? '_' : c;
                           return n;
                         });

}  // namespace

#else
TEST(KernelsS8X86, NotAnX86Build) { GTEST_SKIP() << "no x86 int8 kernels in this build"; }
#endif
