// Double-precision references for the float ops, with error bounds.
//
// Written independently of the engine: plain loops, the full score matrix of a
// batch item materialised, softmax in double, no streaming, no tiling. Each
// reference returns the exact (double) result of the math in the op's header
// and, next to it, a tolerance: a first-order worst-case bound on the error
// a correct float32 implementation can make, whatever its summation order,
// FMA use or exp/tanh implementation.
//
// The bound (eps = FLT_EPSILON = 2^-23, i.e. twice the unit roundoff u, so
// every term below carries a factor-2 margin over the classical u bounds):
//
//   scores    s_j = scale * q . k_j (+ mask). A d-term float dot product is
//             within (d + 3) eps * scale * sum_d |q_d||k_jd| of the exact
//             value (d roundings, the rounding of q*scale and of the float
//             scale itself); an additive mask adds eps * |s_j|. Errors already
//             present in q, k (projections) propagate through |q||dk| + |dq||k|.
//             E = the largest such score error over the row's visible keys.
//   weights   p_j = exp(s_j - m) / sum_i exp(s_i - m). Each p_j is within a
//             relative eta of the exact value, with
//               eta = 2 E                (numerator and normaliser)
//                   + eps * 2 X          (rounding of s_j - m, X = max_j (m - s_j))
//                   + eps * (n + 2 nb + 10)
//             (n-term sum, one rescale per key block of the online softmax,
//             nb = ceil(n / 64) blocks, 4 eps for each exp: the SIMD backends'
//             polynomial exp is allowed 8 ulp, and the final division).
//   outputs   o_c = sum_j p_j v_jc is within
//               sum_j p_j ( |v_jc| (eta + eps (n + 2 nb + 4)) + dv_jc )
//             (the weights' error, the n-term accumulation and rescales, and
//             errors dv already in v).
//   floors    values below FLT_MIN lose relative precision: a visible weight
//             gets an absolute 2 FLT_MIN, an output (n + 2) FLT_MIN.
//
// Keys a mask hides (-inf) have weight exactly 0 with tolerance 0; a row
// whose keys are all masked has out and weights exactly 0, tolerance 0.
//
// Projections y = x W + b (n_in terms) carry
//   dy = sum |W| dx + eps (n_in + 2) (sum |x||W| + |b|).
//
// These are worst-case bounds: the errors measured over every case stay under
// 10% of them (attn_test::max_tol_ratio() reports it). They catch every
// masking, indexing, scaling or normalisation bug (errors of order 1e-2..1)
// and a grossly inaccurate exp, and they cannot fail spuriously on a correct
// backend.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace attn_ref {

inline constexpr double kEps = static_cast<double>(FLT_EPSILON);
inline constexpr double kFltMin = static_cast<double>(FLT_MIN);
inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr int kKeyBlock = 64;  // the engine's key block, for nb only

inline double dabs(double x) { return x < 0 ? -x : x; }
inline std::size_t uz(int i) { return static_cast<std::size_t>(i); }

// One batch item's mask, exactly as attn/mask.h states it. Matrices are
// [seq_q, seq_kv] and already offset to the batch item; key_length < 0 = none.
struct MaskView {
  bool causal = false;
  int key_length = -1;
  const float* keras = nullptr;
  const float* additive = nullptr;
  const uint8_t* boolean = nullptr;
};

// Builds the raw score of one (i, j) pair: -inf when a mask hides the key,
// else the scaled dot product plus the mask terms. *keras_masked reports a
// nonzero Keras entry (the key counts as masked for the all-masked rule).
inline double masked_score(const MaskView& m, int sq, int skv, int i, int j, double dot,
                           bool* keras_masked) {
  *keras_masked = false;
  if (m.causal && static_cast<long>(j) > static_cast<long>(i) + skv - sq) return -kInf;
  if (m.key_length >= 0 && j >= m.key_length) return -kInf;
  const std::size_t at = uz(i) * uz(skv) + uz(j);
  if (m.boolean != nullptr && m.boolean[at] != 0) return -kInf;
  double s = dot;
  if (m.keras != nullptr && m.keras[at] != 0.0f) {
    s += -1e9 * static_cast<double>(m.keras[at]);
    *keras_masked = true;
  }
  if (m.additive != nullptr) {
    if (std::isinf(m.additive[at]) && m.additive[at] < 0) return -kInf;
    s += static_cast<double>(m.additive[at]);
  }
  return s;
}

