// Bit-exact comparison of softmax_s8 and sdpa_s8 with the independent NumPy
// reference (tests/reference/int8_reference.py, unfused TFLite op sequence). The data
// files carry each case's seed, shape, scales (float32 bit patterns) and the
// expected int8 outputs; inputs are regenerated here from the seed with the
// same xorshift32 generator.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "attn/sdpa_s8.h"
#include "attn/softmax_s8.h"
#include "case.h"

namespace {

float float_from_hex(const std::string& s) {
  const auto u = static_cast<uint32_t>(std::stoul(s, nullptr, 16));
  float f = 0.0f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

std::vector<int8_t> bytes_from_hex(const std::string& s) {
  std::vector<int8_t> out(s.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<int8_t>(static_cast<uint8_t>(std::stoul(s.substr(2 * i, 2), nullptr, 16)));
  }
  return out;
}

std::vector<std::string> read_lines(const char* name) {
  std::ifstream in(std::string(ATTN_INT8_DATA_DIR) + "/" + name);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  }
  return lines;
}

std::vector<int8_t> int8s(attn_test::Rng& r, std::size_t n) {
  std::vector<int8_t> v(n);
  for (auto& x : v) x = static_cast<int8_t>(r.range(-128, 127));
  return v;
}

int count_diff(const std::vector<int8_t>& a, const std::vector<int8_t>& b) {
  if (a.size() != b.size()) return -1;
  int n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) n += a[i] != b[i] ? 1 : 0;
  return n;
}

