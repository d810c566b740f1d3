// Regression tests for non-finite inputs (sdpa.h documents the behaviour).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "attn/attn.h"

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

attn::Status run_sdpa(const attn::SdpaShape& shape, const std::vector<float>& q,
                      const std::vector<float>& k, const std::vector<float>& v,
                      std::vector<float>& out, std::vector<float>* weights, bool causal) {
  std::vector<unsigned char> scratch(attn::sdpa_f32_scratch_bytes(shape));
  attn::SdpaF32Args a;
  a.q = q.data();
  a.k = k.data();
  a.v = v.data();
  a.out = out.data();
  a.probs = weights != nullptr ? weights->data() : nullptr;
  a.mask.causal = causal;
  return attn::sdpa_f32(shape, a, {scratch.data(), scratch.size()});
}

// A first key block (keys 0..63) whose scores are all NaN used to be treated
// as "nothing visible yet" and dropped: out was exactly v[64] while the
// weights row said NaN. Both must be NaN.
TEST(NonFiniteRegression, AllNanFirstKeyBlockPoisonsTheRow) {
  const int skv = 65, d = 4;
  std::vector<float> q(d, 0.1f), k(skv * d, kNaN), v(skv * d, 1.0f), out(d), w(skv);
  for (int c = 0; c < d; ++c) k[64 * d + c] = 0.3f;
  v[64 * d] = 7.0f;
  ASSERT_EQ(run_sdpa({1, 1, skv, d, d}, q, k, v, out, &w, false), attn::Status::kOk);
  for (int c = 0; c < d; ++c) EXPECT_TRUE(std::isnan(out[c])) << "out[" << c << "] = " << out[c];
  EXPECT_TRUE(std::isnan(w[64])) << "w[64] = " << w[64];
}

// The same with the NaN keys masked off by nothing but in a later block: the
// NaN block follows a finite one.
TEST(NonFiniteRegression, AllNanLaterKeyBlockPoisonsTheRow) {
  const int skv = 130, d = 4;
  std::vector<float> q(d, 0.1f), k(skv * d, 0.2f), v(skv * d, 1.0f), out(d);
  for (int j = 64; j < 128; ++j) {
    for (int c = 0; c < d; ++c) k[j * d + c] = kNaN;
  }
  ASSERT_EQ(run_sdpa({1, 1, skv, d, d}, q, k, v, out, nullptr, false), attn::Status::kOk);
  for (int c = 0; c < d; ++c) EXPECT_TRUE(std::isnan(out[c])) << "out[" << c << "] = " << out[c];
}

// sdpa.h: NaN in v[j] reaches every row whose tile visits key j's block, even
// rows that mask key j; the rows that see key j are NaN in that column only.
TEST(NonFiniteRegression, NanValueReachesRowsThatSeeItInItsColumnOnly) {
  const int s = 8, d = 4;
  std::vector<float> q(s * d, 0.1f), k(s * d, 0.2f), v(s * d, 1.0f), out(s * d);
  v[5 * d + 0] = kNaN;
  ASSERT_EQ(run_sdpa({1, s, s, d, d}, q, k, v, out, nullptr, true), attn::Status::kOk);
  for (int i = 5; i < s; ++i) {
    EXPECT_TRUE(std::isnan(out[i * d + 0])) << "row " << i << " sees key 5";
  }
  for (int i = 0; i < s; ++i) {
    for (int c = 1; c < d; ++c) EXPECT_FLOAT_EQ(out[i * d + c], 1.0f) << i << "," << c;
  }
}

}  // namespace