// Softmax of one score row in place (s: raw scores, -inf = hidden; becomes the
// weights) and the weighted sum of the value rows. `visible` counts keys that
// no mask component (Keras included) hides; 0 gives zeros. `e_max` is the
// largest absolute score error (see the top of the file). Returns eta, the
// relative bound of each weight. v rows have stride v_stride; v_err (same
// layout) may be null. out/out_tol have dv elements.
template <typename TV>
double softmax_combine_row(int n, double* s, double e_max, int visible, const TV* v,
                           std::size_t v_stride, const double* v_err, int dv, double* out,
                           double* out_tol) {
  if (visible == 0) {
    for (int j = 0; j < n; ++j) s[j] = 0.0;
    for (int c = 0; c < dv; ++c) out[c] = out_tol[c] = 0.0;
    return 0.0;
  }
  double m = -kInf;
  for (int j = 0; j < n; ++j) m = s[j] > m ? s[j] : m;
  double x_max = 0.0;  // over keys that carry weight (Keras-masked ones do not)
  for (int j = 0; j < n; ++j) {
    if (s[j] != -kInf && m - s[j] < 1e6 && m - s[j] > x_max) x_max = m - s[j];
  }
  double sum = 0.0;
  for (int j = 0; j < n; ++j) {
    s[j] = s[j] == -kInf ? 0.0 : std::exp(s[j] - m);
    sum += s[j];
  }
  for (int j = 0; j < n; ++j) s[j] /= sum;
  const double nb = static_cast<double>((n + kKeyBlock - 1) / kKeyBlock);
  const double dn = static_cast<double>(n);
  const double eta = 2.0 * e_max + kEps * (2.0 * x_max + dn + 2.0 * nb + 10.0);
  const double acc = eta + kEps * (dn + 2.0 * nb + 4.0);
  for (int c = 0; c < dv; ++c) {
    double o = 0.0;
    double t = 0.0;
    for (int j = 0; j < n; ++j) {
      const double vj = static_cast<double>(v[uz(j) * v_stride + uz(c)]);
      o += s[j] * vj;
      t += s[j] * (dabs(vj) * acc + (v_err != nullptr ? v_err[uz(j) * v_stride + uz(c)] : 0.0));
    }
    out[c] = o;
    out_tol[c] = t + (dn + 2.0) * kFltMin;
  }
  return eta;
}

// Tolerance of one weight from the row's eta: exact zero for a hidden key.
inline double weight_tol(double p, double eta, bool hidden) {
  return hidden ? 0.0 : p * eta + 2.0 * kFltMin;
}

