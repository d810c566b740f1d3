// Cortex-M scalar-FPU P.V update (kernels_f32.h, namespace attn::mcu):
//
//   acc[i*a_stride + c] += sum_j p[i*p_stride + j] * v[j*v_stride + c],  i < nq, c < dv
//
// Register-blocked: a block of R queries x C output columns holds its R*C
// accumulators in FPU registers (4 x 4 = 16 of s0-s31) while the keys j run,
// so each key loads R probabilities and C values for R*C fused
// multiply-adds, and acc is read and written once per block instead of once
// per key (ref). Every accumulator still adds its terms in key order with an
// FMA each: the results are those of ref::pv_tile_f32 bit for bit (same
// contraction). Edges: the last nq % 4 queries and dv % 4 columns take
// 1-wide blocks.
#include <cstddef>
#include <cstdint>

#include "kernels/f32/kernels_f32.h"
#include "kernels/f32/mcu/block_f32_mcu.h"

namespace attn {
namespace mcu {
namespace {

// The tile's operands as given: a block finds its rows and columns from
// them, so a call passes this, two indices and nk in registers (no stack
// arguments; the struct is the caller's only frame beyond saved registers).
struct PvTile {
  const float* p;
  std::size_t p_stride;
  const float* v;
  std::size_t v_stride;
  float* acc;
  std::size_t a_stride;
};

// acc rows [i, i+R) x columns [c, c+C) += p rows [i, i+R) times v[.][c, c+C).
template <int R, int C>
ATTN_MCU_LEAF void pv_block(const PvTile& t, int32_t i, int32_t c, int32_t nk) {
  const float* pr[R];
  float sum[R][C];
  float* const acc = t.acc + static_cast<std::size_t>(i) * t.a_stride + c;
  float* row = acc;
  ATTN_MCU_UNROLL
  for (int r = 0; r < R; ++r) {
    pr[r] = t.p + static_cast<std::size_t>(i + r) * t.p_stride;
    ATTN_MCU_UNROLL
    for (int x = 0; x < C; ++x) sum[r][x] = row[x];
    row += t.a_stride;
    ATTN_MCU_OPAQUE(row);
  }
  const float* v = t.v + c;
  const std::size_t v_stride = t.v_stride;
  for (int32_t j = nk; j > 0; --j) {
    float pv[R];
    float vv[C];
    ATTN_MCU_UNROLL
    for (int r = 0; r < R; ++r) pv[r] = *pr[r]++;
    ATTN_MCU_UNROLL
    for (int x = 0; x < C; ++x) vv[x] = v[x];
    v += v_stride;
    ATTN_MCU_UNROLL
    for (int r = 0; r < R; ++r) {
      ATTN_MCU_UNROLL
      for (int x = 0; x < C; ++x) sum[r][x] += pv[r] * vv[x];
    }
  }
  row = acc;
  ATTN_MCU_UNROLL
  for (int r = 0; r < R; ++r) {
    ATTN_MCU_UNROLL
    for (int x = 0; x < C; ++x) row[x] = sum[r][x];
    row += t.a_stride;
    ATTN_MCU_OPAQUE(row);
  }
}

// Optimised builds only: the asm needs more core registers than a -O0
// build (r7 its frame pointer, every variable in memory) can give; there
// the template above runs the 4 x 4 blocks.
#if defined(__OPTIMIZE__)
// The 4 x 4 block in inline assembly, the keys three per iteration: one
// VLDM of 3 weights per query row, per key one VLDM of v's 4 values and the
// add of v's stride, 48 VFMAs and the loop end: 60 instructions per 48
// multiply-adds (the template's loop: 26 per 16). Registers: query row r's
// weights s(3r)..s(3r + 2), v's values s12-s15, acc (r, x) in s(16 + 4r + x),
// loaded and stored with one VLDM / VSTM per row. Single keys first, then
// the triples: every accumulator adds its terms in key order.
#define ATTN_PV_V              \
  "vldmia %[v], {s12-s15}\n\t" \
  "add %[v], %[v], %[vs]\n\t"
#define ATTN_PV_FMA4(w, a0, a1, a2, a3) \
  "vfma.f32 " a0 ", " w                 \
  ", s12\n\t"                           \
  "vfma.f32 " a1 ", " w                 \
  ", s13\n\t"                           \
  "vfma.f32 " a2 ", " w                 \
  ", s14\n\t"                           \
  "vfma.f32 " a3 ", " w ", s15\n\t"
// One key: query rows' weights w0..w3.
#define ATTN_PV_KEY(w0, w1, w2, w3)                                                             \
  ATTN_PV_V ATTN_PV_FMA4(w0, "s16", "s17", "s18", "s19")                                        \
      ATTN_PV_FMA4(w1, "s20", "s21", "s22", "s23") ATTN_PV_FMA4(w2, "s24", "s25", "s26", "s27") \
          ATTN_PV_FMA4(w3, "s28", "s29", "s30", "s31")
#define ATTN_PV_ACC(op)             \
  op " %[a], {s16-s19}\n\t"         \
     "add %[a], %[a], %[as]\n\t" op \
     " %[a], {s20-s23}\n\t"         \
     "add %[a], %[a], %[as]\n\t" op \
     " %[a], {s24-s27}\n\t"         \
     "add %[a], %[a], %[as]\n\t" op " %[a], {s28-s31}\n\t"

template <>
ATTN_MCU_LEAF void pv_block<4, 4>(const PvTile& t, int32_t i, int32_t c, int32_t nk) {
  float* const acc = t.acc + static_cast<std::size_t>(i) * t.a_stride + c;
  const float* p0 = t.p + static_cast<std::size_t>(i) * t.p_stride;
  const float* p1 = p0 + t.p_stride;
  const float* p2 = p1 + t.p_stride;
  const float* p3 = p2 + t.p_stride;
  const float* v = t.v + c;
  const uint32_t vs = static_cast<uint32_t>(t.v_stride * sizeof(float));
  const uint32_t as = static_cast<uint32_t>(t.a_stride * sizeof(float));
  // Two copies of acc's address, both outputs: GCC may give an input
  // operand the register of an output holding the same value.
  float* a = acc;
  float* rows = acc;
  int32_t singles = nk % 3;
  int32_t triples = nk / 3;
  __asm__ volatile(
      ATTN_PV_ACC("vldmia")
      "cmp %[singles], #0\n\t"
      "beq 2f\n"
      "1:\n\t"
      "vldmia %[p0]!, {s0}\n\t"
      "vldmia %[p1]!, {s3}\n\t"
      "vldmia %[p2]!, {s6}\n\t"
      "vldmia %[p3]!, {s9}\n\t" ATTN_PV_KEY("s0", "s3", "s6", "s9")
      "subs %[singles], %[singles], #1\n\t"
      "bne 1b\n"
      "2:\n\t"
      "cmp %[triples], #0\n\t"
      "beq 4f\n"
      "3:\n\t"
      "vldmia %[p0]!, {s0-s2}\n\t"
      "vldmia %[p1]!, {s3-s5}\n\t"
      "vldmia %[p2]!, {s6-s8}\n\t"
      "vldmia %[p3]!, {s9-s11}\n\t" ATTN_PV_KEY("s0", "s3", "s6", "s9")
          ATTN_PV_KEY("s1", "s4", "s7", "s10") ATTN_PV_KEY("s2", "s5", "s8", "s11")
      "subs %[triples], %[triples], #1\n\t"
      "bne 3b\n"
      "4:\n\t"
      "mov %[a], %[rows]\n\t" ATTN_PV_ACC("vstmia")
      : [p0] "+r"(p0), [p1] "+r"(p1), [p2] "+r"(p2), [p3] "+r"(p3), [v] "+r"(v),
        [singles] "+r"(singles), [triples] "+r"(triples), [a] "+r"(a), [rows] "+r"(rows)
      : [vs] "r"(vs), [as] "r"(as)
      : "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "s13",
        "s14", "s15", "s16", "s17", "s18", "s19", "s20", "s21", "s22", "s23", "s24", "s25", "s26",
        "s27", "s28", "s29", "s30", "s31", "cc", "memory");
}
#undef ATTN_PV_V
#undef ATTN_PV_FMA4
#undef ATTN_PV_KEY
#undef ATTN_PV_ACC
#endif  // __OPTIMIZE__

// Query rows [i, i+R): 4-column blocks, then single columns.
template <int R>
ATTN_MCU_INLINE void pv_rows(const PvTile& t, int32_t i, int32_t nk, int32_t dv) {
  int32_t c = 0;
  for (; c + kMcuBlock <= dv; c += kMcuBlock) pv_block<R, kMcuBlock>(t, i, c, nk);
  for (; c < dv; ++c) pv_block<R, 1>(t, i, c, nk);
}

}  // namespace

ATTN_MCU_OUTER void pv_tile_f32(const float* p, std::size_t p_stride, int32_t nq, int32_t nk,
                                const float* v, std::size_t v_stride, int32_t dv, float* acc,
                                std::size_t a_stride) {
  const PvTile t{p, p_stride, v, v_stride, acc, a_stride};
  int32_t i = 0;
  for (; i + kMcuBlock <= nq; i += kMcuBlock) pv_rows<kMcuBlock>(t, i, nk, dv);
  for (; i < nq; ++i) pv_rows<1>(t, i, nk, dv);
}

}  // namespace mcu
}  // namespace attn
