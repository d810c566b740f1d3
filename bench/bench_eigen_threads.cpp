// Rows Threads_SDPA_d64_1024/eigen/threads:N,
// Threads_Decode_d64_4096/eigen/threads:N and
// Threads_MHA_E256_H8_256/eigen/threads:N (wall-clock time): the Eigen SDPA
// and MHA peers on Eigen's own OpenMP threads, from the isolated shared
// object of eigen_omp/ (why it is isolated: eigen_omp/eigen_sdpa_omp.h).
#include <cmath>
#include <cstdint>
#include <string>

#include "bench_check.h"
#include "bench_common.h"
#include "bench_mha_data.h"
#include "bench_sdpa_data.h"
#include "eigen_omp/eigen_sdpa_omp.h"

namespace attn_bench {
namespace {

// Runs `run` on Eigen's `threads` OpenMP threads: checked (out against
// `expected`) before the timed loop, Eigen back at 1 thread afterwards.
template <class Run>
void TimeOnEigenThreads(benchmark::State& st, int threads, const Run& run, const float* out,
                        const Expected& expected, double flops) {
  const int got = EigenOmpSetThreads(threads);
  if (got != threads) {
    Fail(st, "Eigen::setNbThreads(" + std::to_string(threads) + ") left " + std::to_string(got) +
                 " threads");
  } else {
    run();
    if (CheckClose(st, "out", out, expected)) {
      for (auto _ : st) {
        run();
        benchmark::ClobberMemory();
      }
      SetFlops(st, flops);
    }
  }
  EigenOmpSetThreads(1);
}

void BM_Sdpa_eigen_threads(benchmark::State& st, int32_t sq, int32_t skv, int threads) {
  const int32_t d = 64;
  SdpaData x(sq, skv, d);
  FVec work(Z(sq) * Z(d) + Z(sq) * Z(skv));
  const auto run = [&] {
    EigenOmpSdpa(x.q.data(), x.k.data(), x.v.data(), x.out.data(), sq, skv, d, work.data());
  };
  TimeOnEigenThreads(st, threads, run, x.out.data(), x.expected(), 4.0 * sq * skv * d);
}

void BM_Mha_eigen_threads(benchmark::State& st, int32_t e, int32_t h, int32_t s, int threads) {
  MhaData m(e, h, s);
  FVec work = m.eigen_work();
  const auto run = [&] {
    EigenOmpMha(m.x.data(), m.w_in.data(), m.b_in.data(), m.w_out.data(), m.b_out.data(),
                m.out.data(), s, e, h, work.data());
  };
  TimeOnEigenThreads(st, threads, run, m.out.data(), m.expected(), MhaFlops(e, s));
}

}  // namespace

void RegisterEigenThreadBenchmarks() {
  EigenOmpSetThreads(1);  // OpenMP's default would be every core
  for (int t : {1, 2}) {
    const std::string threads = "/threads:" + std::to_string(t);
    Register("Threads_SDPA_d64_1024/eigen" + threads, BM_Sdpa_eigen_threads, 1024, 1024, t)
        ->UseRealTime();
    Register("Threads_Decode_d64_4096/eigen" + threads, BM_Sdpa_eigen_threads, 1, 4096, t)
        ->UseRealTime();
    Register("Threads_MHA_E256_H8_256/eigen" + threads, BM_Mha_eigen_threads, 256, 8, 256, t)
        ->UseRealTime();
  }
}

}  // namespace attn_bench
