// The AArch64 int8 tile kernels (engine/src/kernels/s8/neon/kernels_s8_tile_neon.cpp)
// at every level this CPU supports (neon, dotprod) against direct sums and the
// portable references, bit for bit: tile rows 1..33, keys 1..200, depths
// 1..128, misaligned pointers, the fused requantizations at every shift, the
// byte-table softmax on prepared and arbitrary tables; then whole int8 SDPA
// runs at each level against level 0 (the one-row core). One test instance
// per level (Levels/KernelsS8NeonLevel.*/<level>); a level this CPU lacks
// (e.g. dotprod under qemu-aarch64 -cpu cortex-a53) is reported as skipped.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "attn/sdpa_s8.h"
#include "attn/softmax_s8.h"
#include "kernels/s8/fixedpoint.h"
#include "kernels/s8/kernels_s8.h"

#if defined(ATTN_S8_KERNELS_NEON)

namespace {

using namespace attn::detail;

constexpr int kLevels = 3;

std::vector<int8_t> random_s8(std::size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> v(n);
  for (auto& x : v) x = static_cast<int8_t>(d(rng));
  return v;
}

class KernelsS8NeonLevel : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    if (!kernels_s8_supported(GetParam())) {
      GTEST_SKIP() << "this CPU lacks level " << kernels_s8_level_name(GetParam());
    }
    ASSERT_TRUE(kernels_s8_select(GetParam()));
  }
  void TearDown() override { kernels_s8_select(-1); }
};

// The tiled core runs exactly where the level has dot products.
TEST_P(KernelsS8NeonLevel, TileFastFromDotprod) {
  EXPECT_EQ(tile_s8_fast(), GetParam() >= 1);
  EXPECT_EQ(kernels_s8_level(), GetParam());
}

// softmax_s8_row_w / softmax_s8_tile_w against softmax_s8_row_w_ref, in place
// and not, on prepared tables and on arbitrary non-negative ones.
TEST_P(KernelsS8NeonLevel, SoftmaxRowWeights) {
  std::mt19937 rng(15);
  std::vector<attn::SoftmaxS8Params> tables;
  for (float scale : {0.002f, 0.05f, 0.2f, 1.0f, 30.0f}) {
    attn::SoftmaxS8Params p;
    ASSERT_EQ(attn::softmax_s8_prepare(scale, 1.0f, &p), attn::Status::kOk);
    tables.push_back(p);
  }
  attn::SoftmaxS8Params arb = tables[2];
  for (auto& e : arb.exp_table) e = static_cast<int32_t>(rng() >> 1);
  arb.exp_table[0] = INT32_MAX;
  tables.push_back(arb);
  const auto base = random_s8(4200, 16);
  std::vector<int8_t> in(4200);
  for (std::size_t t = 0; t < tables.size(); ++t) {
    const auto& p = tables[t];
    alignas(64) unsigned char lut[kSoftmaxS8LutBytes];
    softmax_s8_tile_prepare(p.exp_table, p.diff_min, 4095, lut);
    for (int32_t n : {1, 2, 15, 16, 17, 63, 64, 65, 100, 255, 256, 300, 1024, 4095}) {
      for (int32_t spread : {1, 4, 40, 100, 256}) {
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
        ASSERT_EQ(sum, sum_ref) << "n=" << n << " table=" << t << " spread=" << spread;
        ASSERT_EQ(w, w_ref) << "n=" << n << " table=" << t << " spread=" << spread;
        std::vector<int8_t> io(in);
        auto* iw = reinterpret_cast<uint8_t*>(io.data());
        ASSERT_EQ(
            softmax_s8_row_w(lut, p.exp_table, p.diff_min, io.data() + off, iw + off, n, n_pad),
            sum_ref);
        ASSERT_TRUE(std::equal(iw + off, iw + off + n_pad, w_ref.begin() + off))
            << "in place n=" << n;
      }
    }
    // softmax_s8_tile_w: rows of mixed lengths (0 included) in place.
    const std::size_t stride = 301;
    const int32_t nq = 17, n_pad = 300;
    std::vector<int32_t> ns(nq), sum(nq), want_sum(nq);
    std::vector<int8_t> rows(stride * nq);
    std::vector<uint8_t> want(rows.size());
    const int32_t lens[] = {0, 1, 63, 64, 65, 200, 256, 299};
    for (std::size_t r = 0; r < static_cast<std::size_t>(nq); ++r) {
      ns[r] = lens[(r * 3 + t) % 8];
      for (std::size_t c = 0; c < stride; ++c)
        rows[r * stride + c] = base[(r * 7 + c) % base.size()];
      for (std::size_t c = 0; c < stride; ++c)
        want[r * stride + c] = static_cast<uint8_t>(rows[r * stride + c]);
      want_sum[r] = softmax_s8_row_w_ref(p.exp_table, p.diff_min, rows.data() + r * stride,
                                         want.data() + r * stride, ns[r], n_pad);
    }
    softmax_s8_tile_w(lut, p.exp_table, p.diff_min, rows.data(), stride, nq, ns.data(), n_pad,
                      sum.data());
    ASSERT_EQ(sum, want_sum) << "tile table=" << t;
    ASSERT_TRUE(std::equal(want.begin(), want.end(), reinterpret_cast<uint8_t*>(rows.data())))
        << "tile table=" << t;
  }
}

