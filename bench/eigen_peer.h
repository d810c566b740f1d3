// The careful Eigen 3.4 SDPA peer, shared by attn_bench (Google Benchmark) and
// the instruction-count image on Linux targets (baremetal/bench_ops.cpp):
// scale folded into Q, one GEMM for the scores, per-row in-place softmax, one
// GEMM for the output, products noalias into caller buffers.
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

}  // namespace attn_bench
