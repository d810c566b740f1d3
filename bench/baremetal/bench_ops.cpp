// On-device benchmark: each op on fixed shapes, one line per case.
//
//   bench <n> op=<op> shape=<shape> dtype=<f32|s8> cycles=<count|n/a> status=<ok|...>
//
// Each case runs once between the marker calls attn_bench_begin() and
// attn_bench_end(); under QEMU the TCG plugin tools/qemu-plugin/insn_count.c
// counts the instructions executed between them (region n of the plugin's
// output is case n; case 0 is an empty region: the markers' own overhead,
// which bench/baremetal/run_bench.py subtracts). On silicon the platform
// cycle counter is read around each case (DWT CYCCNT on Cortex-M, CNTVCT_EL0 on
// AArch64, rdtsc on x86-64); where it does not count (QEMU) "cycles=n/a".
//
// The same source builds for Linux targets (hosted platform layer), where the
// cycle count is the minimum over a few repetitions.
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "attn/attn.h"
#include "attn/luong_s8.h"
#include "attn/mha_s8.h"
#include "attn/platform.h"
#include "attn/sdpa_s8.h"
#include "bench_decode.h"
#if ATTN_BENCH_EIGEN
#include "eigen_peer.h"
#endif

volatile uint32_t g_marker;

// The markers: distinct bodies (so the compiler cannot fold them into one),
// never inlined, each a single translation block.
extern "C" __attribute__((noinline, used)) void attn_bench_begin(void) { g_marker = 1u; }
extern "C" __attribute__((noinline, used)) void attn_bench_end(void) { g_marker = 2u; }

