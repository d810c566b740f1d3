// The only object built with Eigen's OpenMP GEMM (see eigen_sdpa_omp.h).
#include "eigen_sdpa_omp.h"

#include <Eigen/Core>

#include "eigen_peer.h"

#if !defined(_OPENMP) || defined(EIGEN_DONT_PARALLELIZE)
#error "eigen_sdpa_omp.cpp needs OpenMP and Eigen's parallel GEMM"
#endif

namespace attn_bench {

int EigenOmpSetThreads(int n) {
  Eigen::setNbThreads(n);
  return Eigen::nbThreads();
}

void EigenOmpSdpa(const float* q, const float* k, const float* v, float* out, int sq, int skv,
                  int d, float* work) {
  EigenSdpa(q, k, v, out, sq, skv, d, work);
}

void EigenOmpMha(const float* x, const float* w_in, const float* b_in, const float* w_out,
                 const float* b_out, float* out, int s, int e, int h, float* work) {
  EigenMha(x, w_in, b_in, w_out, b_out, out, s, e, h, work);
}

}  // namespace attn_bench
