// The float SDPA op, run on the kernels this build selected (ATTN_SIMD), against
// a double-precision softmax(Q K^T * scale + mask) V written here: odd head
// sizes and the specialised ones, every mask kind, batches, the weights output.
//
// Bound: |out - exact| <= 64 eps max|v| and |weights - exact| <= 64 eps, i.e.
// k = 64 eps times the magnitude (sum_j p_j |v_j| <= max|v|), which covers the
// float rounding of d-term dots (scores up to ~4, relative error ~d eps), the
// polynomial exp (kMaxUlp = 3 ulp) and the nk-term sums.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "attn/sdpa.h"

namespace {

enum MaskKind { kNone, kCausal, kKeyLengths, kKeras, kAdditive, kBoolean, kAll };

struct Problem {
  int32_t batch, seq_q, seq_kv, dim_k, dim_v;
  MaskKind mask;
};

void Exact(const Problem& pr, const std::vector<float>& q, const std::vector<float>& k,
           const std::vector<float>& v, const attn::Mask& m, float scale, std::vector<double>& out,
           std::vector<double>& w) {
  const auto Z = [](int32_t i) { return static_cast<std::size_t>(i); };
  out.assign(Z(pr.batch * pr.seq_q * pr.dim_v), 0.0);
  w.assign(Z(pr.batch * pr.seq_q * pr.seq_kv), 0.0);
  for (int32_t b = 0; b < pr.batch; ++b) {
    for (int32_t i = 0; i < pr.seq_q; ++i) {
      std::vector<double> s(Z(pr.seq_kv));
      std::vector<bool> vis(Z(pr.seq_kv), true);
      double mx = -std::numeric_limits<double>::infinity();
      for (int32_t j = 0; j < pr.seq_kv; ++j) {
        double dot = 0.0;
        for (int32_t x = 0; x < pr.dim_k; ++x) {
          dot += static_cast<double>(q[Z((b * pr.seq_q + i) * pr.dim_k + x)]) *
                 static_cast<double>(k[Z((b * pr.seq_kv + j) * pr.dim_k + x)]);
        }
        double sc = dot * static_cast<double>(scale);
        const std::size_t mi = m.matrix_batch_stride * Z(b) + Z(i * pr.seq_kv + j);
        if (m.causal && j > i + pr.seq_kv - pr.seq_q) vis[Z(j)] = false;
        if (m.key_lengths != nullptr && j >= m.key_lengths[b]) vis[Z(j)] = false;
        if (m.keras != nullptr) {
          sc += -1e9 * static_cast<double>(m.keras[mi]);
          if (m.keras[mi] != 0.0f) vis[Z(j)] = false;
        }
        if (m.additive != nullptr) sc += static_cast<double>(m.additive[mi]);
        if (m.boolean != nullptr && m.boolean[mi] != 0) vis[Z(j)] = false;
        if (std::isinf(sc) && sc < 0) vis[Z(j)] = false;
        s[Z(j)] = sc;
        if (m.keras == nullptr || m.keras[mi] == 0.0f) {
          if (vis[Z(j)]) mx = std::max(mx, sc);
        }
      }
      bool any = false;
      for (int32_t j = 0; j < pr.seq_kv; ++j) any = any || vis[Z(j)];
      if (!any) continue;  // zeros
      // Keras-masked keys still take part with score - 1e9 (they are not -inf).
      for (int32_t j = 0; j < pr.seq_kv; ++j) {
        const bool hard = (m.causal && j > i + pr.seq_kv - pr.seq_q) ||
                          (m.key_lengths != nullptr && j >= m.key_lengths[b]) ||
                          (m.boolean != nullptr &&
                           m.boolean[m.matrix_batch_stride * Z(b) + Z(i * pr.seq_kv + j)] != 0) ||
                          (std::isinf(s[Z(j)]) && s[Z(j)] < 0);
        if (!hard) mx = std::max(mx, s[Z(j)]);
        if (hard) s[Z(j)] = -std::numeric_limits<double>::infinity();
      }
      double l = 0.0;
      for (int32_t j = 0; j < pr.seq_kv; ++j) l += std::exp(s[Z(j)] - mx);
      for (int32_t j = 0; j < pr.seq_kv; ++j) {
        const double p = std::exp(s[Z(j)] - mx) / l;
        w[Z((b * pr.seq_q + i) * pr.seq_kv + j)] = p;
        for (int32_t c = 0; c < pr.dim_v; ++c) {
          out[Z((b * pr.seq_q + i) * pr.dim_v + c)] +=
              p * static_cast<double>(v[Z((b * pr.seq_kv + j) * pr.dim_v + c)]);
        }
      }
    }
  }
}

void RunSdpa(const Problem& pr, uint32_t seed) {
  const auto Z = [](int32_t i) { return static_cast<std::size_t>(i); };
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> q(Z(pr.batch * pr.seq_q * pr.dim_k)), k(Z(pr.batch * pr.seq_kv * pr.dim_k));
  std::vector<float> v(Z(pr.batch * pr.seq_kv * pr.dim_v));
  for (auto* vec : {&q, &k, &v}) {
    for (float& x : *vec) x = 2.0f * dist(rng);
  }
  std::vector<int32_t> lengths(Z(pr.batch));
  for (int32_t b = 0; b < pr.batch; ++b) lengths[Z(b)] = (b * 7 + pr.seq_kv / 2) % (pr.seq_kv + 1);
  const std::size_t mat = Z(pr.seq_q * pr.seq_kv);
  std::vector<float> keras(mat), additive(mat);
  std::vector<uint8_t> boolean(mat);
  for (std::size_t i = 0; i < mat; ++i) {
    keras[i] = (rng() % 5 == 0) ? 1.0f : 0.0f;
    additive[i] = (rng() % 7 == 0) ? -std::numeric_limits<float>::infinity() : dist(rng);
    boolean[i] = (rng() % 6 == 0) ? 1 : 0;
  }
  attn::Mask m;
  const MaskKind kind = pr.mask;
  m.causal = kind == kCausal || kind == kAll;
  if (kind == kKeyLengths || kind == kAll) m.key_lengths = lengths.data();
  if (kind == kKeras) m.keras = keras.data();
  if (kind == kAdditive || kind == kAll) m.additive = additive.data();
  if (kind == kBoolean || kind == kAll) m.boolean = boolean.data();

  attn::SdpaShape shape{pr.batch, pr.seq_q, pr.seq_kv, pr.dim_k, pr.dim_v};
  std::vector<unsigned char> scratch(attn::sdpa_f32_scratch_bytes(shape) + 3);
  std::vector<float> out(Z(pr.batch * pr.seq_q * pr.dim_v)), w(Z(pr.batch * pr.seq_q * pr.seq_kv));
  attn::SdpaF32Args args;
  args.q = q.data();
  args.k = k.data();
  args.v = v.data();
  args.out = out.data();
  args.probs = w.data();
  args.mask = m;
  ASSERT_EQ(attn::sdpa_f32(shape, args, attn::Scratch{scratch.data() + 3, scratch.size() - 3}),
            attn::Status::kOk);
  std::vector<double> want_out, want_w;
  const float scale = 1.0f / std::sqrt(static_cast<float>(pr.dim_k));
  Exact(pr, q, k, v, m, scale, want_out, want_w);
  const double tol_out = 64.0 * FLT_EPSILON * 2.0, tol_w = 64.0 * FLT_EPSILON;
  for (std::size_t i = 0; i < out.size(); ++i) {
    ASSERT_NEAR(out[i], want_out[i], tol_out)
        << "out[" << i << "] b=" << pr.batch << " sq=" << pr.seq_q << " skv=" << pr.seq_kv
        << " dk=" << pr.dim_k << " dv=" << pr.dim_v << " mask=" << pr.mask;
  }
  for (std::size_t i = 0; i < w.size(); ++i) {
    ASSERT_NEAR(w[i], want_w[i], tol_w) << "weights[" << i << "] mask=" << pr.mask;
  }
}

TEST(SdpaSimdVsExact, ShapesAndMasks) {
  uint32_t seed = 10;
  for (int32_t d : {1, 3, 7, 16, 17, 32, 64, 128}) {
    for (int32_t s : {1, 5, 9, 64, 65, 130}) {
      RunSdpa({1, s, s, d, d, kNone}, ++seed);
    }
  }
  for (MaskKind kind : {kCausal, kKeyLengths, kKeras, kAdditive, kBoolean, kAll}) {
    for (int32_t d : {7, 32, 64}) {
      RunSdpa({3, 9, 70, d, d + 1, kind}, ++seed);
      RunSdpa({2, 70, 9, d, d, kind}, ++seed);
      RunSdpa({2, 67, 67, d, d, kind}, ++seed);
    }
  }
  RunSdpa({1, 1, 1024, 64, 64, kNone}, ++seed);  // decode
}

}  // namespace
