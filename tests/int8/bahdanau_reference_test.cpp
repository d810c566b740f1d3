// bahdanau_s8 against the NumPy reference's unfused TFLite op sequence
// (FULLY_CONNECTED, ADD, TANH, FULLY_CONNECTED, SOFTMAX, BATCH_MATMUL), bit
// for bit (tests/data/int8/bahdanau_cases.txt); TANH and ADD alone too.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "attn/bahdanau_s8.h"
#include "case.h"
#include "case_file.h"
#include "kernels/s8/fixedpoint.h"

namespace {

using int8_case::draw;
using int8_case::hex_bytes;
using int8_case::hex_float;

TEST(Int8Reference, BahdanauMatchesBitForBit) {
  std::ifstream in(std::string(ATTN_INT8_DATA_DIR) + "/bahdanau_cases.txt");
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  }
  ASSERT_EQ(lines.size(), 60u * 5u);
  int cases = 0;
  for (std::size_t l = 0; l + 4 < lines.size(); l += 5) {
    std::istringstream h(lines[l]);
    std::string tag, beta_hex;
    uint32_t seed = 0;
    int32_t B, seq, qd, kd, units, bias, has_lengths;
    h >> tag >> seed >> B >> seq >> qd >> kd >> units >> bias >> has_lengths >> beta_hex;
    ASSERT_EQ(tag, "bahdanau");
    attn::BahdanauS8Quant quant;
    attn::QuantParams* qp[7] = {&quant.query, &quant.keys,   &quant.query_proj, &quant.keys_proj,
                                &quant.sum,   &quant.scores, &quant.context};
    std::istringstream qs(lines[l + 1]);
    qs >> tag;
    for (auto* p : qp) {
      std::string sh;
      int32_t zp = 0;
      qs >> sh >> zp;
      *p = {hex_float(sh), zp};
    }
    quant.beta = hex_float(beta_hex);
    std::istringstream ws(lines[l + 2]);
    ws >> tag;
    std::vector<float> scales;
    std::string sh;
    while (ws >> sh) scales.push_back(hex_float(sh));
    ASSERT_EQ(scales.size(), static_cast<std::size_t>(2 * units + 1));
    std::string hex;
    std::istringstream os(lines[l + 3]);
    os >> tag >> hex;
    const auto expected_out = hex_bytes(hex);
    std::istringstream ps(lines[l + 4]);
    ps >> tag >> hex;
    const auto expected_probs = hex_bytes(hex);

    const auto uB = static_cast<std::size_t>(B), useq = static_cast<std::size_t>(seq),
               uqd = static_cast<std::size_t>(qd), ukd = static_cast<std::size_t>(kd),
               uu = static_cast<std::size_t>(units);
    attn_test::Rng r(seed);
    const auto query = draw(r, uB * uqd, -128, 127);
    const auto keys = draw(r, uB * useq * ukd, -128, 127);
    const auto w1 = draw(r, uu * uqd, -127, 127);
    const auto w2 = draw(r, uu * ukd, -127, 127);
    const auto v = draw(r, uu, -127, 127);
    std::vector<int32_t> b1, b2, bv;
    if (bias) {
      for (std::size_t i = 0; i < uu; ++i) b1.push_back(r.range(0, 60000) - 30000);
      for (std::size_t i = 0; i < uu; ++i) b2.push_back(r.range(0, 60000) - 30000);
      bv.push_back(r.range(0, 60000) - 30000);
    }
    std::vector<int32_t> lengths;
    if (has_lengths) {
      for (int32_t i = 0; i < B; ++i) lengths.push_back(r.range(0, seq));
    }
    const attn::BahdanauShape shape{B, seq, qd, kd, units};
    attn::BahdanauS8Weights w;
    w.w1 = {w1.data(), scales.data(), bias ? b1.data() : nullptr};
    w.w2 = {w2.data(), scales.data() + uu, bias ? b2.data() : nullptr};
    w.v = {v.data(), scales.data() + 2 * uu, bias ? bv.data() : nullptr};
    std::vector<attn::QuantizedMultiplier> storage(attn::bahdanau_s8_channel_count(shape));
    static attn::BahdanauS8Params params;
    ASSERT_EQ(attn::bahdanau_s8_prepare(shape, quant, w, storage.data(), &params),
              attn::Status::kOk)
        << seed;
    std::vector<unsigned char> scratch(attn::bahdanau_s8_scratch_bytes(shape) + 7);
    std::vector<int8_t> out(uB * ukd, 99), probs(uB * useq, 99);
    attn::BahdanauS8Args a;
    a.query = query.data();
    a.keys = keys.data();
    a.context = out.data();
    a.probs = probs.data();
    a.key_lengths = has_lengths ? lengths.data() : nullptr;
    ASSERT_EQ(attn::bahdanau_s8(params, a, {scratch.data() + 7, scratch.size() - 7}),
              attn::Status::kOk);
    EXPECT_EQ(out, expected_out) << "bahdanau seed " << seed;
    EXPECT_EQ(probs, expected_probs) << "bahdanau seed " << seed;
    ++cases;
  }
  EXPECT_EQ(cases, 60);
}

TEST(Int8Primitives, TanhQ4AgainstFloat) {
  double worst = 0;
  for (int64_t a = -15 * (int64_t{1} << 27); a < 15 * (int64_t{1} << 27); a += 65537) {
    const double t = attn::q::tanh_q4_27(static_cast<int32_t>(a)) / 2147483648.0;
    worst = std::fmax(worst, std::fabs(t - std::tanh(static_cast<double>(a) / 134217728.0)));
  }
  EXPECT_LT(worst, 1e-6);
}

TEST(Int8Primitives, TanhTableIsOddAndMonotone) {
  int8_t t[256];
  ASSERT_EQ(attn::tanh_s8_table({0.05f, 0}, t), attn::Status::kOk);
  EXPECT_EQ(t[128], 0);
  for (int i = 1; i < 256; ++i) EXPECT_LE(t[i - 1], t[i]);
  // Odd, except that saturation gives -128 below and 127 above.
  for (int x = 1; x < 128; ++x) {
    EXPECT_EQ(t[128 + x], t[128 - x] == -128 ? 127 : -t[128 - x]) << x;
  }
  EXPECT_EQ(attn::tanh_s8_table({1e-9f, 0}, t), attn::Status::kBadArgument);
}

}  // namespace
