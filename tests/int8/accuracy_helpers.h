// Quantization helpers of the int8 accuracy tests (host only): TFLite-style
// calibration of float tensors, per-channel weights, float rows.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "attn/int8/quantize.h"
#include "case.h"

namespace attn_accuracy {

struct Quantized {
  std::vector<int8_t> q;
  std::vector<float> deq;
  attn::QuantParams p;
};

// Asymmetric per-tensor quantization calibrated on min/max (TFLite converter style).
inline Quantized quantize(const std::vector<float>& x) {
  float lo = 0.0f, hi = 0.0f;
  for (float v : x) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  Quantized r;
  r.p.scale = (hi - lo) / 255.0f;
  r.p.zero_point = static_cast<int32_t>(std::lround(-128.0 - lo / r.p.scale));
  r.p.zero_point = std::max(-128, std::min(127, r.p.zero_point));
  for (float v : x) {
    const long qv = std::lround(v / r.p.scale) + r.p.zero_point;
    const auto c = static_cast<int8_t>(std::max(-128L, std::min(127L, qv)));
    r.q.push_back(c);
    r.deq.push_back(r.p.scale * static_cast<float>(c - r.p.zero_point));
  }
  return r;
}

inline attn::QuantParams calibrate(const std::vector<float>& x) { return quantize(x).p; }

struct ErrorStats {
  double mean_abs = 0, max_abs = 0, range = 0;
};

inline ErrorStats compare(const std::vector<int8_t>& got, const attn::QuantParams& p,
                          const std::vector<float>& want) {
  ErrorStats e;
  float lo = want[0], hi = want[0];
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double d = std::fabs(static_cast<double>(p.scale) * (got[i] - p.zero_point) - want[i]);
    e.mean_abs += d;
    e.max_abs = std::max(e.max_abs, d);
    lo = std::min(lo, want[i]);
    hi = std::max(hi, want[i]);
  }
  e.mean_abs /= static_cast<double>(want.size());
  e.range = hi - lo;
  return e;
}

inline std::vector<float> smooth_random(attn_test::Rng& r, std::size_t n, float offset) {
  std::vector<float> v(n);
  for (auto& x : v) x = r.uniform(-1, 1) + r.uniform(-1, 1) + r.uniform(-1, 1) + offset;
  return v;
}

// Symmetric per-output-channel int8 weights [out, in] (TFLite converter style).
struct ChannelWeights {
  std::vector<int8_t> q;
  std::vector<float> deq, scales;
};

inline ChannelWeights quantize_channels(const std::vector<float>& w, int32_t out, int32_t in) {
  ChannelWeights r;
  for (int32_t c = 0; c < out; ++c) {
    float m = 0.0f;
    for (int32_t k = 0; k < in; ++k)
      m = std::max(m, std::fabs(w[static_cast<std::size_t>(c * in + k)]));
    const float s = m / 127.0f;
    r.scales.push_back(s);
    for (int32_t k = 0; k < in; ++k) {
      const long v = std::lround(w[static_cast<std::size_t>(c * in + k)] / s);
      r.q.push_back(static_cast<int8_t>(std::max(-127L, std::min(127L, v))));
      r.deq.push_back(s * static_cast<float>(r.q.back()));
    }
  }
  return r;
}

// y = x W^T + b on float rows (calibration of the intermediate tensors).
inline std::vector<float> linear(const std::vector<float>& x, int32_t rows, int32_t in,
                                 const std::vector<float>& w, const std::vector<float>& b,
                                 int32_t out) {
  std::vector<float> y;
  for (int32_t r = 0; r < rows; ++r) {
    for (int32_t c = 0; c < out; ++c) {
      double s = b[static_cast<std::size_t>(c)];
      for (int32_t k = 0; k < in; ++k) {
        s += static_cast<double>(x[static_cast<std::size_t>(r * in + k)]) *
             w[static_cast<std::size_t>(c * in + k)];
      }
      y.push_back(static_cast<float>(s));
    }
  }
  return y;
}

}  // namespace attn_accuracy