// One combination of the tile kernel test: nq query rows, nk keys, depth d,
// rows misaligned by off, the zero point and a requantization, and per-row
// offsets small and near both ends of int32.
struct TileCase {
  int32_t nq, nk, d;
  std::size_t off;
  int32_t zp, mult, shift, ozp;
  std::vector<int32_t> offsets;
  std::string at() const {
    return "nq=" + std::to_string(nq) + " nk=" + std::to_string(nk) + " d=" + std::to_string(d) +
           " shift=" + std::to_string(shift);
  }
};

// kpack_s8 + qtile_s8_pack + qk_tile_s8 and qk_tile_s8_rq (fused from level
// 1 on) against direct sums and q::requantize of them.
void check_qk(const TileCase& t, int level, uint32_t seed) {
  const auto uq = static_cast<std::size_t>(t.nq), uk = static_cast<std::size_t>(t.nk),
             ud = static_cast<std::size_t>(t.d);
  const std::size_t qs = ud + 3, ks = ud + 1, os = round_up_s8(uk, 16) + 5;
  const auto q = random_s8(t.off + uq * qs, seed);
  const auto k = random_s8(t.off + uk * ks, seed + 1000);
  const int8_t* qp = q.data() + t.off;
  const int8_t* kp = k.data() + t.off;
  std::vector<int8_t> kpacked(t.off + kpack_s8_bytes(t.nk, t.d) + 64);
  std::vector<int32_t> ksum(round_up_s8(uk, 16));
  kpack_s8(kp, ks, t.nk, t.d, kpacked.data() + t.off, ksum.data());
  std::vector<uint8_t> u(t.off + uq * round_up_s8(ud, 4) + 16, 7);
  std::vector<int32_t> qsum(uq);
  qtile_s8_pack(qp, qs, t.nq, t.zp, t.d, u.data() + t.off, qsum.data());
  ASSERT_EQ(u[t.off + uq * round_up_s8(ud, 4)], 7) << "qtile pack wrote past its rows";
  std::vector<int32_t> out(1 + uq * os, 0);
  qk_tile_s8(u.data() + t.off, t.nq, t.zp, kpacked.data() + t.off, ksum.data(), t.nk, t.d,
             out.data() + 1, os);
  std::vector<int8_t> s8(t.off + uq * os, 9);
  const bool fused = qk_tile_s8_rq(u.data() + t.off, t.nq, t.zp, kpacked.data() + t.off,
                                   ksum.data(), t.nk, t.d, t.offsets.data(), t.mult, t.shift, t.ozp,
                                   s8.data() + t.off, os);
  ASSERT_EQ(fused, level >= 1);
  for (std::size_t i = 0; i < uq; ++i) {
    int32_t sq = 0;
    for (std::size_t c = 0; c < ud; ++c) sq += qp[i * qs + c] - t.zp;
    ASSERT_EQ(qsum[i], sq);
    for (std::size_t j = 0; j < uk; ++j) {
      int64_t acc = 0;
      for (std::size_t c = 0; c < ud; ++c) acc += (qp[i * qs + c] - t.zp) * kp[j * ks + c];
      ASSERT_EQ(out[1 + i * os + j], acc) << "qk " << t.at() << " i=" << i << " j=" << j;
      if (fused) {
        ASSERT_EQ(
            s8[t.off + i * os + j],
            attn::q::requantize(static_cast<int32_t>(acc) - t.offsets[i], t.mult, t.shift, t.ozp))
            << "qk rq " << t.at();
      }
    }
    if (fused) {
      ASSERT_EQ(s8[t.off + i * os + round_up_s8(uk, 16)], 9);
    }
  }
}

