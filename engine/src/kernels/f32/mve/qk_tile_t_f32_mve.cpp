// Helium transposed Q.K^T tile (kernels_f32.h, namespace attn::mve):
//
//   st[j*tq + i] = sum_x qt[x*tq + i] * k[j*k_stride + x],  i < tq, j < nk
//
// Queries along the vector: a block of 2 query vectors (8 queries) x KB keys
// keeps its 2*KB score vectors in registers (KB = 3: 6 accumulators and the 2
// query vectors fill the 8) while x runs; per step it loads the 2 query
// vectors of row x of qt and one float of each key, and does 2*KB VFMAs with
// the key's float as the scalar operand: no horizontal sum. Every score is
// one accumulator summed in x order with an FMA per term, as ref. tq is a
// multiple of 8 (the core's tiles: of 16); the last nk % 3 keys take a 2- or
// 1-key block.
//
// The SDPA core's case (tq = 16) runs its blocks in inline assembly, one
// asm statement per 8-query group: the x loop in steps of three, 28
// instructions for 18 VFMAs (an LDM of three floats per key, post-indexed;
// 6 VLDRW, one post-indexed by three rows of qt; 18 VFMA), two such steps
// and the loop end LE per iteration: 1.53 per VFMA (the two-step loop with
// an LDRD per key took 20 per 12, 1.67). The first d % 3 steps run before
// it, the first of them a multiply (no zeroing). GCC 12 compiles such loops
// from intrinsics to a load per float and an add per pointer, or,
// scheduling the loads early, spills an accumulator; other tq keep the
// intrinsics.
#include <cstddef>
#include <cstdint>

#include "kernels/f32/kernels_f32.h"
#include "kernels/f32/mve/mve_f32.h"

