// Shared by the attn_bench sources: 64-byte aligned random inputs, the Eigen
// peers' types, the FLOP counters and benchmark registration (smoke mode).
#pragma once

#include <benchmark/benchmark.h>

#include <Eigen/Dense>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "aligned_vector.h"
#include "eigen_peer.h"

namespace attn_bench {

using FVec = AlignedVec<float>;
using VecF = Eigen::Matrix<float, Eigen::Dynamic, 1>;

inline std::size_t Z(int64_t i) { return static_cast<std::size_t>(i); }

inline FVec Random(std::size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  FVec v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// The float SDPA shapes every implementation (attn, Eigen, oneDNN, OpenBLAS)
// is registered at: family SDPA_d<d> (Sq = Skv) or Decode_d<d> (Sq = 1).
struct SdpaCase {
  std::string family;
  int32_t sq, skv, d;
};
inline std::vector<SdpaCase> SdpaCases() {
  std::vector<SdpaCase> cases;
  for (int32_t s : {16, 64, 256, 1024}) cases.push_back({"SDPA_d64", s, s, 64});
  for (int32_t s : {64, 1024, 4096}) cases.push_back({"Decode_d64", 1, s, 64});
  // The head sizes of small MCU models and of modern decoders.
  for (int32_t d : {32, 128}) {
    for (int32_t s : {256, 1024}) cases.push_back({"SDPA_d" + std::to_string(d), s, s, d});
  }
  return cases;
}
// The memo key of the SDPA reference of a shape (bench_check.h Memo).
inline std::string SdpaKey(int32_t sq, int32_t skv, int32_t d) {
  return "sdpa/" + std::to_string(sq) + "/" + std::to_string(skv) + "/" + std::to_string(d);
}

// Counters GFLOPS and pct_peak (of the FMA peak measured at start-up).
void SetFlops(benchmark::State& st, double flops_per_iter);

// Smoke mode (attn_bench --smoke, the ctest attn_bench.smoke): every
// benchmark runs kSmokeIterations iterations, once, so the whole suite and
// every check run in seconds.
constexpr int64_t kSmokeIterations = 3;
bool& SmokeMode();

template <class Fn, class... Args>
benchmark::internal::Benchmark* Register(const std::string& name, Fn fn, Args... args) {
  benchmark::internal::Benchmark* b = benchmark::RegisterBenchmark(name.c_str(), fn, args...);
  if (SmokeMode()) b->Iterations(kSmokeIterations);
  return b;
}

// The suites of the other files (bench_kernels.cpp, bench_s8.cpp,
// bench_peers*.cpp, bench_decode.cpp; the threaded rows of bench_attn.cpp,
// bench_s8.cpp and bench_eigen_threads.cpp, registered by
// RegisterThreadBenchmarks).
void RegisterKernelBenchmarks();
void RegisterS8Benchmarks();
void RegisterPeerBenchmarks();
void RegisterPeerS8Benchmarks();
void RegisterThreadBenchmarks();
void RegisterEigenThreadBenchmarks();
// int8 SDPA at the default kernel level on an attn::ThreadPool of `threads`
// (bench_s8.cpp, x86 only: registers nothing elsewhere).
void RegisterS8ThreadBenchmarks(int32_t threads);
void RegisterDecodeBenchmarks();
// FMA rate with loads interleaved (bench_fma_loads.cpp; AVX-512 builds only).
void RegisterFmaLoadBenchmarks();

}  // namespace attn_bench
