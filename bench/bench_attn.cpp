// attn benchmarks (Google Benchmark): the float ops on this build's backend
// (ATTN_SIMD), an Eigen 3.4 peer for each in the same binary, the core's FMA
// peak; the softmax / tile kernels of every compiled backend
// (bench_kernels.cpp), the int8 SDPA per x86 level (bench_s8.cpp) and the
// threaded runs beside Eigen with its own threads (bench_threads.cpp).
//
// Counters: GFLOPS (4 Sq Skv d for SDPA; see each benchmark), pct_peak (of the
// FMA-peak benchmark's rate, measured at start-up), ns_per_elem for softmax.
// The ratio to the peer is time(Eigen) / time(attn) of the same-named pair;
// bench/plot_bench.py prints it from the JSON output.
//
// Before its timed loop every benchmark checks one call: its status and its
// output against a reference (bench_check.h); a failed check reports the
// benchmark as an error and makes attn_bench exit with status 1.
//
//   attn_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//              --benchmark_out=bench.json --benchmark_out_format=json
//   attn_bench --smoke      every benchmark for 3 iterations (the ctest)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <utility>

#include "attn/attn.h"
#include "attn/thread_pool.h"
#include "bench_check.h"
#include "bench_common.h"
#include "bench_mha_data.h"
#include "bench_sdpa_data.h"

