// SDPA at Sq = Skv = 4096, Dk = Dv = 64: runs in exactly
// sdpa_f32_scratch_bytes (a heap block of that exact size, so AddressSanitizer
// builds catch any byte past it), which must be the formula of sdpa.h and far
// below the 64 MiB a materialised 4096 x 4096 float score matrix would take.
// Rows across the query tiles and key blocks are checked against the double
// reference of tests/cases/ref_double.h, unmasked and causal.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "attn/sdpa.h"
#include "ref_double.h"

namespace {

constexpr int kS = 4096;
constexpr int kD = 64;
constexpr attn::SdpaShape kShape{1, kS, kS, kD, kD};

std::vector<float> random_floats(std::size_t n, uint32_t seed, float amp) {
  std::vector<float> v(n);
  uint32_t s = seed;
  for (float& x : v) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    x = amp * (static_cast<float>(s >> 8) / 8388608.0f - 1.0f);
  }
  return v;
}

TEST(LargeShape, ScratchFormulaIsSmallAndIndependentOfSequence) {
  constexpr std::size_t bytes = attn::sdpa_f32_scratch_bytes(kShape);
  // sdpa.h: 64 + align64(4*Tq*dk) + align64(4*Tq*Bk) + align64(4*Tq*dv) + 3*align64(4*Tq)
  constexpr auto tq = static_cast<std::size_t>(attn::kSdpaQueryTile);
  constexpr auto bk = static_cast<std::size_t>(attn::kSdpaKeyBlock);
  static_assert(bytes == 64 + attn::f32_bytes(tq * kD) + attn::f32_bytes(tq * bk) +
                             attn::f32_bytes(tq * kD) + 3 * attn::f32_bytes(tq),
                "scratch formula of sdpa.h");
  static_assert(bytes < 64 * 1024, "scratch must stay far below the score matrix");
  static_assert(attn::sdpa_f32_scratch_bytes({1, 1, 1, kD, kD}) == bytes,
                "scratch must not depend on the sequence lengths");
  const std::size_t score_matrix = sizeof(float) * static_cast<std::size_t>(kS) * kS;
  EXPECT_EQ(score_matrix, 64u << 20);
  EXPECT_LT(bytes * 1000, score_matrix);
}

void run_and_check(bool causal, std::size_t scratch_offset) {
  const std::size_t n = static_cast<std::size_t>(kS) * kD;
  const std::vector<float> q = random_floats(n, 1, 2.0f);
  const std::vector<float> k = random_floats(n, 2, 1.0f);
  const std::vector<float> v = random_floats(n, 3, 1.0f);
  std::vector<float> out(n, -7.0f);
  const std::size_t bytes = attn::sdpa_f32_scratch_bytes(kShape);
  // The scratch ends exactly at the end of its heap block.
  std::vector<unsigned char> block(bytes + scratch_offset);
  attn::SdpaF32Args a;
  a.q = q.data();
  a.k = k.data();
  a.v = v.data();
  a.out = out.data();
  a.mask.causal = causal;
  ASSERT_EQ(attn::sdpa_f32(kShape, a, {block.data() + scratch_offset, bytes}), attn::Status::kOk);
  ASSERT_EQ(attn::sdpa_f32(kShape, a, {block.data() + scratch_offset, bytes - 1}),
            attn::Status::kScratchTooSmall);

  // Rows in the first and last query tiles, around tile and key-block edges.
  const int rows[] = {0, 1, 7, 8, 63, 64, 65, 1000, 2047, 4094, 4095};
  std::vector<double> p(kS), pt(kS), o(kD), ot(kD);
  double worst = 0.0;
  for (int i : rows) {
    // Causal row i sees keys 0..i: the reference over that prefix, unmasked.
    const int keys = causal ? i + 1 : kS;
    attn_ref::attention<float>(1, keys, kD, kD, 1.0 / 8.0, attn_ref::kEps,
                               q.data() + static_cast<std::size_t>(i) * kD, kD, nullptr, k.data(),
                               kD, nullptr, v.data(), kD, nullptr, attn_ref::MaskView{}, p.data(),
                               pt.data(), o.data(), ot.data(), kD);
    for (int c = 0; c < kD; ++c) {
      const double got = out[static_cast<std::size_t>(i) * kD + static_cast<std::size_t>(c)];
      const double err = std::fabs(got - o[static_cast<std::size_t>(c)]);
      EXPECT_LE(err, ot[static_cast<std::size_t>(c)]) << "row " << i << " col " << c;
      worst = std::fmax(worst, err / ot[static_cast<std::size_t>(c)]);
    }
  }
  ::testing::Test::RecordProperty("worst_error_over_bound", std::to_string(worst));
}

TEST(LargeShape, Sdpa4096x4096Unmasked) { run_and_check(false, 0); }

TEST(LargeShape, Sdpa4096x4096CausalUnalignedScratch) { run_and_check(true, 13); }

}  // namespace