namespace {

namespace pf = attn::platform;

#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
constexpr int32_t kMaxSeq = 128;
constexpr std::size_t kScratchBytes = 32 * 1024;
#else
// Linux images also run 256^2 x 64 (the int8 tiled core's packed K and V and
// its score tile take most of the scratch).
constexpr int32_t kMaxSeq = 256;
constexpr std::size_t kScratchBytes = 128 * 1024;
#endif
constexpr int32_t kD = 64;

float g_q[kMaxSeq * kD];
float g_k[kMaxSeq * kD];
float g_v[kMaxSeq * kD];
float g_w[4 * kD * kD];
float g_bias[4 * kD];
float g_out[kMaxSeq * kD];
alignas(64) unsigned char g_scratch[kScratchBytes];
int8_t g_q8[kMaxSeq * kD];
int8_t g_k8[kMaxSeq * kD];
int8_t g_v8[kMaxSeq * kD];
int8_t g_out8[kMaxSeq * kD];
attn::SdpaS8Params g_s8_params;
int8_t g_w8[4 * kD * kD];
float g_scales[4 * kD];
int32_t g_bias32[4 * kD];
attn::QuantizedMultiplier g_channels[4 * kD];
attn::MhaS8Params g_mha_s8;
attn::LuongS8Params g_luong_s8;
attn::BahdanauS8Params g_bahdanau_s8;
// Prepared encoder memory of the seq2seq steps (T = 64 keys, 64 units).
float g_memory[64 * kD];
int8_t g_memory8[64 * kD];

int g_case = 0;
#if ATTN_BENCH_EIGEN
const int32_t* g_eigen_case = nullptr;  // sq, skv, d of the running Eigen case
alignas(64) float g_eigen_work[kMaxSeq * kD + kMaxSeq * kMaxSeq];  // scaled Q, scores
#endif
int g_failed = 0;
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
constexpr int kRepeats = 1;
#else
constexpr int kRepeats = 5;
#endif

void fill(float* p, std::size_t n, uint32_t seed, float amplitude) {
  for (std::size_t i = 0; i < n; ++i) {
    seed ^= seed << 13;
    seed ^= seed >> 17;
    seed ^= seed << 5;
    p[i] = amplitude * (static_cast<float>(seed >> 8) * (1.0f / 8388608.0f) - 1.0f);
  }
}

// Runs `fn` once between the markers (the instruction-count region), then on
// hosted targets a few more times for the cycle count, and prints the line.
template <typename Fn>
void run_case(const char* op, const char* shape, const char* dtype, Fn fn) {
  const bool have_cycles = pf::cycle_counter_available();
  uint64_t best = 0;
  attn::Status st = attn::Status::kOk;
  for (int r = 0; r < kRepeats; ++r) {
    const uint64_t c0 = pf::cycles();
    if (r == 0) attn_bench_begin();
    const attn::Status s = fn();
    if (r == 0) attn_bench_end();
    const uint64_t c1 = pf::cycles();
    if (r == 0) st = s;
    if (r == 0 || c1 - c0 < best) best = c1 - c0;
  }
  if (st != attn::Status::kOk) ++g_failed;
  if (have_cycles) {
    pf::print("bench %d op=%s shape=%s dtype=%s cycles=%llu status=%s\n", g_case, op, shape, dtype,
              static_cast<unsigned long long>(best), attn::status_str(st));
  } else {
    pf::print("bench %d op=%s shape=%s dtype=%s cycles=n/a status=%s\n", g_case, op, shape, dtype,
              attn::status_str(st));
  }
  ++g_case;
}

attn::Scratch scratch() { return attn::Scratch{g_scratch, sizeof g_scratch}; }

attn::Status sdpa(int32_t sq, int32_t skv, bool causal, int32_t d = kD) {
  const attn::SdpaShape shape{1, sq, skv, d, d};
  attn::SdpaF32Args a;
  a.q = g_q;
  a.k = g_k;
  a.v = g_v;
  a.out = g_out;
  a.mask.causal = causal;
  return attn::sdpa_f32(shape, a, scratch());
}

// The shape is in g_s8_params (set by prepare_s8).
attn::Status sdpa_s8() {
  attn::SdpaS8Args a;
  a.q = g_q8;
  a.k = g_k8;
  a.v = g_v8;
  a.out = g_out8;
  return attn::sdpa_s8(g_s8_params, a, scratch());
}

// The issue-5 method CMSIS-NN's figures were measured with: zero points
// q=3, k=-7, v=5, scores=2, out=-4, beta = (float)(1/sqrt(d)).
attn::Status prepare_s8(int32_t sq, int32_t skv, int32_t d) {
  attn::SdpaS8Quant quant;
  quant.q = {0.02f, 3};
  quant.k = {0.02f, -7};
  quant.v = {0.02f, 5};
  quant.scores = {0.1f, 2};
  quant.out = {0.02f, -4};
  return attn::sdpa_s8_prepare({1, sq, skv, d, d}, quant, &g_s8_params);
}

}  // namespace