namespace attn {
namespace mve {
namespace {

constexpr int kQkKeys = 3;  // KB of the full blocks

// Optimised builds only (the asm clobbers r7, a -O0 build's frame
// pointer); -O0 runs the intrinsic blocks below for every tq.
#if defined(__OPTIMIZE__)
// The blocks of the core's tiles (tq = 16) are assembly: the x loop needs 14
// core registers (9 key floats, 3 key pointers, q and the loop count), which
// GCC 12 cannot give an asm statement's operands while anything else is
// live, so the statement clobbers every core register but sp and reads its
// arguments from a frame of memory operands (sp-relative: no register is
// left to address them otherwise). GCC saves what it clobbers, so
// -fstack-usage still sees the whole frame. One statement runs n blocks of
// KB keys of one 8-query group. Registers: key c's pointer r9 + c, its three
// floats r(3c)..r(3c + 2); q in r12; accumulators q(2c) (queries 0-3) and
// q(2c + 1) (4-7); query vectors q6, q7; the loop count lr.
#define ATTN_QK_PTRS1 "add r0, r9, r2\n\t"
#define ATTN_QK_PTRS2   \
  "add r10, r9, r2\n\t" \
  "add r0, r10, r2\n\t"
#define ATTN_QK_PTRS3    \
  "add r10, r9, r2\n\t"  \
  "add r11, r10, r2\n\t" \
  "add r0, r11, r2\n\t"
// One float of each key (a step before the loop).
#define ATTN_QK_LDR1 "ldr r0, [r9], #4\n\t"
#define ATTN_QK_LDR2 ATTN_QK_LDR1 "ldr r3, [r10], #4\n\t"
#define ATTN_QK_LDR3 ATTN_QK_LDR2 "ldr r6, [r11], #4\n\t"
// Three floats of each key (the loop's 3 steps).
#define ATTN_QK_LDM1 "ldm r9!, {r0, r1, r2}\n\t"
#define ATTN_QK_LDM2 ATTN_QK_LDM1 "ldm r10!, {r3, r4, r5}\n\t"
#define ATTN_QK_LDM3 ATTN_QK_LDM2 "ldm r11!, {r6, r7, r8}\n\t"
// op on every accumulator: query vectors q6, q7 times key c's float rc.
#define ATTN_QK_OP1(op, r0, r3, r6) op " q0, q6, " r0 "\n\t" op " q1, q7, " r0 "\n\t"
#define ATTN_QK_OP2(op, r0, r3, r6) \
  ATTN_QK_OP1(op, r0, r3, r6) op " q2, q6, " r3 "\n\t" op " q3, q7, " r3 "\n\t"
#define ATTN_QK_OP3(op, r0, r3, r6) \
  ATTN_QK_OP2(op, r0, r3, r6) op " q4, q6, " r6 "\n\t" op " q5, q7, " r6 "\n\t"
#define ATTN_QK_ZERO1   \
  "vmov.i32 q0, #0\n\t" \
  "vmov.i32 q1, #0\n\t"
#define ATTN_QK_ZERO2   \
  ATTN_QK_ZERO1         \
  "vmov.i32 q2, #0\n\t" \
  "vmov.i32 q3, #0\n\t"
#define ATTN_QK_ZERO3   \
  ATTN_QK_ZERO2         \
  "vmov.i32 q4, #0\n\t" \
  "vmov.i32 q5, #0\n\t"
#define ATTN_QK_STORE1    \
  "vstrw.32 q0, [r0]\n\t" \
  "vstrw.32 q1, [r0, #16]\n\t"
#define ATTN_QK_STORE2         \
  ATTN_QK_STORE1               \
  "vstrw.32 q2, [r0, #64]\n\t" \
  "vstrw.32 q3, [r0, #80]\n\t"
#define ATTN_QK_STORE3          \
  ATTN_QK_STORE2                \
  "vstrw.32 q4, [r0, #128]\n\t" \
  "vstrw.32 q5, [r0, #144]\n\t"
// Three steps of x: 3 LDM, 6 VLDRW (the first moves q three rows on, the
// others at negative offsets), 6 KB VFMA.
#define ATTN_QK_TRIPLE(KB) \
  ATTN_QK_LDM##KB                                                          \
  "vldrw.32 q6, [r12], #192\n\t"                                           \
  "vldrw.32 q7, [r12, #-176]\n\t" ATTN_QK_OP##KB("vfma.f32", "r0", "r3", "r6") \
  "vldrw.32 q6, [r12, #-128]\n\t"                                          \
  "vldrw.32 q7, [r12, #-112]\n\t" ATTN_QK_OP##KB("vfma.f32", "r1", "r4", "r7") \
  "vldrw.32 q6, [r12, #-64]\n\t"                                           \
  "vldrw.32 q7, [r12, #-48]\n\t" ATTN_QK_OP##KB("vfma.f32", "r2", "r5", "r8")
// Per block: the first d % 3 steps (the first a multiply, or zeros), then
// the triples, two per loop iteration (LSLS #31 keeps d / 3's bit 0 in N:
// nothing in the loop sets flags), the stores, the next block.
#define ATTN_QK_BLOCKS(KB) \
  "1:\n\t"                                                                 \
  "ldr r12, %[qt]\n\t"                                                     \
  "ldr r9, %[k]\n\t"                                                       \
  "ldr r2, %[ks]\n\t" ATTN_QK_PTRS##KB                                     \
  "str r0, %[k]\n\t"                                                       \
  "ldr lr, %[triples]\n\t"                                                 \
  "ldr r5, %[first]\n\t"                                                   \
  "cbz r5, 3f\n\t" ATTN_QK_LDR##KB                                         \
  "vldrw.32 q7, [r12, #16]\n\t"                                            \
  "vldrw.32 q6, [r12], #64\n\t" ATTN_QK_OP##KB("vmul.f32", "r0", "r3", "r6") \
  "cmp r5, #1\n\t"                                                         \
  "beq 4f\n\t" ATTN_QK_LDR##KB                                             \
  "vldrw.32 q7, [r12, #16]\n\t"                                            \
  "vldrw.32 q6, [r12], #64\n\t" ATTN_QK_OP##KB("vfma.f32", "r0", "r3", "r6") \
  "b 4f\n"                                                                 \
  "3:\n\t" ATTN_QK_ZERO##KB                                                \
  "4:\n\t"                                                                 \
  "lsls r4, lr, #31\n\t"                                                   \
  "lsr lr, lr, #1\n\t"                                                     \
  "wls lr, lr, 6f\n"                                                       \
  "5:\n\t" ATTN_QK_TRIPLE(KB) ATTN_QK_TRIPLE(KB)                           \
  "le lr, 5b\n"                                                            \
  "6:\n\t"                                                                 \
  "bpl 7f\n\t" ATTN_QK_TRIPLE(KB)                                          \
  "7:\n\t"                                                                 \
  "ldr r0, %[st]\n\t" ATTN_QK_STORE##KB                                    \
  "add r0, r0, #" #KB "*64\n\t"                                            \
  "str r0, %[st]\n\t"                                                      \
  "ldr r1, %[n]\n\t"                                                       \
  "subs r1, r1, #1\n\t"                                                    \
  "str r1, %[n]\n\t"                                                       \
  "bne 1b\n"

// st[(j + c)*16 + i] = sum_x qt[x*16 + i] * k[(j + c)*k_stride + x] for
// i < 8, c < KB n (n >= 1; k: key j's row, st: st + j * 16).
template <int KB>
__attribute__((noinline)) void qk_blocks_t16(const float* qt, const float* k, std::size_t k_stride,
                                             int32_t d, float* st, int32_t n) {
  struct {
    const float* qt;
    const float* k;
    uint32_t ks, triples, first;
    float* st;
    int32_t n;
  } f = {qt,
         k,
         static_cast<uint32_t>(k_stride * sizeof(float)),
         static_cast<uint32_t>(d / 3),
         static_cast<uint32_t>(d % 3),
         st,
         n};
#define ATTN_QK_OPERANDS                                                                    \
  : [k] "+m"(f.k), [st] "+m"(f.st), [n] "+m"(f.n)                                           \
  : [qt] "m"(f.qt), [ks] "m"(f.ks), [triples] "m"(f.triples), [first] "m"(f.first)          \
  : "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr",  \
    "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "s13", \
    "s14", "s15", "s16", "s17", "s18", "s19", "s20", "s21", "s22", "s23", "s24", "s25",     \
    "s26", "s27", "s28", "s29", "s30", "s31", "cc", "memory"
  if constexpr (KB == 1) __asm__ volatile(ATTN_QK_BLOCKS(1) ATTN_QK_OPERANDS);
  if constexpr (KB == 2) __asm__ volatile(ATTN_QK_BLOCKS(2) ATTN_QK_OPERANDS);
  if constexpr (KB == 3) __asm__ volatile(ATTN_QK_BLOCKS(3) ATTN_QK_OPERANDS);
#undef ATTN_QK_OPERANDS
}
#undef ATTN_QK_PTRS1
#undef ATTN_QK_PTRS2
#undef ATTN_QK_PTRS3
#undef ATTN_QK_LDR1
#undef ATTN_QK_LDR2
#undef ATTN_QK_LDR3
#undef ATTN_QK_LDM1
#undef ATTN_QK_LDM2
#undef ATTN_QK_LDM3
#undef ATTN_QK_OP1
#undef ATTN_QK_OP2
#undef ATTN_QK_OP3
#undef ATTN_QK_ZERO1
#undef ATTN_QK_ZERO2
#undef ATTN_QK_ZERO3
#undef ATTN_QK_STORE1
#undef ATTN_QK_STORE2
#undef ATTN_QK_STORE3
#undef ATTN_QK_TRIPLE
#undef ATTN_QK_BLOCKS

// tq = 16: every 8-query group against every key, 3-key blocks, then a 2-
// or 1-key one.
void qk_tile_t16(const float* qt, int32_t d, const float* k, std::size_t k_stride, int32_t nk,
                 float* st) {
  const int32_t n3 = nk / kQkKeys, rest = nk - n3 * kQkKeys;
  const float* kr = k + Sz(n3 * kQkKeys) * k_stride;  // the last block's keys
  float* sr = st + Sz(n3 * kQkKeys) * 16;
  for (std::size_t g = 0; g < 16; g += 8) {
    if (n3 > 0) qk_blocks_t16<3>(qt + g, k, k_stride, d, st + g, n3);
    if (rest == 2) qk_blocks_t16<2>(qt + g, kr, k_stride, d, sr + g, 1);
    if (rest == 1) qk_blocks_t16<1>(qt + g, kr, k_stride, d, sr + g, 1);
  }
}

#endif  // __OPTIMIZE__

// Keys [0, KB) x queries [0, 8) of the tile, any tq (a multiple of 8): two
// steps of x per iteration, two query vectors live at a time.
template <int KB>
void qk_block_t(const float* qt, std::size_t tq, int32_t d, const float* k, std::size_t k_stride,
                float* st) {
  const float* kr[KB];
  float32x4_t a0[KB], a1[KB];
#pragma GCC unroll 4
  for (int c = 0; c < KB; ++c) {
    kr[c] = k + Sz(c) * k_stride;
    a0[c] = vdupq_n_f32(0.0f);
    a1[c] = vdupq_n_f32(0.0f);
  }
  const float* q = qt;
  int32_t x = 0;
  for (; x + 2 <= d; x += 2, q += 2 * tq) {
    float k0[KB], k1[KB];
#pragma GCC unroll 4
    for (int c = 0; c < KB; ++c) {
      k0[c] = kr[c][x];
      k1[c] = kr[c][x + 1];
    }
    // Row x, then row x + 1: two query vectors live at a time (6 + 2 = 8).
    float32x4_t q0 = vldrwq_f32(q);
    float32x4_t q1 = vldrwq_f32(q + 4);
#pragma GCC unroll 4
    for (int c = 0; c < KB; ++c) {
      a0[c] = vfmaq_n_f32(a0[c], q0, k0[c]);
      a1[c] = vfmaq_n_f32(a1[c], q1, k0[c]);
    }
    q0 = vldrwq_f32(q + tq);
    q1 = vldrwq_f32(q + tq + 4);
#pragma GCC unroll 4
    for (int c = 0; c < KB; ++c) {
      a0[c] = vfmaq_n_f32(a0[c], q0, k1[c]);
      a1[c] = vfmaq_n_f32(a1[c], q1, k1[c]);
    }
  }
  if (x < d) {
    const float32x4_t q0 = vldrwq_f32(q);
    const float32x4_t q1 = vldrwq_f32(q + 4);
#pragma GCC unroll 4
    for (int c = 0; c < KB; ++c) {
      a0[c] = vfmaq_n_f32(a0[c], q0, kr[c][x]);
      a1[c] = vfmaq_n_f32(a1[c], q1, kr[c][x]);
    }
  }
#pragma GCC unroll 4
  for (int c = 0; c < KB; ++c) {
    vstrwq_f32(st + Sz(c) * tq, a0[c]);
    vstrwq_f32(st + Sz(c) * tq + 4, a1[c]);
  }
}

template <int KB>
void qk_blocks_t(const float* qt, std::size_t t, int32_t d, const float* k, std::size_t k_stride,
                 float* st, std::size_t g, int32_t j) {
  qk_block_t<KB>(qt + g, t, d, k + Sz(j) * k_stride, k_stride, st + Sz(j) * t + g);
}

// Any tq: the intrinsic blocks.
__attribute__((noinline)) void qk_tile_t(const float* qt, std::size_t t, int32_t d, const float* k,
                                         std::size_t k_stride, int32_t nk, float* st) {
  for (std::size_t g = 0; g < t; g += 8) {
    int32_t j = 0;
    for (; j + kQkKeys <= nk; j += kQkKeys) qk_blocks_t<kQkKeys>(qt, t, d, k, k_stride, st, g, j);
    if (nk - j == 2) qk_blocks_t<2>(qt, t, d, k, k_stride, st, g, j);
    if (nk - j == 1) qk_blocks_t<1>(qt, t, d, k, k_stride, st, g, j);
  }
}

}  // namespace

void qk_tile_t_f32(const float* qt, int32_t tq, int32_t d, const float* k, std::size_t k_stride,
                   int32_t nk, float* st) {
#if defined(__OPTIMIZE__)
  if (tq == 16) {
    qk_tile_t16(qt, d, k, k_stride, nk, st);
    return;
  }
#endif
  qk_tile_t(qt, Sz(tq), d, k, k_stride, nk, st);
}

}  // namespace mve
}  // namespace attn