// vpack_s8 + pv_tile_s8 and pv_tile_s8_rq (fused from level 1 on, exactly d
// bytes per row) against direct sums: weights 0..255 (255 often), rows of
// round4(nk) bytes, 0 past nk.
void check_pv(const TileCase& t, int level, uint32_t seed) {
  const auto uq = static_cast<std::size_t>(t.nq), uk = static_cast<std::size_t>(t.nk),
             ud = static_cast<std::size_t>(t.d);
  const std::size_t vs = ud + 2, wst = round_up_s8(uk, 4) + 3;
  const std::size_t as = round_up_s8(ud, 16) + 3, ost = ud + 5;
  const auto v = random_s8(t.off + uk * vs, seed + 2000);
  const int8_t* vp = v.data() + t.off;
  const auto wr = random_s8(uq * uk, seed + 3000);
  std::vector<uint8_t> w(t.off + uq * wst, 0);
  for (std::size_t i = 0; i < uq; ++i) {
    for (std::size_t j = 0; j < uk; ++j) {
      w[t.off + i * wst + j] = static_cast<uint8_t>((i + j) % 7 == 0 ? 255 : wr[i * uk + j] + 128);
    }
  }
  std::vector<int8_t> vpacked(t.off + vpack_s8_bytes(t.nk, t.d) + 64, 1);
  vpack_s8(vp, vs, t.nk, t.d, vpacked.data() + t.off);
  std::vector<int32_t> acc(1 + uq * as, 0);
  std::vector<int32_t> work(pv_tile_s8_work_bytes(t.nk) / 4);
  pv_tile_s8(w.data() + t.off, wst, t.nq, vpacked.data() + t.off, t.nk, t.d, acc.data() + 1, as,
             work.data());
  std::vector<int8_t> o8(t.off + uq * ost, 9);
  const bool fused = pv_tile_s8_rq(w.data() + t.off, wst, t.nq, vpacked.data() + t.off, t.nk, t.d,
                                   t.offsets.data(), t.mult, t.shift, t.ozp, o8.data() + t.off, ost,
                                   work.data());
  ASSERT_EQ(fused, level >= 1);
  for (std::size_t i = 0; i < uq; ++i) {
    for (std::size_t c = 0; c < ud; ++c) {
      int64_t s = 0;
      for (std::size_t j = 0; j < uk; ++j) s += w[t.off + i * wst + j] * vp[j * vs + c];
      ASSERT_EQ(acc[1 + i * as + c], s) << "pv " << t.at() << " i=" << i << " c=" << c;
      if (fused) {
        ASSERT_EQ(
            o8[t.off + i * ost + c],
            attn::q::requantize(static_cast<int32_t>(s) - t.offsets[i], t.mult, t.shift, t.ozp))
            << "pv rq " << t.at();
      }
    }
    for (std::size_t c = ud; c < ost; ++c) ASSERT_EQ(o8[t.off + i * ost + c], 9) << "pv rq past d";
  }
}