int main() {
  pf::write("attn benchmark\n");
  pf::print_cpu_report();
  fill(g_q, sizeof g_q / sizeof(float), 1u, 1.0f);
  fill(g_k, sizeof g_k / sizeof(float), 2u, 1.0f);
  fill(g_v, sizeof g_v / sizeof(float), 3u, 1.0f);
  fill(g_w, sizeof g_w / sizeof(float), 4u, 0.125f);
  fill(g_bias, sizeof g_bias / sizeof(float), 5u, 0.1f);
  for (int i = 0; i < kMaxSeq * kD; ++i) {
    g_q8[i] = static_cast<int8_t>(g_q[i] * 100.0f);
    g_k8[i] = static_cast<int8_t>(g_k[i] * 100.0f);
    g_v8[i] = static_cast<int8_t>(g_v[i] * 100.0f);
  }
  for (int i = 0; i < 4 * kD * kD; ++i) g_w8[i] = static_cast<int8_t>(g_w[i] * 800.0f);
  for (int i = 0; i < 4 * kD; ++i) {
    g_scales[i] = 0.01f;
    g_bias32[i] = static_cast<int32_t>(g_bias[i] * 1000.0f);
  }

  // Case 0: the empty region (marker overhead).
  run_case("empty", "-", "-", [] { return attn::Status::kOk; });

  run_case("sdpa_f32", "Sq=16,Skv=16,d=64", "f32", [] { return sdpa(16, 16, false); });
  run_case("sdpa_f32", "Sq=16,Skv=16,d=32", "f32", [] { return sdpa(16, 16, false, 32); });
  run_case("sdpa_f32", "Sq=64,Skv=64,d=64", "f32", [] { return sdpa(64, 64, false); });
  run_case("sdpa_f32", "Sq=64,Skv=64,d=64,causal", "f32", [] { return sdpa(64, 64, true); });
  run_case("sdpa_f32", "decode,Sq=1,Skv=128,d=64", "f32", [] { return sdpa(1, 128, false); });
  // Decoder steps at context 128 (bench_decode.h), float and int8, without and
  // with rotary positions over the whole head (16 dims).
  const bench_decode::Model model{g_w, g_bias, g_w8, g_scales, g_bias32, g_q, g_q8};
  for (const bool rope : {false, true}) {
    const char* dshape = rope ? "E=64,H=4,kv=2,ctx=128,rope=16" : "E=64,H=4,kv=2,ctx=128";
    if (bench_decode::prepare_f32(model, rope, scratch())) {
      run_case("mha_decode_f32", dshape, "f32", bench_decode::step_f32);
    } else {
      pf::print("mha_decode_f32 %s: prepare failed\n", dshape);
      ++g_failed;
    }
    if (bench_decode::prepare_s8(model, {rope, 2, false}, scratch())) {
      run_case("mha_decode_s8", dshape, "s8", bench_decode::step_s8);
    } else {
      pf::print("mha_decode_s8 %s: prepare failed\n", dshape);
      ++g_failed;
    }
  }
  // int8 with one kv head (the step's core call has the 4 query heads as rows:
  // the query-tiled core with the DSP and Helium kernels), plain and packed
  // cache (the packed one: that core packs nothing).
  for (const bool packed : {false, true}) {
    const char* dshape = packed ? "E=64,H=4,kv=1,ctx=128,packed" : "E=64,H=4,kv=1,ctx=128";
    if (bench_decode::prepare_s8(model, {false, 1, packed}, scratch())) {
      run_case("mha_decode_s8", dshape, "s8", bench_decode::step_s8);
    } else {
      pf::print("mha_decode_s8 %s: prepare failed\n", dshape);
      ++g_failed;
    }
  }
  run_case("sdpa_f32", "Sq=16,Skv=16,d=32", "f32", [] { return sdpa(16, 16, false, 32); });
#if ATTN_BENCH_EIGEN
  // The Eigen peer of the float rows (bench/eigen_peer.h), same image and flags.
  struct EigenCase {
    int32_t sq, skv, d;
    const char* shape;
  };
  static const EigenCase eigen_cases[] = {{16, 16, 32, "Sq=16,Skv=16,d=32"},
                                          {64, 64, 64, "Sq=64,Skv=64,d=64"},
                                          {1, 128, 64, "decode,Sq=1,Skv=128,d=64"},
                                          {256, 256, 64, "Sq=256,Skv=256,d=64"}};
  for (const EigenCase& c : eigen_cases) {
    g_eigen_case = &c.sq;
    run_case("sdpa_f32_eigen", c.shape, "f32", [] {
      attn_bench::EigenSdpa(g_q, g_k, g_v, g_out, g_eigen_case[0], g_eigen_case[1], g_eigen_case[2],
                            g_eigen_work);
      return attn::Status::kOk;
    });
  }
#endif
#if !(defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M')
  run_case("sdpa_f32", "Sq=256,Skv=256,d=64", "f32", [] { return sdpa(256, 256, false); });
#endif
  run_case("mha_f32", "E=64,H=4,S=32", "f32", [] {
    const attn::MhaShape shape{1, 32, 32, kD, 4, 0, 0};
    attn::MhaF32Weights w;
    w.in_proj_weight = g_w;
    w.in_proj_bias = g_bias;
    w.out_proj_weight = g_w + 3 * kD * kD;
    w.out_proj_bias = g_bias + 3 * kD;
    attn::MhaF32Args a;
    a.query = g_q;
    a.key = g_q;
    a.value = g_q;
    a.out = g_out;
    return attn::mha_f32(shape, w, a, scratch());
  });
  run_case("bahdanau_f32", "T=32,D=64,units=64", "f32", [] {
    const attn::BahdanauShape shape{1, 32, kD, kD, kD};
    attn::BahdanauF32Weights w;
    w.w1 = g_w;
    w.b1 = g_bias;
    w.w2 = g_w + kD * kD;
    w.b2 = g_bias + kD;
    w.v = g_bias + 2 * kD;
    attn::BahdanauF32Args a;
    a.query = g_q;
    a.keys = g_k;
    a.context = g_out;
    return attn::bahdanau_f32(shape, w, a, scratch());
  });
  // A decoder step against prepared encoder memory, and the one-shot op it
  // replaces (which projects the 64 keys again).
  const attn::BahdanauShape seq2seq{1, 64, kD, kD, kD};
  attn::BahdanauF32Weights bahdanau_w;
  bahdanau_w.w1 = g_w;
  bahdanau_w.b1 = g_bias;
  bahdanau_w.w2 = g_w + kD * kD;
  bahdanau_w.b2 = g_bias + kD;
  bahdanau_w.v = g_bias + 2 * kD;
  attn::BahdanauF32Args bahdanau_a;
  bahdanau_a.query = g_q;
  bahdanau_a.keys = g_k;
  bahdanau_a.context = g_out;
  run_case("bahdanau_f32", "T=64,D=64,units=64", "f32",
           [&] { return attn::bahdanau_f32(seq2seq, bahdanau_w, bahdanau_a, scratch()); });
  if (attn::bahdanau_f32_memory(seq2seq, bahdanau_w, g_k, g_memory, sizeof g_memory) ==
      attn::Status::kOk) {
    run_case("bahdanau_f32_step", "T=64,D=64,units=64", "f32", [&] {
      return attn::bahdanau_f32_step(seq2seq, bahdanau_w, bahdanau_a, g_memory, sizeof g_memory,
                                     scratch());
    });
  } else {
    pf::write("bahdanau_f32_memory failed\n");
    ++g_failed;
  }
  run_case("luong_dot_f32", "T=32,D=64", "f32", [] {
    attn::LuongF32Args a;
    a.query = g_q;
    a.keys = g_k;
    a.context = g_out;
    return attn::luong_dot_f32({1, 32, kD}, a, scratch());
  });
  run_case("luong_general_f32", "T=32,D=64", "f32", [] {
    attn::LuongF32Args a;
    a.query = g_q;
    a.keys = g_k;
    a.context = g_out;
    return attn::luong_general_f32({1, 32, kD, kD}, {g_w, g_bias}, a, scratch());
  });
  struct S8Case {
    int32_t sq, skv, d;
    const char* shape;
  };
  // The shapes of the README's CMSIS-NN comparison table.
  static const S8Case s8_cases[] = {
    {16, 16, 32, "Sq=16,Skv=16,d=32"},
    {64, 64, 64, "Sq=64,Skv=64,d=64"},
    {1, 128, 64, "decode,Sq=1,Skv=128,d=64"},
#if !(defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M')
    {256, 256, 64, "Sq=256,Skv=256,d=64"},
#endif
  };
  for (const S8Case& c : s8_cases) {
    if (prepare_s8(c.sq, c.skv, c.d) != attn::Status::kOk) {
      pf::print("sdpa_s8 %s: prepare failed\n", c.shape);
      ++g_failed;
      continue;
    }
    run_case("sdpa_s8", c.shape, "s8", [] { return sdpa_s8(); });
  }
  {
    const attn::MhaShape shape{1, 32, 32, kD, 4, 0, 0};
    attn::MhaS8Quant quant;
    quant.query = quant.key = quant.value = {0.02f, 0};
    quant.q = quant.k = quant.v = {0.05f, 0};
    quant.scores = {0.1f, 0};
    quant.attn = {0.05f, 0};
    quant.out = {0.05f, 0};
    attn::MhaS8Weights w;
    w.q = {g_w8, g_scales, g_bias32};
    w.k = {g_w8 + kD * kD, g_scales + kD, g_bias32 + kD};
    w.v = {g_w8 + 2 * kD * kD, g_scales + 2 * kD, g_bias32 + 2 * kD};
    w.out = {g_w8 + 3 * kD * kD, g_scales + 3 * kD, g_bias32 + 3 * kD};
    if (attn::mha_s8_prepare(shape, quant, w, g_channels, &g_mha_s8) == attn::Status::kOk) {
      run_case("mha_s8", "E=64,H=4,S=32", "s8", [] {
        attn::MhaS8Args a;
        a.query = g_q8;
        a.key = g_q8;
        a.value = g_q8;
        a.out = g_out8;
        return attn::mha_s8(g_mha_s8, a, scratch());
      });
    } else {
      pf::write("mha_s8: prepare failed\n");
      ++g_failed;
    }
  }
  {
    attn::LuongS8Quant quant;
    quant.query = quant.keys = {0.02f, 0};
    quant.keys_proj = {0.05f, 0};
    quant.scores = {0.1f, 0};
    quant.context = {0.02f, 0};
    const auto luong = [] {
      attn::LuongS8Args a;
      a.query = g_q8;
      a.keys = g_k8;
      a.context = g_out8;
      return attn::luong_s8(g_luong_s8, a, scratch());
    };
    if (attn::luong_dot_s8_prepare({1, 32, kD}, quant, &g_luong_s8) == attn::Status::kOk) {
      run_case("luong_dot_s8", "T=32,D=64", "s8", luong);
    } else {
      pf::write("luong_dot_s8: prepare failed\n");
      ++g_failed;
    }
    if (attn::luong_general_s8_prepare({1, 32, kD, kD}, quant, {g_w8, g_scales, g_bias32},
                                       g_channels, &g_luong_s8) == attn::Status::kOk) {
      run_case("luong_general_s8", "T=32,D=64", "s8", luong);
      if (attn::luong_general_s8_memory(g_luong_s8, g_k8, g_memory8, sizeof g_memory8) ==
          attn::Status::kOk) {
        run_case("luong_general_s8_step", "T=32,D=64", "s8", [] {
          attn::LuongS8Args a;
          a.query = g_q8;
          a.keys = g_k8;
          a.context = g_out8;
          return attn::luong_general_s8_step(g_luong_s8, a, g_memory8, sizeof g_memory8, scratch());
        });
      } else {
        pf::write("luong_general_s8_memory failed\n");
        ++g_failed;
      }
    } else {
      pf::write("luong_general_s8: prepare failed\n");
      ++g_failed;
    }
  }
  {
    attn::BahdanauS8Quant quant;
    quant.query = quant.keys = {0.02f, 0};
    quant.query_proj = quant.keys_proj = {0.05f, 0};
    quant.sum = {0.05f, 0};
    quant.scores = {0.1f, 0};
    quant.context = {0.02f, 0};
    const attn::BahdanauS8Weights w{{g_w8, g_scales, g_bias32},
                                    {g_w8 + kD * kD, g_scales + kD, g_bias32 + kD},
                                    {g_w8 + 2 * kD * kD, g_scales + 2 * kD, g_bias32 + 2 * kD}};
    attn::BahdanauS8Args a;
    a.query = g_q8;
    a.keys = g_k8;
    a.context = g_out8;
    if (attn::bahdanau_s8_prepare({1, 64, kD, kD, kD}, quant, w, g_channels, &g_bahdanau_s8) ==
            attn::Status::kOk &&
        attn::bahdanau_s8_memory(g_bahdanau_s8, g_k8, g_memory8, sizeof g_memory8) ==
            attn::Status::kOk) {
      run_case("bahdanau_s8", "T=64,D=64,units=64", "s8",
               [&] { return attn::bahdanau_s8(g_bahdanau_s8, a, scratch()); });
      run_case("bahdanau_s8_step", "T=64,D=64,units=64", "s8", [&] {
        return attn::bahdanau_s8_step(g_bahdanau_s8, a, g_memory8, sizeof g_memory8, scratch());
      });
    } else {
      pf::write("bahdanau_s8: prepare or memory failed\n");
      ++g_failed;
    }
  }
  pf::print("bench done: %d cases, %d failed\n", g_case, g_failed);
  pf::flush();
  return g_failed;
}
