// The careful Eigen 3.4 SDPA peer, shared by attn_bench (Google Benchmark) and
// the instruction-count image on Linux targets (baremetal/bench_ops.cpp):
// scale folded into Q, one GEMM for the scores, per-row in-place softmax, one
// GEMM for the output, products noalias into caller buffers. Also the MHA
// peer (attn_bench's MHA rows, single-threaded and on OpenMP threads).
#pragma once

#include <Eigen/Dense>
#include <cmath>

namespace attn_bench {

using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MapC = Eigen::Map<const RowMat>;
using MapM = Eigen::Map<RowMat>;

// The Eigen peers' softmax: each row of s in place.
inline void EigenSoftmaxRows(MapM s) {
  for (Eigen::Index i = 0; i < s.rows(); ++i) {
    auto r = s.row(i);
    const float m = r.maxCoeff();
    r = (r.array() - m).exp();
    r *= 1.0f / r.sum();
  }
}

// out[sq, d] = softmax(q k^T / sqrt(d)) v for row-major q [sq, d], k and v
// [skv, d]; work holds sq * d + sq * skv floats (the scaled Q, the scores).
inline void EigenSdpa(const float* q, const float* k, const float* v, float* out, int sq, int skv,
                      int d, float* work) {
  MapC mq(q, sq, d), mk(k, skv, d), mv(v, skv, d);
  MapM qs(work, sq, d), s(work + static_cast<std::ptrdiff_t>(sq) * d, sq, skv), o(out, sq, d);
  qs.noalias() = mq * (1.0f / std::sqrt(static_cast<float>(d)));
  s.noalias() = qs * mk.transpose();
  EigenSoftmaxRows(s);
  o.noalias() = s * mv;
}

// PyTorch's self-attention MHA of x [s, e] with h heads: qkv = x w_in^T +
// b_in (w_in [3e, e]), Q scaled by 1/sqrt(e/h), per head the scores, their
// row softmax and the head's output, then out = heads w_out^T + b_out. work
// holds 3 * s * e (qkv) + s * e (heads) + s * s (scores) floats.
inline void EigenMha(const float* x, const float* w_in, const float* b_in, const float* w_out,
                     const float* b_out, float* out, int s, int e, int h, float* work) {
  const int hd = e / h;
  MapC mx(x, s, e), mw_in(w_in, 3 * e, e), mw_out(w_out, e, e);
  Eigen::Map<const Eigen::RowVectorXf> mb_in(b_in, 3 * e), mb_out(b_out, e);
  const auto se = static_cast<std::ptrdiff_t>(s) * e;
  MapM qkv(work, s, 3 * e), heads(work + 3 * se, s, e), sc(work + 4 * se, s, s), o(out, s, e);
  qkv.noalias() = mx * mw_in.transpose();
  qkv.rowwise() += mb_in;
  qkv.leftCols(e) *= 1.0f / std::sqrt(static_cast<float>(hd));
  for (int hh = 0; hh < h; ++hh) {
    sc.noalias() = qkv.middleCols(hh * hd, hd) * qkv.middleCols(e + hh * hd, hd).transpose();
    EigenSoftmaxRows(sc);
    heads.middleCols(hh * hd, hd).noalias() = sc * qkv.middleCols(2 * e + hh * hd, hd);
  }
  o.noalias() = heads * mw_out.transpose();
  o.rowwise() += mb_out;
}

}  // namespace attn_bench
