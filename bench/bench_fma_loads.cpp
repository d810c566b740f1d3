// FmaLoads/<m>mov_<b>bcast: 16 independent 512-bit FMA chains per step with
// m full-vector loads (vmovups) and b broadcast loads (vbroadcastss) of L1
// data interleaved, none feeding an FMA. The FMA rate against BM_FmaPeak's
// says what each load costs the FMA ports on this core, whatever the load
// ports could do alone. The mixes are those of the float SDPA's register
// blocks on AVX-512 (per 16 FMAs): Q·Kᵀ 2 x 8 keys (2 vmovups of Qᵀ, 8 key
// broadcasts), P·V 4 queries x 4 vectors (4 vmovups of V, 4 weight
// broadcasts). AVX-512 builds only (attn_bench is -march=native on x86);
// nothing to check: no output.
#include <cstdint>
#include <string>

#include "bench_common.h"

namespace attn_bench {

#if defined(__x86_64__) && defined(__AVX512F__)
namespace {

alignas(64) float g_l1[1024];  // 4 KiB, walked 512 bytes per step

#define ATTN_F(i) "vfmadd231ps %%zmm30, %%zmm31, %%zmm" #i "\n"
#define ATTN_M(o, r) "vmovups " #o "(%0), %%zmm" #r "\n"
#define ATTN_B(o, r) "vbroadcastss " #o "(%0), %%zmm" #r "\n"
#define ATTN_FMA16_CLOBBERS                                                                     \
  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",      \
      "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", \
      "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "memory"

// One step of each mix: 16 FMAs, loads spread between them.
template <int M, int B>
inline void Step(const float* p) {
  if constexpr (M == 0 && B == 0) {
    __asm__ volatile(ATTN_F(0) ATTN_F(1) ATTN_F(2) ATTN_F(3) ATTN_F(4) ATTN_F(5) ATTN_F(6) ATTN_F(7)
                         ATTN_F(8) ATTN_F(9) ATTN_F(10) ATTN_F(11) ATTN_F(12) ATTN_F(13) ATTN_F(14)
                             ATTN_F(15)::"r"(p)
                     : ATTN_FMA16_CLOBBERS);
  } else if constexpr (M == 8 && B == 0) {
    __asm__ volatile(ATTN_M(0, 16) ATTN_F(0) ATTN_F(1) ATTN_M(64, 17) ATTN_F(2) ATTN_F(3)
                         ATTN_M(128, 18) ATTN_F(4) ATTN_F(5) ATTN_M(192, 19) ATTN_F(6) ATTN_F(7)
                             ATTN_M(256, 20) ATTN_F(8) ATTN_F(9) ATTN_M(320, 21) ATTN_F(10)
                                 ATTN_F(11) ATTN_M(384, 22) ATTN_F(12) ATTN_F(13) ATTN_M(448, 23)
                                     ATTN_F(14) ATTN_F(15)::"r"(p)
                     : ATTN_FMA16_CLOBBERS);
  } else if constexpr (M == 0 && B == 8) {
    __asm__ volatile(ATTN_B(0, 16) ATTN_F(0) ATTN_F(1) ATTN_B(64, 17) ATTN_F(2) ATTN_F(3)
                         ATTN_B(128, 18) ATTN_F(4) ATTN_F(5) ATTN_B(192, 19) ATTN_F(6) ATTN_F(7)
                             ATTN_B(256, 20) ATTN_F(8) ATTN_F(9) ATTN_B(320, 21) ATTN_F(10)
                                 ATTN_F(11) ATTN_B(384, 22) ATTN_F(12) ATTN_F(13) ATTN_B(448, 23)
                                     ATTN_F(14) ATTN_F(15)::"r"(p)
                     : ATTN_FMA16_CLOBBERS);
  } else if constexpr (M == 2 && B == 8) {
    __asm__ volatile(ATTN_M(0, 16) ATTN_M(64, 17) ATTN_B(128, 18) ATTN_F(0) ATTN_F(1)
                         ATTN_B(132, 19) ATTN_F(2) ATTN_F(3) ATTN_B(136, 20) ATTN_F(4) ATTN_F(5)
                             ATTN_B(140, 21) ATTN_F(6) ATTN_F(7) ATTN_B(144, 22) ATTN_F(8) ATTN_F(9)
                                 ATTN_B(148, 23) ATTN_F(10) ATTN_F(11) ATTN_B(152, 24) ATTN_F(12)
                                     ATTN_F(13) ATTN_B(156, 25) ATTN_F(14) ATTN_F(15)::"r"(p)
                     : ATTN_FMA16_CLOBBERS);
  } else if constexpr (M == 4 && B == 4) {
    __asm__ volatile(ATTN_M(0, 16) ATTN_M(64, 17) ATTN_M(128, 18) ATTN_M(192, 19) ATTN_B(256, 20)
                         ATTN_F(0) ATTN_F(1) ATTN_F(2) ATTN_F(3) ATTN_B(260, 21) ATTN_F(4) ATTN_F(5)
                             ATTN_F(6) ATTN_F(7) ATTN_B(264, 22) ATTN_F(8) ATTN_F(9) ATTN_F(10)
                                 ATTN_F(11) ATTN_B(268, 23) ATTN_F(12) ATTN_F(13) ATTN_F(14)
                                     ATTN_F(15)::"r"(p)
                     : ATTN_FMA16_CLOBBERS);
  }
}

template <int M, int B>
__attribute__((noinline)) void FmaLoads(int64_t reps) {
  __asm__ volatile("vbroadcastss %0, %%zmm30\n vbroadcastss %1, %%zmm31\n" ::"m"(g_l1[0]),
                   "m"(g_l1[1])
                   : "xmm30", "xmm31");
  for (int64_t r = 0; r < reps; ++r) {
    for (int off = 0; off < 1024; off += 128) Step<M, B>(g_l1 + off);
  }
}

template <int M, int B>
void BM_FmaLoads(benchmark::State& st) {
  constexpr int64_t kReps = 256;
  for (auto _ : st) FmaLoads<M, B>(kReps);
  SetFlops(st, 2.0 * 16 * 16 * 8 * kReps);  // 16 FMAs of 16 lanes, 8 steps per rep
}

}  // namespace

void RegisterFmaLoadBenchmarks() {
  for (float& x : g_l1) x = 1e-3f;
  Register("FmaLoads/0mov_0bcast", BM_FmaLoads<0, 0>);
  Register("FmaLoads/8mov_0bcast", BM_FmaLoads<8, 0>);
  Register("FmaLoads/0mov_8bcast", BM_FmaLoads<0, 8>);
  Register("FmaLoads/2mov_8bcast", BM_FmaLoads<2, 8>);
  Register("FmaLoads/4mov_4bcast", BM_FmaLoads<4, 4>);
}
#else
void RegisterFmaLoadBenchmarks() {}
#endif

}  // namespace attn_bench