TEST(Int8Reference, SoftmaxMatchesBitForBit) {
  const auto lines = read_lines("softmax_cases.txt");
  ASSERT_EQ(lines.size(), 200u);
  int cases = 0;
  for (std::size_t l = 0; l + 1 < lines.size(); l += 2) {
    std::istringstream h(lines[l]);
    std::string tag, scale_hex, beta_hex;
    uint32_t seed = 0;
    int32_t rows = 0, cols = 0, lo = 0;
    h >> tag >> seed >> rows >> cols >> lo >> scale_hex >> beta_hex;
    ASSERT_EQ(tag, "softmax");
    std::istringstream o(lines[l + 1]);
    std::string otag, ohex;
    o >> otag >> ohex;
    const auto expected = bytes_from_hex(ohex);
    attn_test::Rng r(seed);
    std::vector<int8_t> x(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
    for (auto& e : x)
      e = static_cast<int8_t>(lo +
                              static_cast<int32_t>(r.next() % static_cast<uint32_t>(128 - lo)));
    static attn::SoftmaxS8Params p;
    ASSERT_EQ(attn::softmax_s8_prepare(float_from_hex(scale_hex), float_from_hex(beta_hex), &p),
              attn::Status::kOk)
        << "seed " << seed;
    std::vector<int8_t> y(x.size());
    ASSERT_EQ(attn::softmax_s8({rows, cols}, p, {x.data(), y.data()}), attn::Status::kOk);
    EXPECT_EQ(count_diff(y, expected), 0) << "softmax seed " << seed;
    // In place gives the same bits.
    ASSERT_EQ(attn::softmax_s8({rows, cols}, p, {x.data(), x.data()}), attn::Status::kOk);
    EXPECT_EQ(count_diff(x, expected), 0) << "in-place softmax seed " << seed;
    ++cases;
  }
  EXPECT_EQ(cases, 100);
}

struct SdpaCase {
  uint32_t seed = 0;
  attn::SdpaShape shape;
  attn::SdpaS8Quant quant;
  bool causal = false, has_lengths = false, pattern = false;
  std::vector<int8_t> out, probs;
};

SdpaCase parse_sdpa(const std::string& header, const std::string& out, const std::string& probs) {
  SdpaCase c;
  std::istringstream h(header);
  std::string tag, sh[6], beta_hex;
  int32_t zp[5];
  int causal = 0, lengths = 0, pattern = 0;
  h >> tag >> c.seed >> c.shape.batch >> c.shape.seq_q >> c.shape.seq_kv >> c.shape.dim_k >>
      c.shape.dim_v;
  for (int i = 0; i < 5; ++i) h >> sh[i] >> zp[i];
  h >> beta_hex >> causal >> lengths >> pattern;
  attn::QuantParams* qp[5] = {&c.quant.q, &c.quant.k, &c.quant.v, &c.quant.scores, &c.quant.out};
  for (int i = 0; i < 5; ++i) *qp[i] = {float_from_hex(sh[i]), zp[i]};
  c.quant.beta = float_from_hex(beta_hex);
  c.causal = causal != 0;
  c.has_lengths = lengths != 0;
  c.pattern = pattern != 0;
  std::istringstream o(out), p(probs);
  std::string t, hex;
  o >> t >> hex;
  c.out = bytes_from_hex(hex);
  p >> t >> hex;
  c.probs = bytes_from_hex(hex);
  return c;
}

TEST(Int8Reference, SdpaMatchesBitForBitWithEveryMaskForm) {
  const auto lines = read_lines("sdpa_cases.txt");
  ASSERT_EQ(lines.size(), 360u);
  int cases = 0, runs = 0;
  for (std::size_t l = 0; l + 2 < lines.size(); l += 3) {
    const SdpaCase c = parse_sdpa(lines[l], lines[l + 1], lines[l + 2]);
    const auto& s = c.shape;
    const auto B = static_cast<std::size_t>(s.batch), Lq = static_cast<std::size_t>(s.seq_q),
               Lkv = static_cast<std::size_t>(s.seq_kv), dk = static_cast<std::size_t>(s.dim_k),
               dv = static_cast<std::size_t>(s.dim_v);
    attn_test::Rng r(c.seed);
    const auto q = int8s(r, B * Lq * dk);
    const auto k = int8s(r, B * Lkv * dk);
    const auto v = int8s(r, B * Lkv * dv);
    std::vector<int32_t> lengths;
    if (c.has_lengths) {
      for (std::size_t b = 0; b < B; ++b) lengths.push_back(r.range(0, s.seq_kv));
    }
    std::vector<uint8_t> pattern;
    if (c.pattern) {
      for (std::size_t e = 0; e < Lq * Lkv; ++e) pattern.push_back(r.next() % 4 == 0 ? 1 : 0);
    }
    static attn::SdpaS8Params params;
    ASSERT_EQ(attn::sdpa_s8_prepare(s, c.quant, &params), attn::Status::kOk) << "seed " << c.seed;
    // The boolean pattern in each mask form the int8 path accepts.
    std::vector<float> keras(pattern.size()), add_inf(pattern.size()), add_1e9(pattern.size());
    for (std::size_t e = 0; e < pattern.size(); ++e) {
      keras[e] = pattern[e] ? 1.0f : 0.0f;
      add_inf[e] = pattern[e] ? -INFINITY : 0.0f;
      add_1e9[e] = pattern[e] ? -1e9f : -0.0f;
    }
    const int forms = c.pattern ? 4 : 1;
    std::vector<unsigned char> scratch(attn::sdpa_s8_scratch_bytes(s) + 3);
    for (int form = 0; form < forms; ++form) {
      attn::SdpaS8Args a;
      a.q = q.data();
      a.k = k.data();
      a.v = v.data();
      std::vector<int8_t> out(B * Lq * dv, 99), probs(B * Lq * Lkv, 99);
      a.out = out.data();
      a.probs = probs.data();
      a.mask.causal = c.causal;
      a.mask.key_lengths = c.has_lengths ? lengths.data() : nullptr;
      if (form == 0 && c.pattern) a.mask.boolean = pattern.data();
      if (form == 1) a.mask.keras = keras.data();
      if (form == 2) a.mask.additive = add_inf.data();
      if (form == 3) a.mask.additive = add_1e9.data();
      // A misaligned scratch pointer is accepted (the op aligns internally).
      ASSERT_EQ(attn::sdpa_s8(params, a, {scratch.data() + 3, scratch.size() - 3}),
                attn::Status::kOk);
      EXPECT_EQ(count_diff(out, c.out), 0) << "sdpa seed " << c.seed << " mask form " << form;
      EXPECT_EQ(count_diff(probs, c.probs), 0) << "sdpa seed " << c.seed << " mask form " << form;
      ++runs;
    }
    ++cases;
  }
  EXPECT_EQ(cases, 120);
  EXPECT_GT(runs, 120);
}

}  // namespace
