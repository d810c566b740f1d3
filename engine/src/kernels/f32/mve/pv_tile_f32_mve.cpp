// Helium P.V update (kernels_f32.h, namespace attn::mve), row-major P and the
// transposed tiles' P^T:
//
//   acc[i*a_stride + c] += sum_j p[i*pi + j*pj] * v[j*v_stride + c],  i < nq, c < dv
//
// (pv_tile_f32: pi = p_stride, pj = 1; pv_tile_t_f32: pi = 1, pj = tq.)
// Every accumulator adds its terms in key order with an FMA each, as ref.
//
// The SDPA core's case (transposed, tq = 16, dv >= 4) keeps the accumulators
// transposed: a vector holds one column of 4 queries, so a key's 4 weights
// are one contiguous load of P^T's row and v's row gives the scalar operands
// of VFMA (core registers, one LDM). A block of 4 queries x S columns (S =
// 4..7: dv split into ceil(dv / 7) nearly equal blocks) gathers its S
// accumulator vectors from acc's rows, runs the keys in inline assembly, 3 +
// S instructions per key (VLDRW post-indexed by P^T's row, LDM of the S
// values, the add of v's stride, S VFMAs) with the loop end once per 4 keys,
// and scatters them back: 1.46 instructions per VFMA at S = 7, against 1.71
// for the row-major accumulators' best block (7 queries x 4 columns: an LDM
// of the weights, a VLDRW of v and two pointer adds per 7 VFMAs). A last
// group of fewer than 4 queries points its missing lanes at a dummy row.
//
// Other cases use intrinsics: a block of 2 queries x 3 column vectors (12
// columns) keeps its 6 accumulator vectors in registers while the keys run:
// per key it loads the 3 vectors of v's row and the 2 weights for 6 VFMAs.
// Edges: a last single query, 2- and 1-vector blocks, and the last dv % 4
// columns as one predicated vector (VCTP).
#include <cstddef>
#include <cstdint>

#include "kernels/f32/kernels_f32.h"
#include "kernels/f32/mve/mve_f32.h"

namespace attn {
namespace mve {
namespace {

struct PvArgs {
  const float* p;
  std::size_t pi, pj;
  int32_t nk;
  const float* v;
  std::size_t v_stride;
  float* acc;
  std::size_t a_stride;
};

// Queries [0, R) x columns [0, 4 C) of the block at a.p, a.v, a.acc; kTail:
// one vector (C = 1) of only `tail` < 4 columns, predicated loads and stores.
// kT: the transposed tiles (pi = 1: a key's R weights are adjacent).
template <bool kT, int R, int C, bool kTail = false>
void pv_block(const PvArgs& a, int32_t tail = 4) {
  const std::size_t pi = kT ? 1 : a.pi;
  const mve_pred16_t pred = vctp32q(tail);
  const auto load = [pred](const float* x) {
    return kTail ? vldrwq_z_f32(x, pred) : vldrwq_f32(x);
  };
  float32x4_t s[R][C];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) s[r][c] = load(a.acc + Sz(r) * a.a_stride + Sz(4 * c));
  }
  const float* p = a.p;
  const float* v = a.v;
  for (int32_t j = 0; j < a.nk; ++j, p += a.pj, v += a.v_stride) {
    float w[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) w[r] = p[Sz(r) * pi];
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) {
      const float32x4_t vv = load(v + Sz(4 * c));
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) s[r][c] = vfmaq_n_f32(s[r][c], vv, w[r]);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) {
      float* out = a.acc + Sz(r) * a.a_stride + Sz(4 * c);
      if (kTail) {
        vstrwq_p_f32(out, s[r][c], pred);
      } else {
        vstrwq_f32(out, s[r][c]);
      }
    }
  }
}

// Queries [0, R) of a over every column: blocks of 3 column vectors.
template <bool kT, int R>
void pv_rows(PvArgs a, int32_t dv) {
  int32_t c = 0;
  for (; c + 12 <= dv; c += 12, a.v += 12, a.acc += 12) pv_block<kT, R, 3>(a);
  if (dv - c >= 8) {
    pv_block<kT, R, 2>(a);
    c += 8, a.v += 8, a.acc += 8;
  }
  if (dv - c >= 4) {
    pv_block<kT, R, 1>(a);
    c += 4, a.v += 4, a.acc += 4;
  }
  if (c < dv) pv_block<kT, R, 1, true>(a, dv - c);
}

template <bool kT>
__attribute__((noinline)) void pv_tile(const float* p, std::size_t pi, std::size_t pj, int32_t nq,
                                       int32_t nk, const float* v, std::size_t v_stride, int32_t dv,
                                       float* acc, std::size_t a_stride) {
  PvArgs a{p, pi, pj, nk, v, v_stride, acc, a_stride};
  int32_t i = 0;
  for (; i + 2 <= nq; i += 2, a.p += 2 * pi, a.acc += 2 * a_stride) pv_rows<kT, 2>(a, dv);
  if (i < nq) pv_rows<kT, 1>(a, dv);
}

