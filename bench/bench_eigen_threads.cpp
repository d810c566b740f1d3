// The Eigen SDPA peer with Eigen's own threads: this object alone is built
// without EIGEN_DONT_PARALLELIZE and with OpenMP (Eigen parallelises its GEMM
// through OpenMP), and Eigen::setNbThreads(1 or 2) selects the threads.
// Rows Threads_SDPA_d64_1024/eigen/threads:N and
// Threads_Decode_d64_4096/eigen/threads:N, wall-clock time.
//
// Every other object of attn_bench sees Eigen single-threaded. The inline
// Eigen functions that differ between the two settings (the GEMM's parallel
// driver) are instantiated here on 64-byte-aligned maps, types the other
// objects do not use, so no object gets the other's instantiation; the
// thread count Eigen reports is checked, and reset to 1 after each run.
#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <string>

#include "bench_check.h"
#include "bench_common.h"
#include "bench_sdpa_data.h"

#if !defined(_OPENMP) || defined(EIGEN_DONT_PARALLELIZE)
#error "bench_eigen_threads.cpp needs OpenMP and Eigen's parallel GEMM"
#endif

namespace attn_bench {
namespace {

using AMap = Eigen::Map<RowMat, Eigen::Aligned64>;
using ACMap = Eigen::Map<const RowMat, Eigen::Aligned64>;

void BM_Sdpa_eigen_threads(benchmark::State& st, int32_t sq, int32_t skv, int threads) {
  const int32_t d = 64;
  SdpaData x(sq, skv, d);
  FVec qs_buf(Z(sq) * Z(d)), s_buf(Z(sq) * Z(skv));
  ACMap q(x.q.data(), sq, d), k(x.k.data(), skv, d), v(x.v.data(), skv, d);
  AMap out(x.out.data(), sq, d), qs(qs_buf.data(), sq, d), s(s_buf.data(), sq, skv);
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  const auto run = [&] {
    qs.noalias() = q * scale;
    s.noalias() = qs * k.transpose();
    EigenSoftmaxRows(MapM(s.data(), sq, skv));
    out.noalias() = s * v;
  };
  Eigen::setNbThreads(threads);
  if (Eigen::nbThreads() != threads) {
    Fail(st, "Eigen::setNbThreads(" + std::to_string(threads) + ") left " +
                 std::to_string(Eigen::nbThreads()) + " threads");
  } else {
    run();
    if (CheckClose(st, "out", x.out.data(), x.expected())) {
      for (auto _ : st) {
        run();
        benchmark::ClobberMemory();
      }
      SetFlops(st, 4.0 * sq * skv * d);
    }
  }
  Eigen::setNbThreads(1);
}

}  // namespace

void RegisterEigenThreadBenchmarks() {
  Eigen::setNbThreads(1);  // OpenMP's default would be every core
  for (int t : {1, 2}) {
    const std::string threads = "/threads:" + std::to_string(t);
    Register("Threads_SDPA_d64_1024/eigen" + threads, BM_Sdpa_eigen_threads, 1024, 1024, t)
        ->UseRealTime();
    Register("Threads_Decode_d64_4096/eigen" + threads, BM_Sdpa_eigen_threads, 1, 4096, t)
        ->UseRealTime();
  }
}

}  // namespace attn_bench