// softmax(Q K^T * scale + mask) V for one batch item.
//   q [sq, dk] (row stride q_stride), k [skv, dk], v [skv, dv]; *_err: absolute
//   error bounds already in the inputs (same layout) or null.
//   scale_rel_err: relative error of the scale the engine uses (eps when it
//   derives 1/sqrt(dk) in float itself, 0 for a user-given float scale).
// Outputs: p [sq, skv] the full weight matrix, p_tol [sq, skv] (may alias
// nothing; required), out [sq, dv] (row stride out_stride), out_tol likewise.
template <typename T>
void attention(int sq, int skv, int dk, int dv, double scale, double scale_rel_err, const T* q,
               std::size_t q_stride, const double* q_err, const T* k, std::size_t k_stride,
               const double* k_err, const T* v, std::size_t v_stride, const double* v_err,
               const MaskView& mask, double* p, double* p_tol, double* out, double* out_tol,
               std::size_t out_stride) {
  for (int i = 0; i < sq; ++i) {
    double* s = p + uz(i) * uz(skv);
    double e_max = 0.0;
    int visible = 0;
    // The score matrix row, materialised in full.
    for (int j = 0; j < skv; ++j) {
      double dot = 0.0;
      double mag = 0.0;
      double prop = 0.0;
      for (int d = 0; d < dk; ++d) {
        const double qd = static_cast<double>(q[uz(i) * q_stride + uz(d)]);
        const double kd = static_cast<double>(k[uz(j) * k_stride + uz(d)]);
        dot += qd * kd;
        mag += dabs(qd) * dabs(kd);
        if (q_err != nullptr) prop += q_err[uz(i) * q_stride + uz(d)] * dabs(kd);
        if (k_err != nullptr) prop += dabs(qd) * k_err[uz(j) * k_stride + uz(d)];
      }
      bool keras_masked = false;
      s[j] = masked_score(mask, sq, skv, i, j, scale * dot, &keras_masked);
      if (s[j] == -kInf) continue;
      if (keras_masked) continue;  // weight 0 in float and in double
      ++visible;
      double e = scale * prop + (kEps * static_cast<double>(dk + 3) + scale_rel_err) * scale * mag;
      if (mask.additive != nullptr) e += kEps * (dabs(s[j]) + scale * mag);
      e_max = e > e_max ? e : e_max;
    }
    // Keep which keys are hidden before s becomes weights.
    double* t = p_tol + uz(i) * uz(skv);
    for (int j = 0; j < skv; ++j) t[j] = s[j] == -kInf ? 1.0 : 0.0;
    const double eta = softmax_combine_row(skv, s, e_max, visible, v, v_stride, v_err, dv,
                                           out + uz(i) * out_stride, out_tol + uz(i) * out_stride);
    for (int j = 0; j < skv; ++j) t[j] = weight_tol(s[j], eta, t[j] != 0.0 || visible == 0);
  }
}

// y[r, o] = sum_i x[r, i] W(o, i) + b[o] with W(o, i) = w[o * w_so + i * w_si]
// (PyTorch nn.Linear: w_so = n_in, w_si = 1; Keras Dense: w_so = 1, w_si = n_out).
// x_err may be null; y_err receives the bound stated at the top.
template <typename T>
void project(int rows, int n_in, int n_out, const T* x, std::size_t x_stride, const double* x_err,
             const float* w, std::size_t w_so, std::size_t w_si, const float* b, double* y,
             double* y_err, std::size_t y_stride) {
  for (int r = 0; r < rows; ++r) {
    for (int o = 0; o < n_out; ++o) {
      const double bo = b != nullptr ? static_cast<double>(b[o]) : 0.0;
      double acc = bo;
      double mag = dabs(bo);
      double prop = 0.0;
      for (int i = 0; i < n_in; ++i) {
        const double wi = static_cast<double>(w[uz(o) * w_so + uz(i) * w_si]);
        const double xi = static_cast<double>(x[uz(r) * x_stride + uz(i)]);
        acc += xi * wi;
        mag += dabs(xi) * dabs(wi);
        if (x_err != nullptr) prop += x_err[uz(r) * x_stride + uz(i)] * dabs(wi);
      }
      y[uz(r) * y_stride + uz(o)] = acc;
      y_err[uz(r) * y_stride + uz(o)] = prop + kEps * static_cast<double>(n_in + 2) * mag;
    }
  }
}

