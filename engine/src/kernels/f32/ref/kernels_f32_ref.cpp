// Portable reference implementation of the float32 kernels (kernels_f32.h).
//
// Written for clarity: plain loops, float accumulation in index order, libm's
// expf/tanhf. Every optimized backend is tested against these.
#include <cmath>
#include <limits>

#include "kernels/f32/kernels_f32.h"
#include "kernels/f32/ref/ref_loops.h"

namespace attn {
namespace ref {
namespace {

using ref_loops::widen;

template <class T>
float dot(const float* a, const T* b, int32_t n) {
  float sum = 0.0f;
  for (int32_t i = 0; i < n; ++i) sum += a[i] * widen(b[i]);
  return sum;
}

template <class TK>
void qk_tile(const float* q, std::size_t q_stride, int32_t nq, const TK* k, std::size_t k_stride,
             int32_t nk, int32_t d, float* s, std::size_t s_stride) {
  for (int32_t i = 0; i < nq; ++i) {
    for (int32_t j = 0; j < nk; ++j) {
      s[static_cast<std::size_t>(i) * s_stride + static_cast<std::size_t>(j)] =
          dot(q + static_cast<std::size_t>(i) * q_stride,
              k + static_cast<std::size_t>(j) * k_stride, d);
    }
  }
}

// Key j of B-key transposed blocks (B = kKtBlock): element x at kt[(j / B) * B * d + x * B + j % B].
template <class TK>
void qk_tile_kt(const float* q, std::size_t q_stride, int32_t nq, const TK* kt, int32_t nk,
                int32_t d, float* s, std::size_t s_stride) {
  const auto ud = static_cast<std::size_t>(d);
  constexpr auto kB = static_cast<std::size_t>(kKtBlock);
  for (int32_t i = 0; i < nq; ++i) {
    const float* qi = q + static_cast<std::size_t>(i) * q_stride;
    for (int32_t j = 0; j < nk; ++j) {
      const auto uj = static_cast<std::size_t>(j);
      const TK* kj = kt + uj / kB * kB * ud + uj % kB;
      float sum = 0.0f;
      for (std::size_t x = 0; x < ud; ++x) sum += qi[x] * widen(kj[x * kB]);
      s[static_cast<std::size_t>(i) * s_stride + uj] = sum;
    }
  }
}

template <class TV>
void pv_tile(const float* p, std::size_t p_stride, int32_t nq, int32_t nk, const TV* v,
             std::size_t v_stride, int32_t dv, float* acc, std::size_t a_stride) {
  for (int32_t i = 0; i < nq; ++i) {
    float* row = acc + static_cast<std::size_t>(i) * a_stride;
    for (int32_t j = 0; j < nk; ++j) {
      const float w = p[static_cast<std::size_t>(i) * p_stride + static_cast<std::size_t>(j)];
      const TV* vr = v + static_cast<std::size_t>(j) * v_stride;
      for (int32_t c = 0; c < dv; ++c) row[c] += w * widen(vr[c]);
    }
  }
}

}  // namespace

float dot_f32(const float* a, const float* b, int32_t n) { return dot(a, b, n); }

void qk_tile_f32(const float* q, std::size_t q_stride, int32_t nq, const float* k,
                 std::size_t k_stride, int32_t nk, int32_t d, float* s, std::size_t s_stride) {
  qk_tile(q, q_stride, nq, k, k_stride, nk, d, s, s_stride);
}

void qk_tile_f16k_f32(const float* q, std::size_t q_stride, int32_t nq, const uint16_t* k,
                      std::size_t k_stride, int32_t nk, int32_t d, float* s, std::size_t s_stride) {
  qk_tile(q, q_stride, nq, k, k_stride, nk, d, s, s_stride);
}

void qk_tile_kt_f32(const float* q, std::size_t q_stride, int32_t nq, const float* kt, int32_t nk,
                    int32_t d, float* s, std::size_t s_stride) {
  qk_tile_kt(q, q_stride, nq, kt, nk, d, s, s_stride);
}

void qk_tile_kt_f16_f32(const float* q, std::size_t q_stride, int32_t nq, const uint16_t* kt,
                        int32_t nk, int32_t d, float* s, std::size_t s_stride) {
  qk_tile_kt(q, q_stride, nq, kt, nk, d, s, s_stride);
}

float max_f32(const float* x, int32_t n) {
  float m = x[0];
  for (int32_t i = 1; i < n; ++i) {
    if (x[i] > m || std::isnan(m)) m = x[i];
  }
  return m;
}

float exp_sub_sum_f32(float* x, int32_t n, float m) {
  return ref_loops::exp_sub_sum(x, n, m, [](float v) { return std::exp(v); });
}

void softmax_f32(float* x, int32_t n) {
  if (n <= 0) return;
  const float m = max_f32(x, n);
  if (m == -std::numeric_limits<float>::infinity()) {  // every entry masked
    for (int32_t i = 0; i < n; ++i) x[i] = 0.0f;
    return;
  }
  const float sum = exp_sub_sum_f32(x, n, m);  // >= 1: the max's own exp(0)
  scale_f32(x, n, 1.0f / sum);
}

void pv_tile_f32(const float* p, std::size_t p_stride, int32_t nq, int32_t nk, const float* v,
                 std::size_t v_stride, int32_t dv, float* acc, std::size_t a_stride) {
  pv_tile(p, p_stride, nq, nk, v, v_stride, dv, acc, a_stride);
}

void pv_tile_f16v_f32(const float* p, std::size_t p_stride, int32_t nq, int32_t nk,
                      const uint16_t* v, std::size_t v_stride, int32_t dv, float* acc,
                      std::size_t a_stride) {
  pv_tile(p, p_stride, nq, nk, v, v_stride, dv, acc, a_stride);
}

void transpose_scale_f32(const float* q, std::size_t q_stride, int32_t nq, int32_t d, float scale,
                         float* qt, int32_t tq) {
  const auto t = static_cast<std::size_t>(tq);
  for (int32_t i = 0; i < tq; ++i) {
    for (int32_t x = 0; x < d; ++x) {
      qt[static_cast<std::size_t>(x) * t + static_cast<std::size_t>(i)] =
          i < nq ? scale * q[static_cast<std::size_t>(i) * q_stride + static_cast<std::size_t>(x)]
                 : 0.0f;
    }
  }
}

void qk_tile_t_f32(const float* qt, int32_t tq, int32_t d, const float* k, std::size_t k_stride,
                   int32_t nk, float* st) {
  const auto t = static_cast<std::size_t>(tq);
  for (int32_t j = 0; j < nk; ++j) {
    const float* kj = k + static_cast<std::size_t>(j) * k_stride;
    for (std::size_t i = 0; i < t; ++i) {
      float sum = 0.0f;
      for (int32_t x = 0; x < d; ++x) sum += qt[static_cast<std::size_t>(x) * t + i] * kj[x];
      st[static_cast<std::size_t>(j) * t + i] = sum;
    }
  }
}

void softmax_t_f32(float* st, int32_t tq, int32_t nk, float* m, float* l, int32_t nq, float* acc,
                   std::size_t a_stride, int32_t dv) {
  const auto t = static_cast<std::size_t>(tq);
  for (std::size_t i = 0; i < t; ++i) {
    float m_new = m[i];
    for (int32_t j = 0; j < nk; ++j) {
      const float x = st[static_cast<std::size_t>(j) * t + i];
      if (x > m_new) m_new = x;
    }
    // Nothing visible yet (every score -inf or NaN): subtract 0, so masked
    // keys give 0 and a NaN score stays NaN and poisons the column's sum.
    const float m_use = m_new == -std::numeric_limits<float>::infinity() ? 0.0f : m_new;
    float sum = 0.0f;
    for (int32_t j = 0; j < nk; ++j) {
      float& x = st[static_cast<std::size_t>(j) * t + i];
      x = std::exp(x - m_use);
      sum += x;
    }
    if (m_new != m[i]) {
      const float alpha = std::exp(m[i] - m_new);
      l[i] *= alpha;
      if (static_cast<int32_t>(i) < nq) scale_f32(acc + i * a_stride, dv, alpha);
      m[i] = m_new;
    }
    l[i] += sum;
  }
}

void pv_tile_t_f32(const float* pt, int32_t tq, int32_t nq, int32_t nk, const float* v,
                   std::size_t v_stride, int32_t dv, float* acc, std::size_t a_stride) {
  for (int32_t i = 0; i < nq; ++i) {
    float* row = acc + static_cast<std::size_t>(i) * a_stride;
    for (int32_t j = 0; j < nk; ++j) {
      axpy_f32(row, v + static_cast<std::size_t>(j) * v_stride, dv,
               pt[static_cast<std::size_t>(j) * static_cast<std::size_t>(tq) +
                  static_cast<std::size_t>(i)]);
    }
  }
}

void axpy_f32(float* y, const float* x, int32_t n, float a) {
  for (int32_t i = 0; i < n; ++i) y[i] += a * x[i];
}

void scale_f32(float* x, int32_t n, float a) {
  for (int32_t i = 0; i < n; ++i) x[i] *= a;
}

void add_f32(float* y, const float* a, const float* b, int32_t n) {
  for (int32_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}

void tanh_f32(float* x, int32_t n) {
  for (int32_t i = 0; i < n; ++i) x[i] = std::tanh(x[i]);
}

void linear_f32(const float* x, int32_t rows, int32_t n_in, const float* w, const float* bias,
                int32_t n_out, float* y) {
  for (int32_t r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<std::size_t>(r) * static_cast<std::size_t>(n_in);
    float* yr = y + static_cast<std::size_t>(r) * static_cast<std::size_t>(n_out);
    for (int32_t o = 0; o < n_out; ++o) {
      const float b = bias != nullptr ? bias[o] : 0.0f;
      yr[o] = b +
              dot_f32(xr, w + static_cast<std::size_t>(o) * static_cast<std::size_t>(n_in), n_in);
    }
  }
}

void dense_f32(const float* x, int32_t rows, int32_t n_in, const float* w, const float* bias,
               int32_t n_out, float* y) {
  for (int32_t r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<std::size_t>(r) * static_cast<std::size_t>(n_in);
    float* yr = y + static_cast<std::size_t>(r) * static_cast<std::size_t>(n_out);
    for (int32_t o = 0; o < n_out; ++o) yr[o] = bias != nullptr ? bias[o] : 0.0f;
    for (int32_t k = 0; k < n_in; ++k) {
      axpy_f32(yr, w + static_cast<std::size_t>(k) * static_cast<std::size_t>(n_out), n_out, xr[k]);
    }
  }
}

}  // namespace ref
}  // namespace attn
