// luong_dot_s8 / luong_general_s8 against the NumPy reference's unfused op
// sequence, bit for bit (tests/data/int8/luong_cases.txt).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "attn/luong_s8.h"
#include "case.h"
#include "case_file.h"

namespace {

using int8_case::draw;
using int8_case::hex_bytes;
using int8_case::hex_float;

TEST(Int8Reference, LuongMatchesBitForBit) {
  std::ifstream in(std::string(ATTN_INT8_DATA_DIR) + "/luong_cases.txt");
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  }
  ASSERT_EQ(lines.size(), 60u * 5u);
  int dot_cases = 0, general_cases = 0;
  for (std::size_t l = 0; l + 4 < lines.size(); l += 5) {
    std::istringstream h(lines[l]);
    std::string tag, beta_hex;
    uint32_t seed = 0;
    int32_t general, B, seq, qd, kd, bias, has_lengths;
    h >> tag >> seed >> general >> B >> seq >> qd >> kd >> bias >> has_lengths >> beta_hex;
    ASSERT_EQ(tag, "luong");
    attn::LuongS8Quant quant;
    attn::QuantParams* qp[5] = {&quant.query, &quant.keys, &quant.keys_proj, &quant.scores,
                                &quant.context};
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
    std::string hex;
    std::istringstream os(lines[l + 3]);
    os >> tag >> hex;
    const auto expected_out = hex_bytes(hex);
    std::istringstream ps(lines[l + 4]);
    ps >> tag >> hex;
    const auto expected_probs = hex_bytes(hex);

    const auto uB = static_cast<std::size_t>(B), useq = static_cast<std::size_t>(seq),
               uqd = static_cast<std::size_t>(qd), ukd = static_cast<std::size_t>(kd);
    attn_test::Rng r(seed);
    const auto query = draw(r, uB * uqd, -128, 127);
    const auto keys = draw(r, uB * useq * ukd, -128, 127);
    std::vector<int8_t> w;
    std::vector<int32_t> b;
    if (general) {
      w = draw(r, uqd * ukd, -127, 127);
      if (bias) {
        for (std::size_t i = 0; i < uqd; ++i) b.push_back(r.range(0, 60000) - 30000);
      }
    }
    std::vector<int32_t> lengths;
    if (has_lengths) {
      for (int32_t i = 0; i < B; ++i) lengths.push_back(r.range(0, seq));
    }
    static attn::LuongS8Params params;
    std::vector<attn::QuantizedMultiplier> storage(uqd);
    const attn::LuongGeneralShape gshape{B, seq, qd, kd};
    if (general) {
      ASSERT_EQ(attn::luong_general_s8_prepare(gshape, quant,
                                               {w.data(), scales.data(), bias ? b.data() : nullptr},
                                               storage.data(), &params),
                attn::Status::kOk)
          << seed;
    } else {
      ASSERT_EQ(attn::luong_dot_s8_prepare({B, seq, kd}, quant, &params), attn::Status::kOk)
          << seed;
    }
    std::vector<unsigned char> scratch(attn::luong_s8_scratch_bytes(gshape, general != 0) + 1);
    std::vector<int8_t> out(uB * ukd, 99), probs(uB * useq, 99);
    attn::LuongS8Args a;
    a.query = query.data();
    a.keys = keys.data();
    a.context = out.data();
    a.probs = probs.data();
    a.key_lengths = has_lengths ? lengths.data() : nullptr;
    ASSERT_EQ(attn::luong_s8(params, a, {scratch.data() + 1, scratch.size() - 1}),
              attn::Status::kOk);
    EXPECT_EQ(out, expected_out) << "luong seed " << seed;
    EXPECT_EQ(probs, expected_probs) << "luong seed " << seed;
    (general ? general_cases : dot_cases) += 1;
  }
  EXPECT_EQ(dot_cases, 30);
  EXPECT_EQ(general_cases, 30);
}

}  // namespace