// Bahdanau for one batch item: e_j = v . tanh(q W1 + b1 + h_j W2 + b2) + bv,
// softmax over j < len, context = sum_j a_j h_j. Keras Dense layouts:
// w1 [dq, units], w2 [dk, units]. p/p_tol [seq], context/context_tol [dk].
inline void bahdanau(int seq, int dq, int dk, int units, const float* q, const float* keys,
                     const float* w1, const float* b1, const float* w2, const float* b2,
                     const float* v, float bv, int len, double* p, double* p_tol, double* context,
                     double* context_tol) {
  double e_max = 0.0;
  for (int j = 0; j < seq; ++j) {
    if (j >= len) {
      p[j] = -kInf;
      continue;
    }
    const float* h = keys + uz(j) * uz(dk);
    double e = static_cast<double>(bv);
    double e_mag = dabs(static_cast<double>(bv));
    double e_err = 0.0;
    for (int u = 0; u < units; ++u) {
      double z = (b1 != nullptr ? static_cast<double>(b1[u]) : 0.0) +
                 (b2 != nullptr ? static_cast<double>(b2[u]) : 0.0);
      double z_mag = dabs(z);
      for (int i = 0; i < dq; ++i) {
        const double t = static_cast<double>(q[i]) *
                         static_cast<double>(w1[uz(i) * uz(units) + uz(u)]);
        z += t;
        z_mag += dabs(t);
      }
      for (int i = 0; i < dk; ++i) {
        const double t = static_cast<double>(h[i]) *
                         static_cast<double>(w2[uz(i) * uz(units) + uz(u)]);
        z += t;
        z_mag += dabs(t);
      }
      const double th = std::tanh(z);
      // |tanh'| <= 1: the error of z passes through; tanh itself within 2 eps.
      const double th_err = kEps * static_cast<double>(dq + dk + 4) * z_mag + 2.0 * kEps * dabs(th);
      const double vu = static_cast<double>(v[u]);
      e += vu * th;
      e_mag += dabs(vu * th);
      e_err += dabs(vu) * th_err;
    }
    e_err += kEps * static_cast<double>(units + 2) * e_mag;
    e_max = e_err > e_max ? e_err : e_max;
    p[j] = e;
  }
  const int visible = len;
  for (int j = 0; j < seq; ++j) p_tol[j] = p[j] == -kInf ? 1.0 : 0.0;
  const double eta = softmax_combine_row(seq, p, e_max, visible, keys, uz(dk),
                                         static_cast<const double*>(nullptr), dk, context,
                                         context_tol);
  for (int j = 0; j < seq; ++j) p_tol[j] = weight_tol(p[j], eta, p_tol[j] != 0.0 || visible == 0);
}

// Luong for one batch item. Dot when w is null (dq == dk):  e_j = q . h_j.
// General: e_j = q . (h_j W + b), W [dk, dq] (Keras Dense on the keys).
inline void luong(int seq, int dq, int dk, const float* q, const float* keys, const float* w,
                  const float* b, int len, double* p, double* p_tol, double* context,
                  double* context_tol) {
  double e_max = 0.0;
  for (int j = 0; j < seq; ++j) {
    if (j >= len) {
      p[j] = -kInf;
      continue;
    }
    const float* h = keys + uz(j) * uz(dk);
    double e = 0.0;
    double mag = 0.0;
    if (w == nullptr) {
      for (int c = 0; c < dk; ++c) {
        e += static_cast<double>(q[c]) * static_cast<double>(h[c]);
        mag += dabs(static_cast<double>(q[c]) * static_cast<double>(h[c]));
      }
      mag *= kEps * static_cast<double>(dk + 3);
    } else {
      for (int c = 0; c < dq; ++c) {
        double hw = b != nullptr ? static_cast<double>(b[c]) : 0.0;
        for (int d = 0; d < dk; ++d) {
          const double t = static_cast<double>(h[d]) *
                           static_cast<double>(w[uz(d) * uz(dq) + uz(c)]);
          hw += t;
          mag += dabs(t) * dabs(static_cast<double>(q[c]));  // bias cancels in softmax
        }
        e += static_cast<double>(q[c]) * hw;
      }
      mag *= kEps * static_cast<double>(dq + dk + 4);
    }
    e_max = mag > e_max ? mag : e_max;
    p[j] = e;
  }
  for (int j = 0; j < seq; ++j) p_tol[j] = p[j] == -kInf ? 1.0 : 0.0;
  const double eta = softmax_combine_row(seq, p, e_max, len, keys, uz(dk),
                                         static_cast<const double*>(nullptr), dk, context,
                                         context_tol);
  for (int j = 0; j < seq; ++j) p_tol[j] = weight_tol(p[j], eta, p_tol[j] != 0.0 || len == 0);
}

}  // namespace attn_ref
