// Accuracy of the int8 path against the float path on realistic data: float
// Q, K, V (and MHA input, weights and biases) are quantized TFLite-style (asymmetric
// activations calibrated on min/max, symmetric per-channel weights), the
// int8 op runs, its output is dequantized and compared with the float op on
// the dequantized inputs (so only the op's own quantization error counts:
// int8 scores, int8 probabilities, int8 output). Error statistics are
// asserted as ranges (too large is a regression, suspiciously small is too).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "accuracy_helpers.h"
#include "attn/mha.h"
#include "attn/mha_s8.h"
#include "attn/sdpa.h"
#include "attn/sdpa_s8.h"
#include "case.h"

namespace {

using namespace attn_accuracy;

TEST(Int8Accuracy, SdpaAgainstFloat) {
  const attn::SdpaShape shape{2, 48, 96, 64, 64};
  attn_test::Rng r(2024);
  const auto qf = smooth_random(r, 2 * 48 * 64, 0.3f);
  const auto kf = smooth_random(r, 2 * 96 * 64, -0.2f);
  const auto vf = smooth_random(r, 2 * 96 * 64, 0.5f);
  const Quantized q = quantize(qf), k = quantize(kf), v = quantize(vf);
  // Float reference on the dequantized inputs; also calibrates the scores
  // (q k^T / sqrt(d) range, scaled back by sqrt(d): the int8 scores are the
  // raw BATCH_MATMUL) and the output.
  std::vector<float> ref(2 * 48 * 64), scores;
  std::vector<unsigned char> ws(attn::sdpa_f32_scratch_bytes(shape));
  attn::SdpaF32Args fa;
  fa.q = q.deq.data();
  fa.k = k.deq.data();
  fa.v = v.deq.data();
  fa.out = ref.data();
  ASSERT_EQ(attn::sdpa_f32(shape, fa, {ws.data(), ws.size()}), attn::Status::kOk);
  for (int b = 0; b < 2; ++b) {
    for (int i = 0; i < 48; ++i) {
      for (int j = 0; j < 96; ++j) {
        float s = 0;
        for (int c = 0; c < 64; ++c)
          s += q.deq[(b * 48 + i) * 64 + c] * k.deq[(b * 96 + j) * 64 + c];
        scores.push_back(s);
      }
    }
  }
  attn::SdpaS8Quant quant;
  quant.q = q.p;
  quant.k = k.p;
  quant.v = v.p;
  quant.scores = calibrate(scores);
  quant.out = calibrate(ref);
  static attn::SdpaS8Params params;
  ASSERT_EQ(attn::sdpa_s8_prepare(shape, quant, &params), attn::Status::kOk);
  std::vector<int8_t> out(ref.size());
  std::vector<unsigned char> ws8(attn::sdpa_s8_scratch_bytes(shape));
  attn::SdpaS8Args a;
  a.q = q.q.data();
  a.k = k.q.data();
  a.v = v.q.data();
  a.out = out.data();
  ASSERT_EQ(attn::sdpa_s8(params, a, {ws8.data(), ws8.size()}), attn::Status::kOk);
  const ErrorStats e = compare(out, quant.out, ref);
  // Measured (GCC 12, x86-64; the int8 bits are the same everywhere):
  // mean |err| 0.0108 = 0.56 % and max 0.0503 = 2.6 % of the output range
  // 1.92, i.e. about 1.4 and 6.7 output steps (int8 scores and
  // probabilities carry about 7 bits each).
  EXPECT_GT(e.mean_abs / e.range, 0.002);
  EXPECT_LT(e.mean_abs / e.range, 0.012);
  EXPECT_LT(e.max_abs / e.range, 0.06);
  std::printf("sdpa_s8 vs sdpa_f32: mean |err| %.4f, max %.4f, output range %.3f\n", e.mean_abs,
              e.max_abs, e.range);
}

TEST(Int8Accuracy, MhaAgainstFloat) {
  constexpr int32_t B = 1, S = 40, E = 32, H = 4, hd = E / H;
  attn_test::Rng r(77);
  const auto xf = smooth_random(r, B * S * E, 0.1f);
  const Quantized x = quantize(xf);
  std::vector<float> wf[4], bf[4];
  ChannelWeights wq[4];
  std::vector<int32_t> bq[4];
  for (int i = 0; i < 4; ++i) {
    for (int32_t k = 0; k < E * E; ++k) wf[i].push_back(r.uniform(-0.3f, 0.3f));
    for (int32_t k = 0; k < E; ++k) bf[i].push_back(r.uniform(-0.2f, 0.2f));
    wq[i] = quantize_channels(wf[i], E, E);
  }
  // Float intermediates on dequantized values (calibration and reference).
  std::vector<float> proj[3];
  attn::QuantParams proj_q[3];
  for (int i = 0; i < 3; ++i) {
    // The int32 bias TFLite stores, and the float bias it represents.
    for (int32_t c = 0; c < E; ++c) {
      const float bs = x.p.scale * wq[i].scales[static_cast<std::size_t>(c)];
      bq[i].push_back(static_cast<int32_t>(std::lround(bf[i][static_cast<std::size_t>(c)] / bs)));
      bf[i][static_cast<std::size_t>(c)] = bs * static_cast<float>(bq[i].back());
    }
    proj[i] = linear(x.deq, B * S, E, wq[i].deq, bf[i], E);
    proj_q[i] = calibrate(proj[i]);
  }
  std::vector<float> scores;
  for (int32_t h = 0; h < H; ++h) {
    for (int32_t i = 0; i < S; ++i) {
      for (int32_t j = 0; j < S; ++j) {
        float s = 0;
        for (int32_t c = 0; c < hd; ++c)
          s += proj[0][i * E + h * hd + c] * proj[1][j * E + h * hd + c];
        scores.push_back(s);
      }
    }
  }
  // Attention output (float, per head) for the attn quantization.
  std::vector<float> attn_out(static_cast<std::size_t>(S * E));
  for (int32_t h = 0; h < H; ++h) {
    for (int32_t i = 0; i < S; ++i) {
      double m = -1e30, sum = 0;
      std::vector<double> p(S);
      for (int32_t j = 0; j < S; ++j) {
        p[j] = scores[static_cast<std::size_t>((h * S + i) * S + j)] /
               std::sqrt(static_cast<double>(hd));
        m = std::max(m, p[j]);
      }
      for (auto& v : p) sum += (v = std::exp(v - m));
      for (int32_t c = 0; c < hd; ++c) {
        double o = 0;
        for (int32_t j = 0; j < S; ++j) o += p[j] / sum * proj[2][j * E + h * hd + c];
        attn_out[static_cast<std::size_t>(i * E + h * hd + c)] = static_cast<float>(o);
      }
    }
  }
  const attn::QuantParams attn_q = calibrate(attn_out);
  for (int32_t c = 0; c < E; ++c) {
    const float bs = attn_q.scale * wq[3].scales[static_cast<std::size_t>(c)];
    bq[3].push_back(static_cast<int32_t>(std::lround(bf[3][static_cast<std::size_t>(c)] / bs)));
    bf[3][static_cast<std::size_t>(c)] = bs * static_cast<float>(bq[3].back());
  }
  // Float reference: mha_f32 on the dequantized input, weights and biases.
  std::vector<float> in_bias;
  for (int i = 0; i < 3; ++i) in_bias.insert(in_bias.end(), bf[i].begin(), bf[i].end());
  const attn::MhaShape shape{B, S, S, E, H, 0, 0};
  attn::MhaF32Weights fw;
  fw.q_proj_weight = wq[0].deq.data();
  fw.k_proj_weight = wq[1].deq.data();
  fw.v_proj_weight = wq[2].deq.data();
  fw.in_proj_bias = in_bias.data();
  fw.out_proj_weight = wq[3].deq.data();
  fw.out_proj_bias = bf[3].data();
  std::vector<float> ref(static_cast<std::size_t>(B * S * E));
  std::vector<unsigned char> ws(attn::mha_f32_scratch_bytes(shape));
  attn::MhaF32Args fa;
  fa.query = fa.key = fa.value = x.deq.data();
  fa.out = ref.data();
  ASSERT_EQ(attn::mha_f32(shape, fw, fa, {ws.data(), ws.size()}), attn::Status::kOk);

  attn::MhaS8Quant quant;
  quant.query = quant.key = quant.value = x.p;
  quant.q = proj_q[0];
  quant.k = proj_q[1];
  quant.v = proj_q[2];
  quant.scores = calibrate(scores);
  quant.attn = attn_q;
  quant.out = calibrate(ref);
  attn::MhaS8Weights w;
  w.q = {wq[0].q.data(), wq[0].scales.data(), bq[0].data()};
  w.k = {wq[1].q.data(), wq[1].scales.data(), bq[1].data()};
  w.v = {wq[2].q.data(), wq[2].scales.data(), bq[2].data()};
  w.out = {wq[3].q.data(), wq[3].scales.data(), bq[3].data()};
  std::vector<attn::QuantizedMultiplier> channels(attn::mha_s8_channel_count(shape));
  static attn::MhaS8Params params;
  ASSERT_EQ(attn::mha_s8_prepare(shape, quant, w, channels.data(), &params), attn::Status::kOk);
  std::vector<int8_t> out(ref.size());
  std::vector<unsigned char> ws8(attn::mha_s8_scratch_bytes(shape));
  attn::MhaS8Args a;
  a.query = a.key = a.value = x.q.data();
  a.out = out.data();
  ASSERT_EQ(attn::mha_s8(params, a, {ws8.data(), ws8.size()}), attn::Status::kOk);
  const ErrorStats e = compare(out, quant.out, ref);
  std::printf("mha_s8 vs mha_f32: mean |err| %.4f, max %.4f, output range %.3f\n", e.mean_abs,
              e.max_abs, e.range);
  // Measured: mean |err| 0.0067 = 0.31 % and max 0.029 = 1.3 % of the output
  // range 2.17 (about 0.8 and 3.4 output steps).
  EXPECT_GT(e.mean_abs / e.range, 0.001);
  EXPECT_LT(e.mean_abs / e.range, 0.008);
  EXPECT_LT(e.max_abs / e.range, 0.03);
}

}  // namespace