// Optimised builds only (the asm clobbers r7, a -O0 build's frame pointer,
// and the gathers need constant offsets); -O0 runs the intrinsic blocks.
#if defined(__OPTIMIZE__)
// One key of a transposed-accumulator block: t = P^T's row (4 queries), the
// S values of v's row into r4.. (one LDM: ascending registers), acc column
// s += t * r(4 + s).
#define ATTN_PV_KEY(kRegs, kFmas)   \
  "vldrw.32 %q[t], [%[p]], #64\n\t" \
  "ldm %[v], {" kRegs               \
  "}\n\t"                           \
  "add %[v], %[v], %[vs]\n\t" kFmas
// The key loop (odd = nk): 4 keys per iteration, then 2 and 1 by nk's low
// bits (LSLS #31 puts bit 1 in C and bit 0 in N; the keys change no flags).
#define ATTN_PV_LOOP(kRegs, kFmas) \
  "lsr lr, %[odd], #2\n\t"                                                                   \
  "wls lr, lr, 2f\n"                                                                         \
  "1:\n\t" ATTN_PV_KEY(kRegs, kFmas) ATTN_PV_KEY(kRegs, kFmas) ATTN_PV_KEY(kRegs, kFmas)     \
      ATTN_PV_KEY(kRegs, kFmas) "le lr, 1b\n"                                                \
  "2:\n\t"                                                                                   \
  "lsls %[odd], %[odd], #31\n\t"                                                             \
  "bcc 3f\n\t" ATTN_PV_KEY(kRegs, kFmas) ATTN_PV_KEY(kRegs, kFmas) "3:\n\t"                  \
  "bpl 4f\n\t" ATTN_PV_KEY(kRegs, kFmas) "4:\n"
#define ATTN_PV_FMA(k, r) "vfma.f32 %q[a" #k "], %q[t], " r "\n\t"
#define ATTN_PV_FMA4 \
  ATTN_PV_FMA(0, "r4") ATTN_PV_FMA(1, "r5") ATTN_PV_FMA(2, "r6") ATTN_PV_FMA(3, "r7")
#define ATTN_PV_FMA5 ATTN_PV_FMA4 ATTN_PV_FMA(4, "r8")
#define ATTN_PV_FMA6 ATTN_PV_FMA5 ATTN_PV_FMA(5, "r9")
#define ATTN_PV_FMA7 ATTN_PV_FMA6 ATTN_PV_FMA(6, "r10")
#define ATTN_PV_A4 [a0] "+w"(a[0]), [a1] "+w"(a[1]), [a2] "+w"(a[2]), [a3] "+w"(a[3])
#define ATTN_PV_A5 ATTN_PV_A4, [a4] "+w"(a[4])
#define ATTN_PV_A6 ATTN_PV_A5, [a5] "+w"(a[5])
#define ATTN_PV_A7 ATTN_PV_A6, [a6] "+w"(a[6])
#define ATTN_PV_R4 "r4", "r5", "r6", "r7"
#define ATTN_PV_R5 ATTN_PV_R4, "r8"
#define ATTN_PV_R6 ATTN_PV_R5, "r9"
#define ATTN_PV_R7 ATTN_PV_R6, "r10"
#define ATTN_PV_ASM(kRegs, kFmas, kClobbers, ...)                                          \
  __asm__ volatile(ATTN_PV_LOOP(kRegs, kFmas)                                              \
                   : __VA_ARGS__, [t] "=&w"(t), [p] "+r"(pt), [v] "+r"(v), [odd] "+r"(odd) \
                   : [vs] "r"(vs)                                                          \
                   : kClobbers, "lr", "cc", "memory")

// The S columns' accumulators a[0..S) of one group of 4 queries, from the
// P^T rows at pt (tq = 16) and v's rows at v (vs bytes apart), nk keys.
template <int S>
void pv_keys_t16(const float* pt, const float* v, uint32_t vs, int32_t nk, float32x4_t (&a)[S]) {
  float32x4_t t;
  int32_t odd = nk;
  static_assert(S >= 4 && S <= 7, "blocks of 4 to 7 columns");
  if constexpr (S == 4) ATTN_PV_ASM("r4-r7", ATTN_PV_FMA4, ATTN_PV_R4, ATTN_PV_A4);
  if constexpr (S == 5) ATTN_PV_ASM("r4-r8", ATTN_PV_FMA5, ATTN_PV_R5, ATTN_PV_A5);
  if constexpr (S == 6) ATTN_PV_ASM("r4-r9", ATTN_PV_FMA6, ATTN_PV_R6, ATTN_PV_A6);
  if constexpr (S == 7) ATTN_PV_ASM("r4-r10", ATTN_PV_FMA7, ATTN_PV_R7, ATTN_PV_A7);
}
#undef ATTN_PV_KEY
#undef ATTN_PV_LOOP
#undef ATTN_PV_FMA
#undef ATTN_PV_FMA4
#undef ATTN_PV_FMA5
#undef ATTN_PV_FMA6
#undef ATTN_PV_FMA7
#undef ATTN_PV_A4
#undef ATTN_PV_A5
#undef ATTN_PV_A6
#undef ATTN_PV_A7
#undef ATTN_PV_R4
#undef ATTN_PV_R5
#undef ATTN_PV_R6
#undef ATTN_PV_R7
#undef ATTN_PV_ASM