// The query-tile kernels at the level over tile rows 1..33, keys 1..200,
// depths 1..128 (every i8mm / dotprod tail), misaligned rows.
TEST_P(KernelsS8NeonLevel, QueryTileKernels) {
  const int32_t rows[] = {1, 2, 3, 4, 5, 8, 16, 17, 33};
  const int32_t keys[] = {1, 3, 8, 15, 16, 17, 33, 64, 100, 200};
  const int32_t depths[] = {1, 3, 4, 5, 16, 17, 32, 63, 64, 65, 128};
  const int32_t zps[] = {-128, -5, 0, 127};
  const int32_t shifts[] = {0, -1, -7, -13, -23, -24, 1};
  const int32_t mults[] = {1 << 30, 1518500250, INT32_MAX};
  int combo = 0;
  for (int32_t nq : rows) {
    for (int32_t nk : keys) {
      for (int32_t d : depths) {
        ++combo;
        TileCase t{nq,
                   nk,
                   d,
                   static_cast<std::size_t>(combo % 4),
                   zps[combo % 4],
                   mults[combo % 3],
                   shifts[combo % 7],
                   zps[(combo / 3) % 4],
                   {}};
        for (int32_t i = 0; i < nq; ++i) {
          t.offsets.push_back(i % 4 == 1   ? INT32_MAX - (1 << 23)
                              : i % 4 == 2 ? INT32_MIN + (1 << 23)
                                           : i * 37 - 300);
        }
        check_qk(t, GetParam(), static_cast<uint32_t>(combo));
        if (HasFatalFailure()) return;
        check_pv(t, GetParam(), static_cast<uint32_t>(combo));
        if (HasFatalFailure()) return;
      }
    }
  }
}

// Whole SDPA at the level against level 0 (the one-row core), with and
// without causal and key-length masks, weights included.
TEST_P(KernelsS8NeonLevel, SdpaSameBitsAsLevel0) {
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
    const auto q = random_s8(static_cast<std::size_t>(2 * s.sq * s.dk), 10);
    const auto k = random_s8(static_cast<std::size_t>(2 * s.skv * s.dk), 11);
    const auto v = random_s8(static_cast<std::size_t>(2 * s.skv * s.dv), 12);
    const auto no = static_cast<std::size_t>(2 * s.sq * s.dv);
    const auto nw = static_cast<std::size_t>(2 * s.sq * s.skv);
    std::vector<unsigned char> scratch(attn::sdpa_s8_scratch_bytes(shape));
    const int32_t lengths[2] = {0, s.skv / 2 + 1};
    const int32_t all[2] = {s.skv, s.skv};
    for (int masks = 0; masks < 4; ++masks) {
      std::vector<int8_t> want, want_w;
      for (int l : {0, GetParam()}) {
        ASSERT_TRUE(kernels_s8_select(l));
        std::vector<int8_t> out(no, 0), weights(nw, 1);
        attn::SdpaS8Args args;
        args.q = q.data();
        args.k = k.data();
        args.v = v.data();
        args.out = out.data();
        args.probs = weights.data();
        args.mask.causal = (masks & 1) != 0;
        args.mask.key_lengths = (masks & 2) != 0 ? lengths : all;
        ASSERT_EQ(attn::sdpa_s8(params, args, {scratch.data(), scratch.size()}), attn::Status::kOk);
        if (want.empty()) {
          want = out;
          want_w = weights;
        } else {
          ASSERT_EQ(out, want) << "sq=" << s.sq << " skv=" << s.skv << " dk=" << s.dk
                               << " masks=" << masks;
          ASSERT_EQ(weights, want_w) << "sq=" << s.sq << " skv=" << s.skv << " masks=" << masks;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Levels, KernelsS8NeonLevel, ::testing::Range(0, kLevels),
                         [](const ::testing::TestParamInfo<int>& i) {
                           return std::string(kernels_s8_level_name(i.param));
                         });

}  // namespace

#else
TEST(KernelsS8Neon, NotAnAArch64Build) { GTEST_SKIP() << "no AArch64 int8 kernels in this build"; }
#endif