namespace attn_bench {

bool& SmokeMode() {
  static bool smoke = false;
  return smoke;
}

namespace {
double g_peak_flops = 1.0;
}  // namespace

void SetFlops(benchmark::State& st, double flops_per_iter) {
  st.counters["GFLOPS"] =
      benchmark::Counter(flops_per_iter * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  st.counters["pct_peak"] = benchmark::Counter(flops_per_iter * 100.0 / g_peak_flops,
                                               benchmark::Counter::kIsIterationInvariantRate);
}

namespace {

// ---------------------------------------------------------------- FMA peak
// Independent accumulators in the widest vector the compile flags allow (GCC
// vector extensions compile to vfmadd231ps / fmla); 16 chains cover the FMA
// latency x throughput of current cores.
#if defined(__AVX512F__)
constexpr int kVecBytes = 64;
#elif defined(__AVX__)
constexpr int kVecBytes = 32;
#else
constexpr int kVecBytes = 16;
#endif
constexpr int64_t kFmaInner = 1024;

#if defined(__x86_64__) && (defined(__AVX512F__) || defined(__AVX2__))
#if defined(__AVX512F__)
#define ATTN_FMA_REG(i) "%%zmm" #i
#define ATTN_FMA_SRC "%%zmm16, %%zmm17, "
#define ATTN_FMA_SETUP "vbroadcastss %1, %%zmm16\n vbroadcastss %2, %%zmm17\n"
#else
#define ATTN_FMA_REG(i) "%%ymm" #i
#define ATTN_FMA_SRC "%%ymm14, %%ymm15, "
#define ATTN_FMA_SETUP "vbroadcastss %1, %%ymm14\n vbroadcastss %2, %%ymm15\n"
#endif
#define ATTN_FMA(i) "vfmadd231ps " ATTN_FMA_SRC ATTN_FMA_REG(i) "\n"
// Inline asm: the compiler can neither spill nor fold the chains. AVX2 has 16
// registers, so 14 chains there (still above latency x throughput = 8).
__attribute__((noinline)) float FmaLoop(int64_t reps, float a, float b) {
  float out = 0.0f;
  // clang-format 14 staircases asm built from macros with #if inside:
  // clang-format off
  __asm__ volatile(
      ATTN_FMA_SETUP
      "vxorps %%xmm0, %%xmm0, %%xmm0\n"
      "1:\n" ATTN_FMA(0) ATTN_FMA(1) ATTN_FMA(2) ATTN_FMA(3) ATTN_FMA(4) ATTN_FMA(5)
      ATTN_FMA(6) ATTN_FMA(7) ATTN_FMA(8) ATTN_FMA(9) ATTN_FMA(10) ATTN_FMA(11)
      ATTN_FMA(12) ATTN_FMA(13)
#if defined(__AVX512F__)
      ATTN_FMA(14) ATTN_FMA(15)
#endif
      "dec %0\n"
      "jnz 1b\n"
      "vmovss %%xmm0, %3\n"
      : "+r"(reps)
      : "m"(a), "m"(b), "m"(out)
      : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
        "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",
#if defined(__AVX512F__)
        "xmm16", "xmm17",
#endif
        "cc", "memory");
  // clang-format on
  return out;
}
#if defined(__AVX512F__)
constexpr double kFmaPerRep = 16;
#else
constexpr double kFmaPerRep = 14;
#endif
#else
typedef float VecT __attribute__((vector_size(kVecBytes)));
constexpr int kChains = 16;
__attribute__((noinline)) float FmaLoop(int64_t reps, float a, float b) {
  VecT acc[kChains];
  VecT va, vb;
  for (int i = 0; i < kVecBytes / 4; ++i) {
    va[i] = a;
    vb[i] = b;
  }
  for (int c = 0; c < kChains; ++c) acc[c] = va * static_cast<float>(c);
  for (int64_t r = 0; r < reps; ++r) {
    for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * va + vb;
    __asm__ volatile(""
                     : "+w"(acc[0]), "+w"(acc[1]), "+w"(acc[2]), "+w"(acc[3]), "+w"(acc[4]),
                       "+w"(acc[5]), "+w"(acc[6]), "+w"(acc[7]));
  }
  float s = 0.0f;
  for (int c = 0; c < kChains; ++c) s += acc[c][0];
  return s;
}
constexpr double kFmaPerRep = kChains;
#endif
constexpr double kFlopsPerRep = 2.0 * kFmaPerRep * (kVecBytes / 4);

double MeasurePeakFlops() {
  double best = 0.0;
  for (int t = 0; t < 7; ++t) {
    // CPU time, as the benchmarks' rates (the machine may be shared).
    timespec t0{}, t1{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    benchmark::DoNotOptimize(FmaLoop(kFmaInner * 256, 0.999f, 1e-3f));
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    const double s = static_cast<double>(t1.tv_sec - t0.tv_sec) +
                     1e-9 * static_cast<double>(t1.tv_nsec - t0.tv_nsec);
    best = std::max(best, kFlopsPerRep * kFmaInner * 256 / s);
  }
  return best;
}

void BM_FmaPeak(benchmark::State& st) {
  for (auto _ : st) benchmark::DoNotOptimize(FmaLoop(kFmaInner, 0.999f, 1e-3f));
  SetFlops(st, kFlopsPerRep * kFmaInner);
}

// ---------------------------------------------------------------- SDPA
// threads 0: no executor (the serial op); else an attn::ThreadPool of that
// many workers, built outside the timed loop.
void BM_Sdpa_attn(benchmark::State& st, int32_t sq, int32_t skv, int32_t d, int32_t threads) {
  SdpaData x(sq, skv, d, threads < 1 ? 1 : threads);
  attn::ThreadPool pool(threads < 1 ? 1 : threads);
  attn::SdpaF32Args args;
  args.q = x.q.data();
  args.k = x.k.data();
  args.v = x.v.data();
  args.out = x.out.data();
  if (threads > 0) args.executor = pool.executor();
  const auto run = [&] {
    return attn::sdpa_f32(x.shape, args, {x.scratch.data(), x.scratch.size()});
  };
  if (!CheckStatus(st, run()) || !CheckClose(st, "out", x.out.data(), x.expected())) return;
  for (auto _ : st) {
    benchmark::DoNotOptimize(run());
    benchmark::ClobberMemory();
  }
  SetFlops(st, 4.0 * sq * skv * x.shape.dim_k);
}

// The careful Eigen peer: scale folded into Q, one GEMM for the scores,
// per-row in-place softmax, one GEMM for the output, all products noalias and
// every buffer allocated once outside the timed loop.
void BM_Sdpa_eigen(benchmark::State& st, int32_t sq, int32_t skv, int32_t d) {
  SdpaData x(sq, skv, d);
  MapC q(x.q.data(), sq, d), k(x.k.data(), skv, d), v(x.v.data(), skv, d);
  MapM out(x.out.data(), sq, d);
  RowMat qs(sq, d), s(sq, skv);
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  const auto run = [&] {
    qs.noalias() = q * scale;
    s.noalias() = qs * k.transpose();
    EigenSoftmaxRows(MapM(s.data(), sq, skv));
    out.noalias() = s * v;
  };
  run();
  if (!CheckClose(st, "out", x.out.data(), x.expected())) return;
  for (auto _ : st) {
    run();
    benchmark::ClobberMemory();
  }
  SetFlops(st, 4.0 * sq * skv * d);
}

// ---------------------------------------------------------------- MHA
// threads 0: no executor (the serial op); else an attn::ThreadPool of that
// many workers, built outside the timed loop.
void BM_Mha_attn(benchmark::State& st, int32_t e, int32_t h, int32_t s, int32_t threads) {
  MhaData m(e, h, s, threads < 1 ? 1 : threads);
  attn::ThreadPool pool(threads < 1 ? 1 : threads);
  attn::MhaF32Weights w;
  w.in_proj_weight = m.w_in.data();
  w.in_proj_bias = m.b_in.data();
  w.out_proj_weight = m.w_out.data();
  w.out_proj_bias = m.b_out.data();
  attn::MhaF32Args a;
  a.query = a.key = a.value = m.x.data();
  a.out = m.out.data();
  if (threads > 0) a.executor = pool.executor();
  const auto run = [&] {
    return attn::mha_f32(m.shape, w, a, {m.scratch.data(), m.scratch.size()});
  };
  if (!CheckStatus(st, run()) || !CheckClose(st, "out", m.out.data(), m.expected())) return;
  for (auto _ : st) {
    benchmark::DoNotOptimize(run());
    benchmark::ClobberMemory();
  }
  SetFlops(st, MhaFlops(e, s));
}

void BM_Mha_eigen(benchmark::State& st, int32_t e, int32_t h, int32_t s) {
  MhaData m(e, h, s);
  FVec work = m.eigen_work();
  const auto run = [&] {
    EigenMha(m.x.data(), m.w_in.data(), m.b_in.data(), m.w_out.data(), m.b_out.data(), m.out.data(),
             s, e, h, work.data());
  };
  run();
  if (!CheckClose(st, "out", m.out.data(), m.expected())) return;
  for (auto _ : st) {
    run();
    benchmark::ClobberMemory();
  }
  SetFlops(st, MhaFlops(e, s));
}

// ---------------------------------------------------------------- Bahdanau / Luong
constexpr int32_t kT = 128, kD = 128;

// Bahdanau uses b for both of its biases; Luong general takes w1 as W [kD, kD].
struct Seq2SeqData {
  Seq2SeqData()
      : query(Random(Z(kD), 9)),
        keys(Random(Z(kT) * Z(kD), 10)),
        w1(Random(Z(kD) * Z(kD), 11, -0.1f, 0.1f)),
        w2(Random(Z(kD) * Z(kD), 12, -0.1f, 0.1f)),
        b(Random(Z(kD), 13)),
        vv(Random(Z(kD), 14)),
        context(Z(kD)),
        weights(Z(kT)),
        scratch(1 << 16) {}
  FVec query, keys, w1, w2, b, vv, context, weights;
  AlignedVec<unsigned char> scratch;
  attn::Scratch scr() { return {scratch.data(), scratch.size()}; }
  const Expected& bahdanau() const {
    return Memo("bahdanau", [&] {
      return BahdanauExpected(kT, kD, query.data(), keys.data(), w1.data(), b.data(), w2.data(),
                              b.data(), vv.data(), kBv);
    });
  }
  const Expected& luong(bool general) const {
    return Memo(general ? "luong_general" : "luong_dot", [&] {
      return LuongExpected(kT, kD, query.data(), keys.data(), general ? w1.data() : nullptr,
                           general ? b.data() : nullptr);
    });
  }
  static constexpr float kBv = 0.1f;
};

double BahdanauFlops() { return 2.0 * kT * kD * kD + 2.0 * kD * kD + 4.0 * kT * kD; }

void BM_Bahdanau_attn(benchmark::State& st) {
  Seq2SeqData x;
  attn::BahdanauShape shape{1, kT, kD, kD, kD};
  attn::BahdanauF32Weights w{x.w1.data(), x.b.data(),  x.w2.data(),
                             x.b.data(),  x.vv.data(), Seq2SeqData::kBv};
  attn::BahdanauF32Args a{x.query.data(), x.keys.data(), x.context.data(), x.weights.data(),
                          nullptr};
  const auto run = [&] { return attn::bahdanau_f32(shape, w, a, x.scr()); };
  if (!CheckStatus(st, run()) || !CheckClose(st, "context", x.context.data(), x.bahdanau())) return;
  for (auto _ : st) {
    benchmark::DoNotOptimize(run());
    benchmark::ClobberMemory();
  }
  SetFlops(st, BahdanauFlops());
}

void BM_Bahdanau_eigen(benchmark::State& st) {
  Seq2SeqData x;
  Eigen::Map<const Eigen::RowVectorXf> q(x.query.data(), kD), b(x.b.data(), kD);
  Eigen::Map<const VecF> v(x.vv.data(), kD);
  MapC h(x.keys.data(), kT, kD), w1(x.w1.data(), kD, kD), w2(x.w2.data(), kD, kD);
  Eigen::Map<Eigen::RowVectorXf> ctx(x.context.data(), kD);
  Eigen::Map<VecF> e(x.weights.data(), kT);
  Eigen::RowVectorXf qp(kD);
  RowMat kp(kT, kD);
  const auto run = [&] {
    qp.noalias() = q * w1;
    qp += b + b;
    kp.noalias() = h * w2;
    kp.rowwise() += qp;
    kp = kp.array().tanh();
    e.noalias() = kp * v;
    e.array() += Seq2SeqData::kBv;
    const float m = e.maxCoeff();
    e = (e.array() - m).exp();
    e *= 1.0f / e.sum();
    ctx.noalias() = e.transpose() * h;
  };
  run();
  if (!CheckClose(st, "context", x.context.data(), x.bahdanau())) return;
  for (auto _ : st) {
    run();
    benchmark::ClobberMemory();
  }
  SetFlops(st, BahdanauFlops());
}

void BM_LuongDot_attn(benchmark::State& st) {
  Seq2SeqData x;
  attn::LuongF32Args a{x.query.data(), x.keys.data(), x.context.data(), x.weights.data(), nullptr};
  const auto run = [&] { return attn::luong_dot_f32({1, kT, kD}, a, x.scr()); };
  if (!CheckStatus(st, run()) || !CheckClose(st, "context", x.context.data(), x.luong(false))) {
    return;
  }
  for (auto _ : st) {
    benchmark::DoNotOptimize(run());
    benchmark::ClobberMemory();
  }
  SetFlops(st, 4.0 * kT * kD);
}

// The Luong peers: e = H u, softmax, context = e^T H; u = q (dot) or W q
// (general: e_j = (W q) . h_j).
void LuongEigen(benchmark::State& st, bool general) {
  Seq2SeqData x;
  Eigen::Map<const VecF> q(x.query.data(), kD);
  MapC h(x.keys.data(), kT, kD), w(x.w1.data(), kD, kD);
  Eigen::Map<Eigen::RowVectorXf> ctx(x.context.data(), kD);
  Eigen::Map<VecF> e(x.weights.data(), kT);
  VecF u(kD);
  const auto run = [&] {
    if (general) {
      u.noalias() = w * q;
      e.noalias() = h * u;
    } else {
      e.noalias() = h * q;
    }
    const float m = e.maxCoeff();
    e = (e.array() - m).exp();
    e *= 1.0f / e.sum();
    ctx.noalias() = e.transpose() * h;
  };
  run();
  if (!CheckClose(st, "context", x.context.data(), x.luong(general))) return;
  for (auto _ : st) {
    run();
    benchmark::ClobberMemory();
  }
  SetFlops(st, (general ? 2.0 * kD * kD : 0.0) + 4.0 * kT * kD);
}

void BM_LuongDot_eigen(benchmark::State& st) { LuongEigen(st, false); }

void BM_LuongGeneral_attn(benchmark::State& st) {
  Seq2SeqData x;
  attn::LuongGeneralF32Weights w{x.w1.data(), x.b.data()};
  attn::LuongF32Args a{x.query.data(), x.keys.data(), x.context.data(), x.weights.data(), nullptr};
  const auto run = [&] { return attn::luong_general_f32({1, kT, kD, kD}, w, a, x.scr()); };
  if (!CheckStatus(st, run()) || !CheckClose(st, "context", x.context.data(), x.luong(true))) {
    return;
  }
  for (auto _ : st) {
    benchmark::DoNotOptimize(run());
    benchmark::ClobberMemory();
  }
  SetFlops(st, 2.0 * kD * kD + 4.0 * kT * kD);
}

void BM_LuongGeneral_eigen(benchmark::State& st) { LuongEigen(st, true); }

void RegisterOps() {
  Register("BM_FmaPeak", BM_FmaPeak);  // the name the stored results use
  RegisterFmaLoadBenchmarks();
  const std::string be = ATTN_BENCH_BACKEND;
  for (const SdpaCase& c : SdpaCases()) {
    Register(c.family + "/attn_" + be + "/" + std::to_string(c.skv), BM_Sdpa_attn, c.sq, c.skv, c.d,
             0);
    Register(c.family + "/eigen/" + std::to_string(c.skv), BM_Sdpa_eigen, c.sq, c.skv, c.d);
  }
  for (auto eh : {std::pair<int32_t, int32_t>{64, 4}, std::pair<int32_t, int32_t>{256, 8}}) {
    for (int32_t s : {64, 256}) {
      const std::string tag = "MHA_E" + std::to_string(eh.first) + "_H" + std::to_string(eh.second);
      Register(tag + "/attn_" + be + "/" + std::to_string(s), BM_Mha_attn, eh.first, eh.second, s,
               0);
      Register(tag + "/eigen/" + std::to_string(s), BM_Mha_eigen, eh.first, eh.second, s);
    }
  }
  Register("Bahdanau_T128_D128/attn_" + be, BM_Bahdanau_attn);
  Register("Bahdanau_T128_D128/eigen", BM_Bahdanau_eigen);
  Register("LuongDot_T128_D128/attn_" + be, BM_LuongDot_attn);
  Register("LuongDot_T128_D128/eigen", BM_LuongDot_eigen);
  Register("LuongGeneral_T128_D128/attn_" + be, BM_LuongGeneral_attn);
  Register("LuongGeneral_T128_D128/eigen", BM_LuongGeneral_eigen);
}

}  // namespace

// The threaded rows, in wall-clock time (UseRealTime: CPU time would count
// the calling thread only): SDPA L = 1024 (query-tile split), decode 1 x 4096
// (key-range split), MHA E = 256, H = 8, L = 256 (projection rows, (head,
// tile) tasks, output rows), int8 SDPA L = 1024 and int8 decode 1 x 4095
// (x86) on an attn::ThreadPool of 1 and 2 workers, beside the Eigen peers
// with Eigen's own threads (1 and 2).
void RegisterThreadBenchmarks() {
  const std::string be = ATTN_BENCH_BACKEND;
  for (int32_t t : {1, 2}) {
    const std::string threads = "/threads:" + std::to_string(t);
    Register("Threads_SDPA_d64_1024/attn_" + be + threads, BM_Sdpa_attn, 1024, 1024, 64, t)
        ->UseRealTime();
    Register("Threads_Decode_d64_4096/attn_" + be + threads, BM_Sdpa_attn, 1, 4096, 64, t)
        ->UseRealTime();
    Register("Threads_MHA_E256_H8_256/attn_" + be + threads, BM_Mha_attn, 256, 8, 256, t)
        ->UseRealTime();
    RegisterS8ThreadBenchmarks(t);
  }
  RegisterEigenThreadBenchmarks();
}

}  // namespace attn_bench

int main(int argc, char** argv) {
  using namespace attn_bench;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) {
      SmokeMode() = true;
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  g_peak_flops = MeasurePeakFlops();
  benchmark::AddCustomContext("fma_peak_gflops", std::to_string(g_peak_flops * 1e-9));
  benchmark::AddCustomContext("attn_backend", ATTN_BENCH_BACKEND);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RegisterOps();
  RegisterKernelBenchmarks();
  RegisterS8Benchmarks();
  RegisterPeerBenchmarks();
  RegisterPeerS8Benchmarks();
  RegisterThreadBenchmarks();
  RegisterDecodeBenchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::printf("attn_bench: %d checks, %d failed\n", CheckCount(), FailureCount());
  return FailureCount() == 0 ? 0 : 1;
}
