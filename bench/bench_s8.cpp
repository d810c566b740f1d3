// int8 SDPA benchmarks, linked into attn_bench beside the float ones so the
// two run in the same process: SDPA_d64/attn_s8_<level>/<L> for every x86
// int8 kernel level the CPU supports (level "best" is what the ops use by
// default), the same shapes as SDPA_d64/attn_<backend>/<L>.
//
// Counters: GOPS (4 Sq Skv d integer ops, as the float GFLOPS), pct_vnni_peak
// (of the vpdpbusd peak of the level's own vector width, measured at start-up
// on this core: 2 x 64 ops per 512-bit vpdpbusd for avx512-vnni, 2 x 32 per
// 256-bit VEX vpdpbusd for avx-vnni; the avx2 and scalar levels, which have
// no vpdpbusd, against the widest one).
//
// Each level's output of one call is checked bit for bit against the
// portable scalar level's output on the same inputs.
#include <algorithm>
#include <cstdint>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "attn/sdpa_s8.h"
#include "attn/thread_pool.h"
#include "bench_check.h"
#include "bench_common.h"
#include "kernels/s8/kernels_s8.h"

namespace attn_bench {
#if defined(ATTN_S8_KERNELS_X86)
namespace {

// 16 independent vpdpbusd chains (latency x throughput of current cores);
// inline asm so nothing is folded or spilled.
__attribute__((noinline, target("avx512f,avx512vnni"))) void VnniLoop512(int64_t reps) {
  __asm__ volatile(
      "vpternlogd $0xff, %%zmm16, %%zmm16, %%zmm16\n"
      "vpxord %%zmm17, %%zmm17, %%zmm17\n"
      "1:\n"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm0\n vpdpbusd %%zmm16, %%zmm17, %%zmm1\n"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm2\n vpdpbusd %%zmm16, %%zmm17, %%zmm3\n"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm4\n vpdpbusd %%zmm16, %%zmm17, %%zmm5\n"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm6\n vpdpbusd %%zmm16, %%zmm17, %%zmm7\n"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm8\n vpdpbusd %%zmm16, %%zmm17, %%zmm9\n"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm10\n vpdpbusd %%zmm16, %%zmm17, %%zmm11\n"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm12\n vpdpbusd %%zmm16, %%zmm17, %%zmm13\n"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm14\n vpdpbusd %%zmm16, %%zmm17, %%zmm15\n"
      "dec %0\n"
      "jnz 1b\n"
      : "+r"(reps)
      :
      : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
        "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "cc");
}

__attribute__((noinline, target("avx2,avxvnni"))) void VnniLoop256(int64_t reps) {
  __asm__ volatile(
      "vpcmpeqd %%ymm14, %%ymm14, %%ymm14\n"
      "vpxor %%ymm15, %%ymm15, %%ymm15\n"
      "1:\n"
      "%{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm0\n %{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm1\n"
      "%{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm2\n %{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm3\n"
      "%{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm4\n %{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm5\n"
      "%{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm6\n %{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm7\n"
      "%{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm8\n %{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm9\n"
      "%{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm10\n %{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm11\n"
      "%{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm12\n %{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm13\n"
      "dec %0\n"
      "jnz 1b\n"
      : "+r"(reps)
      :
      : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
        "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "cc");
}

// Integer ops per second of one vpdpbusd loop (best of 7 timed runs).
double PeakOps(void (*loop)(int64_t), double ops_per_rep) {
  const int64_t reps = 1 << 18;
  double best = 0.0;
  for (int t = 0; t < 7; ++t) {
    timespec t0{}, t1{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    loop(reps);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    const double s = static_cast<double>(t1.tv_sec - t0.tv_sec) +
                     1e-9 * static_cast<double>(t1.tv_nsec - t0.tv_nsec);
    best = std::max(best, ops_per_rep * static_cast<double>(reps) / s);
  }
  return best;
}

constexpr double kOps512 = 16.0 * 64 * 2;  // per VnniLoop512 rep
constexpr double kOps256 = 14.0 * 32 * 2;  // per VnniLoop256 rep

// The 512-bit and 256-bit vpdpbusd peaks (0: not on this CPU). Level 3 has
// both (AVX512_VNNI implies the EVEX ymm form; the asm uses the VEX form,
// which AVX-VNNI adds, so the 256-bit loop needs level 2, i.e. AVX-VNNI).
double g_vnni_peak512 = 0.0;
double g_vnni_peak256 = 0.0;

// The peak a level's pct_vnni_peak is computed against.
double PeakFor(int level) {
  if (level < 0) level = attn::detail::kernels_s8_level();
  if (level == 2 && g_vnni_peak256 > 0) return g_vnni_peak256;
  return g_vnni_peak512 > 0 ? g_vnni_peak512 : g_vnni_peak256;
}

void BM_VnniPeak(benchmark::State& st, bool wide) {
  for (auto _ : st) {
    if (wide) {
      VnniLoop512(1024);
    } else {
      VnniLoop256(1024);
    }
  }
  const double ops = (wide ? kOps512 : kOps256) * 1024;
  st.counters["GOPS"] =
      benchmark::Counter(ops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

AlignedVec<int8_t> RandomS8(std::size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-128, 127);
  AlignedVec<int8_t> v(n);
  for (auto& x : v) x = static_cast<int8_t>(d(rng));
  return v;
}

// level -1: the default (best) kernels. threads 0: no executor (the serial
// op); else an attn::ThreadPool of that many workers, built before the loop.
void BM_Sdpa_s8(benchmark::State& st, int level, int32_t sq, int32_t skv, int32_t threads) {
  const int32_t d = 64;
  const attn::SdpaShape shape{1, sq, skv, d, d};
  // Uniform codes over all of int8: Q and K of real standard deviation about
  // 1 (0.014 x 74, 0.012 x 74), so a d = 64 score has deviation about 7.4 and
  // the softmax logits (beta = 1/8) about 0.9, as in a trained model; the
  // scores' scale 0.2 holds +-3.4 deviations (0.05% of the scores saturate).
  // Scales that saturate most scores would leave the softmax's tables nearly
  // empty and measure a cheaper softmax than a model gets.
  attn::SdpaS8Quant quant;
  quant.q = {0.014f, 3};
  quant.k = {0.012f, -7};
  quant.v = {0.03f, 5};
  quant.scores = {0.2f, 2};
  quant.out = {0.02f, -4};
  attn::SdpaS8Params params;
  if (!CheckStatus(st, attn::sdpa_s8_prepare(shape, quant, &params))) return;
  const auto q = RandomS8(static_cast<std::size_t>(sq) * d, 1);
  const auto k = RandomS8(static_cast<std::size_t>(skv) * d, 2);
  const auto v = RandomS8(static_cast<std::size_t>(skv) * d, 3);
  AlignedVec<int8_t> out(static_cast<std::size_t>(sq) * d);
  AlignedVec<unsigned char> scratch(attn::sdpa_s8_scratch_bytes(shape, threads < 1 ? 1 : threads));
  attn::ThreadPool pool(threads < 1 ? 1 : threads);
  attn::SdpaS8Args args;
  args.q = q.data();
  args.k = k.data();
  args.v = v.data();
  args.out = out.data();
  if (threads > 0) args.executor = pool.executor();
  const auto run = [&] { return attn::sdpa_s8(params, args, {scratch.data(), scratch.size()}); };
  // The scalar level's output: the reference every level must give bit for bit.
  const Expected& want = Memo("sdpa_s8/" + std::to_string(sq) + "/" + std::to_string(skv), [&] {
    attn::detail::kernels_s8_select(0);
    const attn::Status s = run();
    Expected e;
    if (s == attn::Status::kOk) e.value.assign(out.begin(), out.end());
    return e;
  });
  attn::detail::kernels_s8_select(level);
  if (want.value.empty()) {
    Fail(st, "the scalar level's reference run failed");
  } else if (CheckStatus(st, run()) && CheckExact(st, "out", out.data(), want)) {
    for (auto _ : st) {
      benchmark::DoNotOptimize(run());
      benchmark::ClobberMemory();
    }
  }
  attn::detail::kernels_s8_select(-1);
  const double ops = 4.0 * sq * skv * d;
  st.counters["GOPS"] =
      benchmark::Counter(ops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  const double peak = PeakFor(level);
  if (peak > 0) {
    st.counters["pct_vnni_peak"] =
        benchmark::Counter(ops * 100.0 / peak, benchmark::Counter::kIsIterationInvariantRate);
  }
}

}  // namespace

void RegisterS8ThreadBenchmarks(int32_t threads) {
  const std::string suffix = "/attn_s8/threads:" + std::to_string(threads);
  Register("Threads_SDPA_s8_d64_1024" + suffix, BM_Sdpa_s8, -1, 1024, 1024, threads)->UseRealTime();
  // 4095: the int8 softmax's column limit; the key-range split.
  Register("Threads_Decode_s8_d64_4095" + suffix, BM_Sdpa_s8, -1, 1, 4095, threads)->UseRealTime();
}

void RegisterS8Benchmarks() {
  if (attn::detail::kernels_s8_supported(3)) {
    g_vnni_peak512 = PeakOps(VnniLoop512, kOps512);
    benchmark::AddCustomContext("vnni_peak_gops", std::to_string(g_vnni_peak512 * 1e-9));
    Register("VnniPeak", BM_VnniPeak, true);
  }
  if (attn::detail::kernels_s8_supported(2)) {
    g_vnni_peak256 = PeakOps(VnniLoop256, kOps256);
    benchmark::AddCustomContext("vnni256_peak_gops", std::to_string(g_vnni_peak256 * 1e-9));
    Register("VnniPeak256", BM_VnniPeak, false);
  }
  for (int32_t s : {16, 64, 256, 1024}) {
    for (int level = 3; level >= 0; --level) {
      if (!attn::detail::kernels_s8_supported(level)) continue;
      const std::string name = std::string("SDPA_d64/attn_s8_") +
                               attn::detail::kernels_s8_level_name(level) + "/" + std::to_string(s);
      Register(name, BM_Sdpa_s8, level, s, s, 0);
    }
  }
  for (int32_t s : {1024, 4095}) {  // 4095: the int8 softmax's column limit
    for (int level = 3; level >= 0; --level) {
      if (!attn::detail::kernels_s8_supported(level)) continue;
      const std::string name = std::string("Decode_d64/attn_s8_") +
                               attn::detail::kernels_s8_level_name(level) + "/" + std::to_string(s);
      Register(name, BM_Sdpa_s8, level, 1, s, 0);
    }
  }
}
#else
void RegisterS8Benchmarks() {}  // the x86 kernel levels only
void RegisterS8ThreadBenchmarks(int32_t) {}
#endif  // ATTN_S8_KERNELS_X86
}  // namespace attn_bench