// `blocks` blocks of S columns of 4 queries: acc's elements at the byte
// addresses qa (one lane per query) + 4 c, gathered, updated over the nk
// keys and scattered; then qa += step (4 S per lane; 0 for the lanes of
// missing queries, which address a dummy row) and v += S.
template <int S>
__attribute__((noinline)) void pv_blocks_t16(const float* pt, const float* v, uint32_t vs,
                                             int32_t nk, uint32x4_t qa, uint32x4_t step,
                                             int32_t blocks) {
  for (int32_t b = 0; b < blocks; ++b, v += S) {
    float32x4_t a[S];
#pragma GCC unroll 8
    for (int c = 0; c < S; ++c) a[c] = vldrwq_gather_base_f32(qa, 4 * c);
    pv_keys_t16<S>(pt, v, vs, nk, a);
#pragma GCC unroll 8
    for (int c = 0; c < S; ++c) vstrwq_scatter_base_f32(qa, 4 * c, a[c]);
    qa = vaddq_u32(qa, step);
  }
}

// Columns [0, n * S) of 4 queries in blocks of S (see pv_blocks_t16).
void pv_blocks(int32_t s, int32_t n, const float* pt, const float* v, uint32_t vs, int32_t nk,
               uint32x4_t qa, mve_pred16_t here) {
  if (n <= 0) return;
  const uint32x4_t step =
      vpselq_u32(vdupq_n_u32(4u * static_cast<uint32_t>(s)), vdupq_n_u32(0u), here);
  switch (s) {
    case 4: pv_blocks_t16<4>(pt, v, vs, nk, qa, step, n); break;
    case 5: pv_blocks_t16<5>(pt, v, vs, nk, qa, step, n); break;
    case 6: pv_blocks_t16<6>(pt, v, vs, nk, qa, step, n); break;
    default: pv_blocks_t16<7>(pt, v, vs, nk, qa, step, n); break;
  }
}

// pv_tile_t_f32 with tq = 16 and dv >= 4: dv in ceil(dv / 7) blocks of
// nearly equal width (64: 4 of 7, then 6 of 6).
__attribute__((noinline)) void pv_tile_t16(const float* pt, int32_t nq, int32_t nk, const float* v,
                                           std::size_t v_stride, int32_t dv, float* acc,
                                           std::size_t a_stride) {
  const int32_t blocks = (dv + 6) / 7;
  const int32_t base = dv / blocks, wide = dv % blocks;  // `wide` blocks of base + 1
  const uint32_t vs = static_cast<uint32_t>(v_stride * sizeof(float));
  // Byte offsets of 4 acc rows; lanes past nq address `dummy` instead.
  const uint32x4_t rows =
      vmulq_n_u32(vidupq_n_u32(0u, 1), static_cast<uint32_t>(a_stride * sizeof(float)));
  alignas(16) float dummy[8];
  const uint32_t dummy_at = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(dummy));
  for (int32_t i = 0; i < nq; i += 4, pt += 4, acc += 4 * a_stride) {
    const mve_pred16_t here = vctp32q(nq - i);
    const auto at = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(acc));
    uint32x4_t qa = vpselq_u32(vaddq_n_u32(rows, at), vdupq_n_u32(dummy_at), here);
    pv_blocks(base + 1, wide, pt, v, vs, nk, qa, here);
    const int32_t cw = (base + 1) * wide;
    qa = vpselq_u32(vaddq_n_u32(rows, at + 4u * static_cast<uint32_t>(cw)), qa, here);
    pv_blocks(base, blocks - wide, pt, v + cw, vs, nk, qa, here);
  }
}
#endif  // __OPTIMIZE__

}  // namespace

void pv_tile_f32(const float* p, std::size_t p_stride, int32_t nq, int32_t nk, const float* v,
                 std::size_t v_stride, int32_t dv, float* acc, std::size_t a_stride) {
  pv_tile<false>(p, p_stride, 1, nq, nk, v, v_stride, dv, acc, a_stride);
}

void pv_tile_t_f32(const float* pt, int32_t tq, int32_t nq, int32_t nk, const float* v,
                   std::size_t v_stride, int32_t dv, float* acc, std::size_t a_stride) {
#if defined(__OPTIMIZE__)
  if (tq == 16 && dv >= 4) {
    pv_tile_t16(pt, nq, nk, v, v_stride, dv, acc, a_stride);
    return;
  }
#endif
  pv_tile<true>(pt, 1, Sz(tq), nq, nk, v, v_stride, dv, acc, a_stride);
}

}  // namespace mve
}  // namespace attn
