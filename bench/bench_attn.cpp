// attn benchmarks (Google Benchmark): the float ops on this build's backend
// (ATTN_SIMD), an Eigen 3.4 peer for each in the same binary, the core's FMA
// peak, and the softmax / dot / tile kernels of every compiled backend.
//
// Counters: GFLOPS (4 Sq Skv d for SDPA; see each benchmark), pct_peak (of the
// FMA-peak benchmark's rate, measured at start-up), ns_per_elem for softmax.
// The ratio to the peer is time(Eigen) / time(attn) of the same-named pair;
// tools/plot_bench.py prints it from the JSON output.
//
//   attn_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//              --benchmark_out=bench.json --benchmark_out_format=json
#include <benchmark/benchmark.h>

#include <Eigen/Dense>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "aligned_vector.h"
#include "attn/attn.h"
#include "kernels/kernels_f32.h"
#if ATTN_BENCH_HAVE_HWY
#include "kernels/hwy/kernels_f32_hwy.h"
#endif
#if ATTN_BENCH_HAVE_XSIMD
#include "kernels/xsimd/kernels_f32_xsimd.h"
#endif

namespace {

using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MapC = Eigen::Map<const RowMat>;
using MapM = Eigen::Map<RowMat>;
using VecF = Eigen::Matrix<float, Eigen::Dynamic, 1>;

using FVec = attn_bench::AlignedVec<float>;

std::size_t Z(int64_t i) { return static_cast<std::size_t>(i); }

FVec Random(std::size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  FVec v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

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
typedef float VecT __attribute__((vector_size(kVecBytes)));
constexpr int kChains = 16;
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
  return out;
}
#if defined(__AVX512F__)
constexpr double kFmaPerRep = 16;
#else
constexpr double kFmaPerRep = 14;
#endif
#else
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
    __asm__ volatile("" : "+w"(acc[0]), "+w"(acc[1]), "+w"(acc[2]), "+w"(acc[3]),
                     "+w"(acc[4]), "+w"(acc[5]), "+w"(acc[6]), "+w"(acc[7]));
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

double g_peak_flops = 1.0;

void SetFlops(benchmark::State& st, double flops_per_iter) {
  st.counters["GFLOPS"] =
      benchmark::Counter(flops_per_iter * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  st.counters["pct_peak"] = benchmark::Counter(flops_per_iter * 100.0 / g_peak_flops,
                                               benchmark::Counter::kIsIterationInvariantRate);
}

void BM_FmaPeak(benchmark::State& st) {
  for (auto _ : st) benchmark::DoNotOptimize(FmaLoop(kFmaInner, 0.999f, 1e-3f));
  SetFlops(st, kFlopsPerRep * kFmaInner);
}
BENCHMARK(BM_FmaPeak);

// ---------------------------------------------------------------- softmax
// Eigen peer: softmax of each row in place.
void EigenSoftmaxRows(MapM s) {
  for (Eigen::Index i = 0; i < s.rows(); ++i) {
    auto r = s.row(i);
    const float m = r.maxCoeff();
    r = (r.array() - m).exp();
    r *= 1.0f / r.sum();
  }
}

// ---------------------------------------------------------------- SDPA
struct SdpaData {
  SdpaData(int32_t sq, int32_t skv, int32_t d)
      : q(Random(Z(sq) * Z(d), 1)), k(Random(Z(skv) * Z(d), 2)), v(Random(Z(skv) * Z(d), 3)),
        out(Z(sq) * Z(d)), shape{1, sq, skv, d, d},
        scratch(attn::sdpa_f32_scratch_bytes(shape)) {}
  FVec q, k, v, out;
  attn::SdpaShape shape;
  attn_bench::AlignedVec<unsigned char> scratch;
};

void BM_Sdpa_attn(benchmark::State& st, int32_t sq, int32_t skv) {
  const int32_t d = 64;
  SdpaData x(sq, skv, d);
  attn::SdpaF32Args args;
  args.q = x.q.data();
  args.k = x.k.data();
  args.v = x.v.data();
  args.out = x.out.data();
  for (auto _ : st) {
    const attn::Status s = attn::sdpa_f32(x.shape, args, {x.scratch.data(), x.scratch.size()});
    benchmark::DoNotOptimize(s);
    benchmark::ClobberMemory();
  }
  SetFlops(st, 4.0 * sq * skv * d);
}

// The careful Eigen peer: scale folded into Q, one GEMM for the scores,
// per-row in-place softmax, one GEMM for the output, all products noalias and
// every buffer allocated once outside the timed loop.
void BM_Sdpa_eigen(benchmark::State& st, int32_t sq, int32_t skv) {
  const int32_t d = 64;
  SdpaData x(sq, skv, d);
  MapC q(x.q.data(), sq, d), k(x.k.data(), skv, d), v(x.v.data(), skv, d);
  MapM out(x.out.data(), sq, d);
  RowMat qs(sq, d), s(sq, skv);
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  for (auto _ : st) {
    qs.noalias() = q * scale;
    s.noalias() = qs * k.transpose();
    EigenSoftmaxRows(MapM(s.data(), sq, skv));
    out.noalias() = s * v;
    benchmark::ClobberMemory();
  }
  SetFlops(st, 4.0 * sq * skv * d);
}

// ---------------------------------------------------------------- MHA
struct MhaData {
  MhaData(int32_t e, int32_t h, int32_t s)
      : x(Random(Z(s) * Z(e), 4)), w_in(Random(3 * Z(e) * Z(e), 5, -0.2f, 0.2f)),
        b_in(Random(3 * Z(e), 6)), w_out(Random(Z(e) * Z(e), 7, -0.2f, 0.2f)),
        b_out(Random(Z(e), 8)), out(Z(s) * Z(e)), shape{1, s, s, e, h, 0, 0},
        scratch(attn::mha_f32_scratch_bytes(shape)) {}
  FVec x, w_in, b_in, w_out, b_out, out;
  attn::MhaShape shape;
  attn_bench::AlignedVec<unsigned char> scratch;
};

double MhaFlops(int32_t e, int32_t s) { return 8.0 * s * e * e + 4.0 * s * s * e; }

void BM_Mha_attn(benchmark::State& st, int32_t e, int32_t h, int32_t s) {
  MhaData m(e, h, s);
  attn::MhaF32Weights w;
  w.in_proj_weight = m.w_in.data();
  w.in_proj_bias = m.b_in.data();
  w.out_proj_weight = m.w_out.data();
  w.out_proj_bias = m.b_out.data();
  attn::MhaF32Args a;
  a.query = a.key = a.value = m.x.data();
  a.out = m.out.data();
  for (auto _ : st) {
    benchmark::DoNotOptimize(attn::mha_f32(m.shape, w, a, {m.scratch.data(), m.scratch.size()}));
    benchmark::ClobberMemory();
  }
  SetFlops(st, MhaFlops(e, s));
}

void BM_Mha_eigen(benchmark::State& st, int32_t e, int32_t h, int32_t s) {
  MhaData m(e, h, s);
  const int32_t hd = e / h;
  MapC x(m.x.data(), s, e), w_in(m.w_in.data(), 3 * e, e), w_out(m.w_out.data(), e, e);
  Eigen::Map<const Eigen::RowVectorXf> b_in(m.b_in.data(), 3 * e), b_out(m.b_out.data(), e);
  MapM out(m.out.data(), s, e);
  RowMat qkv(s, 3 * e), heads(s, e), sc(s, s);
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  for (auto _ : st) {
    qkv.noalias() = x * w_in.transpose();
    qkv.rowwise() += b_in;
    qkv.leftCols(e) *= scale;
    for (int32_t hh = 0; hh < h; ++hh) {
      sc.noalias() = qkv.middleCols(hh * hd, hd) * qkv.middleCols(e + hh * hd, hd).transpose();
      EigenSoftmaxRows(MapM(sc.data(), s, s));
      heads.middleCols(hh * hd, hd).noalias() = sc * qkv.middleCols(2 * e + hh * hd, hd);
    }
    out.noalias() = heads * w_out.transpose();
    out.rowwise() += b_out;
    benchmark::ClobberMemory();
  }
  SetFlops(st, MhaFlops(e, s));
}

// ---------------------------------------------------------------- Bahdanau / Luong
constexpr int32_t kT = 128, kD = 128;

struct Seq2SeqData {
  Seq2SeqData()
      : query(Random(Z(kD), 9)), keys(Random(Z(kT) * Z(kD), 10)),
        w1(Random(Z(kD) * Z(kD), 11, -0.1f, 0.1f)), w2(Random(Z(kD) * Z(kD), 12, -0.1f, 0.1f)),
        b(Random(Z(kD), 13)), vv(Random(Z(kD), 14)), context(Z(kD)), weights(Z(kT)),
        scratch(1 << 16) {}
  FVec query, keys, w1, w2, b, vv, context, weights;
  attn_bench::AlignedVec<unsigned char> scratch;
};

double BahdanauFlops() { return 2.0 * kT * kD * kD + 2.0 * kD * kD + 4.0 * kT * kD; }

void BM_Bahdanau_attn(benchmark::State& st) {
  Seq2SeqData x;
  attn::BahdanauShape shape{1, kT, kD, kD, kD};
  attn::BahdanauF32Weights w{x.w1.data(), x.b.data(), x.w2.data(), x.b.data(), x.vv.data(), 0.1f};
  attn::BahdanauF32Args a{x.query.data(), x.keys.data(), x.context.data(), x.weights.data(),
                          nullptr};
  for (auto _ : st) {
    benchmark::DoNotOptimize(attn::bahdanau_f32(shape, w, a, {x.scratch.data(), x.scratch.size()}));
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
  for (auto _ : st) {
    qp.noalias() = q * w1;
    qp += b + b;
    kp.noalias() = h * w2;
    kp.rowwise() += qp;
    kp = kp.array().tanh();
    e.noalias() = kp * v;
    e.array() += 0.1f;
    const float m = e.maxCoeff();
    e = (e.array() - m).exp();
    e *= 1.0f / e.sum();
    ctx.noalias() = e.transpose() * h;
    benchmark::ClobberMemory();
  }
  SetFlops(st, BahdanauFlops());
}

void BM_LuongDot_attn(benchmark::State& st) {
  Seq2SeqData x;
  attn::LuongF32Args a{x.query.data(), x.keys.data(), x.context.data(), x.weights.data(), nullptr};
  for (auto _ : st) {
    benchmark::DoNotOptimize(
        attn::luong_dot_f32({1, kT, kD}, a, {x.scratch.data(), x.scratch.size()}));
    benchmark::ClobberMemory();
  }
  SetFlops(st, 4.0 * kT * kD);
}

void BM_LuongDot_eigen(benchmark::State& st) {
  Seq2SeqData x;
  Eigen::Map<const VecF> q(x.query.data(), kD);
  MapC h(x.keys.data(), kT, kD);
  Eigen::Map<Eigen::RowVectorXf> ctx(x.context.data(), kD);
  Eigen::Map<VecF> e(x.weights.data(), kT);
  for (auto _ : st) {
    e.noalias() = h * q;
    const float m = e.maxCoeff();
    e = (e.array() - m).exp();
    e *= 1.0f / e.sum();
    ctx.noalias() = e.transpose() * h;
    benchmark::ClobberMemory();
  }
  SetFlops(st, 4.0 * kT * kD);
}

void BM_LuongGeneral_attn(benchmark::State& st) {
  Seq2SeqData x;
  attn::LuongGeneralF32Weights w{x.w1.data(), x.b.data()};
  attn::LuongF32Args a{x.query.data(), x.keys.data(), x.context.data(), x.weights.data(), nullptr};
  for (auto _ : st) {
    benchmark::DoNotOptimize(attn::luong_general_f32({1, kT, kD, kD}, w, a,
                                                     {x.scratch.data(), x.scratch.size()}));
    benchmark::ClobberMemory();
  }
  SetFlops(st, 2.0 * kD * kD + 4.0 * kT * kD);
}

void BM_LuongGeneral_eigen(benchmark::State& st) {
  Seq2SeqData x;
  Eigen::Map<const VecF> q(x.query.data(), kD);
  MapC h(x.keys.data(), kT, kD), w(x.w1.data(), kD, kD);
  Eigen::Map<Eigen::RowVectorXf> ctx(x.context.data(), kD);
  Eigen::Map<VecF> e(x.weights.data(), kT);
  VecF u(kD);
  for (auto _ : st) {
    u.noalias() = w * q;  // e_j = (W q) . h_j
    e.noalias() = h * u;
    const float m = e.maxCoeff();
    e = (e.array() - m).exp();
    e *= 1.0f / e.sum();
    ctx.noalias() = e.transpose() * h;
    benchmark::ClobberMemory();
  }
  SetFlops(st, 2.0 * kD * kD + 4.0 * kT * kD);
}

// ---------------------------------------------------------------- kernels
struct KernelSet {
  void (*softmax)(float*, int32_t);
  float (*dot)(const float*, const float*, int32_t);
  void (*qk_tile)(const float*, std::size_t, int32_t, const float*, std::size_t, int32_t, int32_t,
                  float*, std::size_t);
  void (*pv_tile)(const float*, std::size_t, int32_t, int32_t, const float*, std::size_t, int32_t,
                  float*, std::size_t);
  void (*qk_tile_t)(const float*, int32_t, int32_t, const float*, std::size_t, int32_t, float*);
  void (*softmax_t)(float*, int32_t, int32_t, float*, float*, int32_t, float*, std::size_t, int32_t);
  void (*pv_tile_t)(const float*, int32_t, int32_t, int32_t, const float*, std::size_t, int32_t,
                    float*, std::size_t);
};
#define ATTN_KERNEL_SET(ns)                                                                     \
  KernelSet {                                                                                   \
    &ns::softmax_f32, &ns::dot_f32, &ns::qk_tile_f32,                                          \
        &ns::pv_tile_f32, &ns::qk_tile_t_f32, &ns::softmax_t_f32, &ns::pv_tile_t_f32            \
  }

// Softmax of a [rows, n] score matrix, row by row, with the row kernel the
// SDPA core's row tiles use (softmax_f32: max, exp and sum, scale in one
// call). Reported per score element.
void BM_Softmax(benchmark::State& st, KernelSet k, int32_t rows, int32_t n) {
  // In place, over and over: the rows stay normalised probabilities after the
  // first pass, and the cost of exp does not depend on the values.
  FVec s = Random(Z(rows) * Z(n), 15, -8.0f, 8.0f);
  for (auto _ : st) {
    for (int32_t r = 0; r < rows; ++r) k.softmax(s.data() + Z(r) * Z(n), n);
    benchmark::ClobberMemory();
  }
  st.counters["ns_per_elem"] = benchmark::Counter(
      static_cast<double>(rows) * n * 1e-9,
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_Softmax_eigen(benchmark::State& st, int32_t rows, int32_t n) {
  FVec s = Random(Z(rows) * Z(n), 15, -8.0f, 8.0f);
  for (auto _ : st) {
    EigenSoftmaxRows(MapM(s.data(), rows, n));
    benchmark::ClobberMemory();
  }
  st.counters["ns_per_elem"] = benchmark::Counter(
      static_cast<double>(rows) * n * 1e-9,
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// One core tile: 8 queries x 64 keys x d = 64, scores then P.V.
void BM_QkTile(benchmark::State& st, KernelSet k) {
  const int32_t nq = 8, nk = 64, d = 64;
  FVec q = Random(Z(nq) * Z(d), 16), kk = Random(Z(nk) * Z(d), 17), s(Z(nq) * Z(nk));
  for (auto _ : st) {
    k.qk_tile(q.data(), Z(d), nq, kk.data(), Z(d), nk, d, s.data(), Z(nk));
    benchmark::ClobberMemory();
  }
  SetFlops(st, 2.0 * nq * nk * d);
}

void BM_PvTile(benchmark::State& st, KernelSet k) {
  const int32_t nq = 8, nk = 64, d = 64;
  FVec p = Random(Z(nq) * Z(nk), 18, 0.0f, 1.0f), v = Random(Z(nk) * Z(d), 19);
  FVec acc(Z(nq) * Z(d));
  for (auto _ : st) {
    k.pv_tile(p.data(), Z(nk), nq, nk, v.data(), Z(d), d, acc.data(), Z(d));
    benchmark::ClobberMemory();
  }
  SetFlops(st, 2.0 * nq * nk * d);
}

// The core's transposed tile: 16 queries x 64 keys x d = 64.
void BM_QkTileT(benchmark::State& st, KernelSet k, int32_t tq) {
  const int32_t nk = 64, d = 64;
  FVec qt = Random(Z(tq) * Z(d), 16), kk = Random(Z(nk) * Z(d), 17), s(Z(tq) * Z(nk));
  for (auto _ : st) {
    k.qk_tile_t(qt.data(), tq, d, kk.data(), Z(d), nk, s.data());
    benchmark::ClobberMemory();
  }
  SetFlops(st, 2.0 * tq * nk * d);
}

void BM_SoftmaxT(benchmark::State& st, KernelSet k) {
  const int32_t tq = 16, nk = 64, dv = 64;
  FVec src = Random(Z(tq) * Z(nk), 20, -4.0f, 4.0f), s(src.size());
  FVec m(Z(tq), 3.0f), l(Z(tq), 1.0f), acc = Random(Z(tq) * Z(dv), 21);
  s = src;
  for (auto _ : st) {  // in place: the exp's cost does not depend on the values
    k.softmax_t(s.data(), tq, nk, m.data(), l.data(), tq, acc.data(), Z(dv), dv);
    benchmark::ClobberMemory();
  }
  st.counters["ns_per_elem"] = benchmark::Counter(
      static_cast<double>(tq) * nk * 1e-9,
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_PvTileT(benchmark::State& st, KernelSet k) {
  const int32_t tq = 16, nk = 64, d = 64;
  FVec p = Random(Z(tq) * Z(nk), 18, 0.0f, 1.0f), v = Random(Z(nk) * Z(d), 19);
  FVec acc(Z(tq) * Z(d));
  for (auto _ : st) {
    k.pv_tile_t(p.data(), tq, tq, nk, v.data(), Z(d), d, acc.data(), Z(d));
    benchmark::ClobberMemory();
  }
  SetFlops(st, 2.0 * tq * nk * d);
}

void RegisterAll() {
  const std::string be = ATTN_BENCH_BACKEND;
  for (int32_t s : {16, 64, 256, 1024}) {
    benchmark::RegisterBenchmark(("SDPA_d64/attn_" + be + "/" + std::to_string(s)).c_str(),
                                 BM_Sdpa_attn, s, s);
    benchmark::RegisterBenchmark(("SDPA_d64/eigen/" + std::to_string(s)).c_str(), BM_Sdpa_eigen,
                                 s, s);
  }
  for (int32_t s : {64, 1024, 4096}) {
    benchmark::RegisterBenchmark(("Decode_d64/attn_" + be + "/" + std::to_string(s)).c_str(),
                                 BM_Sdpa_attn, 1, s);
    benchmark::RegisterBenchmark(("Decode_d64/eigen/" + std::to_string(s)).c_str(), BM_Sdpa_eigen,
                                 1, s);
  }
  for (auto eh : {std::pair<int32_t, int32_t>{64, 4}, std::pair<int32_t, int32_t>{256, 8}}) {
    for (int32_t s : {64, 256}) {
      const std::string tag = "MHA_E" + std::to_string(eh.first) + "_H" + std::to_string(eh.second);
      benchmark::RegisterBenchmark((tag + "/attn_" + be + "/" + std::to_string(s)).c_str(),
                                   BM_Mha_attn, eh.first, eh.second, s);
      benchmark::RegisterBenchmark((tag + "/eigen/" + std::to_string(s)).c_str(), BM_Mha_eigen,
                                   eh.first, eh.second, s);
    }
  }
  benchmark::RegisterBenchmark(("Bahdanau_T128_D128/attn_" + be).c_str(), BM_Bahdanau_attn);
  benchmark::RegisterBenchmark("Bahdanau_T128_D128/eigen", BM_Bahdanau_eigen);
  benchmark::RegisterBenchmark(("LuongDot_T128_D128/attn_" + be).c_str(), BM_LuongDot_attn);
  benchmark::RegisterBenchmark("LuongDot_T128_D128/eigen", BM_LuongDot_eigen);
  benchmark::RegisterBenchmark(("LuongGeneral_T128_D128/attn_" + be).c_str(), BM_LuongGeneral_attn);
  benchmark::RegisterBenchmark("LuongGeneral_T128_D128/eigen", BM_LuongGeneral_eigen);

  std::vector<std::pair<std::string, KernelSet>> sets = {{"ref", ATTN_KERNEL_SET(attn::ref)}};
#if ATTN_BENCH_HAVE_HWY
  sets.push_back({"hwy", ATTN_KERNEL_SET(attn::hwy)});
#endif
#if ATTN_BENCH_HAVE_XSIMD
  sets.push_back({"xsimd", ATTN_KERNEL_SET(attn::xsimd)});
#endif
  for (const auto& ks : sets) {
    for (int32_t n : {64, 1024}) {
      benchmark::RegisterBenchmark(("Softmax_rows64/" + ks.first + "/" + std::to_string(n)).c_str(),
                                   BM_Softmax, ks.second, 64, n);
    }
    benchmark::RegisterBenchmark(("QkTile_8x64x64/" + ks.first).c_str(), BM_QkTile, ks.second);
    benchmark::RegisterBenchmark(("PvTile_8x64x64/" + ks.first).c_str(), BM_PvTile, ks.second);
    benchmark::RegisterBenchmark(("QkTileT_16x64x64/" + ks.first).c_str(), BM_QkTileT, ks.second, 16);
    benchmark::RegisterBenchmark(("QkTileT_32x64x64/" + ks.first).c_str(), BM_QkTileT, ks.second, 32);
    benchmark::RegisterBenchmark(("SoftmaxT_16x64/" + ks.first).c_str(), BM_SoftmaxT, ks.second);
    benchmark::RegisterBenchmark(("PvTileT_16x64x64/" + ks.first).c_str(), BM_PvTileT, ks.second);
  }
  for (int32_t n : {64, 1024}) {
    benchmark::RegisterBenchmark(("Softmax_rows64/eigen/" + std::to_string(n)).c_str(),
                                 BM_Softmax_eigen, 64, n);
  }
}

}  // namespace

int main(int argc, char** argv) {
  g_peak_flops = MeasurePeakFlops();
  benchmark::AddCustomContext("fma_peak_gflops", std::to_string(g_peak_flops * 1e-9));
  benchmark::AddCustomContext("attn_backend", ATTN_BENCH_BACKEND);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
