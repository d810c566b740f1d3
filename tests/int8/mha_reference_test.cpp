// mha_s8 against the NumPy reference's unfused op sequence (FULLY_CONNECTED
// per channel -> per-head BATCH_MATMUL/SOFTMAX/BATCH_MATMUL -> FULLY_CONNECTED),
// bit for bit, with tests/data/int8/mha_cases.txt.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "attn/mha_s8.h"
#include "case.h"
#include "case_file.h"

namespace {

using int8_case::draw;
using int8_case::hex_bytes;
using int8_case::hex_float;

TEST(Int8Reference, MhaMatchesBitForBit) {
  std::ifstream in(std::string(ATTN_INT8_DATA_DIR) + "/mha_cases.txt");
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
    int32_t B, Sq, Skv, E, H, kdim, vdim, self_attn, bias, causal, has_lengths, pattern;
    h >> tag >> seed >> B >> Sq >> Skv >> E >> H >> kdim >> vdim >> self_attn >> bias >> causal >>
        has_lengths >> pattern >> beta_hex;
    ASSERT_EQ(tag, "mha");
    std::istringstream qs(lines[l + 1]);
    qs >> tag;
    attn::MhaS8Quant quant;
    attn::QuantParams* qp[9] = {&quant.query, &quant.key,    &quant.value, &quant.q,  &quant.k,
                                &quant.v,     &quant.scores, &quant.attn,  &quant.out};
    for (auto* p : qp) {
      std::string sh;
      int32_t zp = 0;
      qs >> sh >> zp;
      *p = {hex_float(sh), zp};
    }
    quant.beta = hex_float(beta_hex);
    std::istringstream ws(lines[l + 2]);
    ws >> tag;
    std::vector<float> wscales(4 * static_cast<std::size_t>(E));
    for (auto& x : wscales) {
      std::string sh;
      ws >> sh;
      x = hex_float(sh);
    }
    std::string hex;
    std::istringstream os(lines[l + 3]);
    os >> tag >> hex;
    const auto expected_out = hex_bytes(hex);
    std::istringstream ps(lines[l + 4]);
    ps >> tag >> hex;
    const auto expected_probs = hex_bytes(hex);

    const auto uB = static_cast<std::size_t>(B), uSq = static_cast<std::size_t>(Sq),
               uSkv = static_cast<std::size_t>(Skv), uE = static_cast<std::size_t>(E);
    attn_test::Rng r(seed);
    const auto query = draw(r, uB * uSq * uE, -128, 127);
    std::vector<int8_t> key, value;
    if (!self_attn) {
      key = draw(r, uB * uSkv * static_cast<std::size_t>(kdim), -128, 127);
      value = draw(r, uB * uSkv * static_cast<std::size_t>(vdim), -128, 127);
    }
    const auto wq = draw(r, uE * uE, -127, 127);
    const auto wk = draw(r, uE * static_cast<std::size_t>(kdim), -127, 127);
    const auto wv = draw(r, uE * static_cast<std::size_t>(vdim), -127, 127);
    const auto wo = draw(r, uE * uE, -127, 127);
    std::vector<int32_t> biases;
    if (bias) {
      for (std::size_t i = 0; i < 4 * uE; ++i) biases.push_back(r.range(0, 60000) - 30000);
    }
    std::vector<int32_t> lengths;
    if (has_lengths) {
      for (int32_t b = 0; b < B; ++b) lengths.push_back(r.range(0, Skv));
    }
    std::vector<uint8_t> pat;
    if (pattern) {
      for (std::size_t e = 0; e < uSq * uSkv; ++e) pat.push_back(r.next() % 4 == 0 ? 1 : 0);
    }
    attn::MhaS8Weights w;
    w.q = {wq.data(), wscales.data(), bias ? biases.data() : nullptr};
    w.k = {wk.data(), wscales.data() + uE, bias ? biases.data() + uE : nullptr};
    w.v = {wv.data(), wscales.data() + 2 * uE, bias ? biases.data() + 2 * uE : nullptr};
    w.out = {wo.data(), wscales.data() + 3 * uE, bias ? biases.data() + 3 * uE : nullptr};
    const attn::MhaShape shape{B, Sq, Skv, E, H, kdim, vdim};
    std::vector<attn::QuantizedMultiplier> channels(attn::mha_s8_channel_count(shape));
    static attn::MhaS8Params params;
    ASSERT_EQ(attn::mha_s8_prepare(shape, quant, w, channels.data(), &params), attn::Status::kOk)
        << "seed " << seed;
    std::vector<unsigned char> scratch(attn::mha_s8_scratch_bytes(shape) + 5);
    std::vector<int8_t> out(uB * uSq * uE, 99),
        probs(uB * static_cast<std::size_t>(H) * uSq * uSkv, 99);
    attn::MhaS8Args a;
    a.query = query.data();
    a.key = self_attn ? query.data() : key.data();
    a.value = self_attn ? query.data() : value.data();
    a.out = out.data();
    a.probs = probs.data();
    a.mask.causal = causal != 0;
    a.mask.key_lengths = has_lengths ? lengths.data() : nullptr;
    a.mask.boolean = pattern ? pat.data() : nullptr;
    ASSERT_EQ(attn::mha_s8(params, a, {scratch.data() + 5, scratch.size() - 5}), attn::Status::kOk);
    EXPECT_EQ(out, expected_out) << "mha seed " << seed;
    EXPECT_EQ(probs, expected_probs) << "mha seed " << seed;
    ++cases;
  }
  EXPECT_EQ(cases, 60);
}

}  // namespace
