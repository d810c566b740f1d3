// The Eigen SDPA peer with Eigen's own OpenMP threads, in a shared object of
// its own (libattn_bench_eigen_omp.so).
//
// Why a separate shared object: Eigen's GEMM code differs with and without
// OpenMP (EIGEN_DONT_PARALLELIZE), but its template instantiations have the
// same names either way. Compiled into one executable, the linker keeps one
// copy of each, so a threaded GEMM could run the single-threaded kernel's
// blocking on shared packing buffers (seen with Clang 14: 70% of the
// 1024 x 1024 output wrong at 2 threads). The shared object is built with
// hidden visibility: its Eigen code binds only to itself, and the
// functions below are all it exports.
#pragma once

namespace attn_bench {

// Sets Eigen's thread count for the functions below; returns the count
// Eigen then reports (equal to n when OpenMP is active).
__attribute__((visibility("default"))) int EigenOmpSetThreads(int n);

// out[sq, d] = softmax(q k^T / sqrt(d)) v (bench/eigen_peer.h's EigenSdpa)
// on Eigen's OpenMP threads; work holds sq * d + sq * skv floats.
__attribute__((visibility("default"))) void EigenOmpSdpa(const float* q, const float* k,
                                                         const float* v, float* out, int sq,
                                                         int skv, int d, float* work);

// EigenMha (bench/eigen_peer.h) on Eigen's OpenMP threads.
__attribute__((visibility("default"))) void EigenOmpMha(const float* x, const float* w_in,
                                                        const float* b_in, const float* w_out,
                                                        const float* b_out, float* out, int s,
                                                        int e, int h, float* work);

}  // namespace attn_bench
