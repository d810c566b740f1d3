// Cortex-M scalar-FPU Q.K^T tile (kernels_f32.h, namespace attn::mcu):
//
//   s[i*s_stride + j] = sum_d q[i*q_stride + d] * k[j*k_stride + d],  i < nq, j < nk
//
// Register-blocked: a block of R queries x C keys keeps its R*C scores in FPU
// registers (4 x 4 = 16 of s0-s31) while d runs, so each step loads R + C
// floats for R*C fused multiply-adds instead of 2 loads per FMA (ref). Every
// score is still one accumulator summed in d order with an FMA per term:
// the results are those of ref::qk_tile_f32 bit for bit (same contraction).
// Edges: the last nq % 4 queries and nk % 4 keys take 1-wide blocks.
#include <cstddef>
#include <cstdint>

#include "kernels/f32/kernels_f32.h"
#include "kernels/f32/mcu/block_f32_mcu.h"

namespace attn {
namespace mcu {
namespace {

// Scores of queries q[0..R) x keys k[0..C) (rows at the given strides) into s.
template <int R, int C>
ATTN_MCU_LEAF void qk_block(const float* q, std::size_t q_stride, const float* k,
                            std::size_t k_stride, int32_t d, float* s, std::size_t s_stride) {
  const float* qr[R];
  const float* kr[C];
  ATTN_MCU_UNROLL
  for (int r = 0; r < R; ++r) qr[r] = q + static_cast<std::size_t>(r) * q_stride;
  ATTN_MCU_UNROLL
  for (int c = 0; c < C; ++c) kr[c] = k + static_cast<std::size_t>(c) * k_stride;
  float acc[R][C] = {};
  for (int32_t x = d; x > 0; --x) {
    float qv[R];
    float kv[C];
    ATTN_MCU_UNROLL
    for (int r = 0; r < R; ++r) qv[r] = *qr[r]++;
    ATTN_MCU_UNROLL
    for (int c = 0; c < C; ++c) kv[c] = *kr[c]++;
    ATTN_MCU_UNROLL
    for (int r = 0; r < R; ++r) {
      ATTN_MCU_UNROLL
      for (int c = 0; c < C; ++c) acc[r][c] += qv[r] * kv[c];
    }
  }
  ATTN_MCU_UNROLL
  for (int r = 0; r < R; ++r) {
    ATTN_MCU_UNROLL
    for (int c = 0; c < C; ++c) (s + static_cast<std::size_t>(r) * s_stride)[c] = acc[r][c];
  }
}

// Optimised builds only: the asm needs more core registers than a -O0
// build (r7 its frame pointer, every variable in memory) can give; there
// the template above runs the 4 x 4 blocks.
#if defined(__OPTIMIZE__)
// The 4 x 4 block in inline assembly, the x loop three steps per
// iteration: one VLDM of 3 floats per query row and per key (GCC only emits
// one-register loads), 48 VFMAs and the loop end, 58 instructions per 48
// multiply-adds (the template's loop: 26 per 16). Registers: query row r's
// floats s(3r)..s(3r + 2), the key's s12-s14, score (r, c) in s(16 + 4r + c).
// The first step multiplies (no zeroing), then (d - 1) % 3 single steps,
// then the triples: every score still sums in x order, one FMA a term.
#define ATTN_QK_Q1          \
  "vldmia %[q0]!, {s0}\n\t" \
  "vldmia %[q1]!, {s3}\n\t" \
  "vldmia %[q2]!, {s6}\n\t" \
  "vldmia %[q3]!, {s9}\n\t"
#define ATTN_QK_Q3             \
  "vldmia %[q0]!, {s0-s2}\n\t" \
  "vldmia %[q1]!, {s3-s5}\n\t" \
  "vldmia %[q2]!, {s6-s8}\n\t" \
  "vldmia %[q3]!, {s9-s11}\n\t"
// Key c's float of one step (s12) into scores (0..3, c): op = vmul or vfma.
#define ATTN_QK_K1(op, kc, a0, a1, a2, a3)                                                     \
  "vldmia %[" kc "]!, {s12}\n\t" op " " a0 ", s0, s12\n\t" op " " a1 ", s3, s12\n\t" op " " a2 \
  ", s6, s12\n\t" op " " a3 ", s9, s12\n\t"
#define ATTN_QK_FMA3(a, r0, r1, r2) \
  "vfma.f32 " a ", " r0             \
  ", s12\n\t"                       \
  "vfma.f32 " a ", " r1             \
  ", s13\n\t"                       \
  "vfma.f32 " a ", " r2 ", s14\n\t"
#define ATTN_QK_K3(kc, a0, a1, a2, a3)                                      \
  "vldmia %[" kc "]!, {s12-s14}\n\t" ATTN_QK_FMA3(a0, "s0", "s1", "s2")     \
      ATTN_QK_FMA3(a1, "s3", "s4", "s5") ATTN_QK_FMA3(a2, "s6", "s7", "s8") \
          ATTN_QK_FMA3(a3, "s9", "s10", "s11")
#define ATTN_QK_STEP1(op)                                     \
  ATTN_QK_Q1 ATTN_QK_K1(op, "k0", "s16", "s20", "s24", "s28") \
      ATTN_QK_K1(op, "k1", "s17", "s21", "s25", "s29")        \
          ATTN_QK_K1(op, "k2", "s18", "s22", "s26", "s30")    \
              ATTN_QK_K1(op, "k3", "s19", "s23", "s27", "s31")

template <>
ATTN_MCU_LEAF void qk_block<4, 4>(const float* q, std::size_t q_stride, const float* k,
                                  std::size_t k_stride, int32_t d, float* s, std::size_t s_stride) {
  if (d <= 0) {  // no terms
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 4; ++c) s[static_cast<std::size_t>(r) * s_stride + c] = 0.0f;
    }
    return;
  }
  const float* q0 = q;
  const float* q1 = q0 + q_stride;
  const float* q2 = q1 + q_stride;
  const float* q3 = q2 + q_stride;
  const float* k0 = k;
  const float* k1 = k0 + k_stride;
  const float* k2 = k1 + k_stride;
  const float* k3 = k2 + k_stride;
  int32_t singles = (d - 1) % 3;
  int32_t triples = (d - 1) / 3;
  const uint32_t row = static_cast<uint32_t>(s_stride * sizeof(float));
  __asm__ volatile(
      ATTN_QK_STEP1("vmul.f32")
      "cmp %[singles], #0\n\t"
      "beq 2f\n"
      "1:\n\t" ATTN_QK_STEP1("vfma.f32")
      "subs %[singles], %[singles], #1\n\t"
      "bne 1b\n"
      "2:\n\t"
      "cmp %[triples], #0\n\t"
      "beq 4f\n"
      "3:\n\t" ATTN_QK_Q3 ATTN_QK_K3("k0", "s16", "s20", "s24", "s28")
          ATTN_QK_K3("k1", "s17", "s21", "s25", "s29") ATTN_QK_K3("k2", "s18", "s22", "s26", "s30")
              ATTN_QK_K3("k3", "s19", "s23", "s27", "s31")
      "subs %[triples], %[triples], #1\n\t"
      "bne 3b\n"
      "4:\n\t"
      "vstmia %[s], {s16-s19}\n\t"
      "add %[s], %[s], %[row]\n\t"
      "vstmia %[s], {s20-s23}\n\t"
      "add %[s], %[s], %[row]\n\t"
      "vstmia %[s], {s24-s27}\n\t"
      "add %[s], %[s], %[row]\n\t"
      "vstmia %[s], {s28-s31}\n\t"
      : [q0] "+r"(q0), [q1] "+r"(q1), [q2] "+r"(q2), [q3] "+r"(q3), [k0] "+r"(k0), [k1] "+r"(k1),
        [k2] "+r"(k2), [k3] "+r"(k3), [singles] "+r"(singles), [triples] "+r"(triples),
        [s] "+r"(s)
      : [row] "r"(row)
      : "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "s13",
        "s14", "s16", "s17", "s18", "s19", "s20", "s21", "s22", "s23", "s24", "s25", "s26", "s27",
        "s28", "s29", "s30", "s31", "cc", "memory");
}
#undef ATTN_QK_Q1
#undef ATTN_QK_Q3
#undef ATTN_QK_K1
#undef ATTN_QK_FMA3
#undef ATTN_QK_K3
#undef ATTN_QK_STEP1
#endif  // __OPTIMIZE__

// One score (a single query against a single key: the edges, and every
// score of a one-row product such as Bahdanau's v . tanh(...) rows):
// sum_d q[d] k[d] in d order with one FMA a term, as the template and ref,
// four terms a step from two four-register VLDMs (GCC only emits one-register
// loads: 8 VLDRs for the same four terms).
template <>
ATTN_MCU_LEAF void qk_block<1, 1>(const float* q, std::size_t, const float* k, std::size_t,
                                  int32_t d, float* s, std::size_t) {
  float acc = 0.0f;
  int32_t x = d;
  for (; x >= 4; x -= 4) {
    __asm__(
        "vldmia %[q]!, {s8-s11}\n\t"
        "vldmia %[k]!, {s12-s15}\n\t"
        "vfma.f32 %[acc], s8, s12\n\t"
        "vfma.f32 %[acc], s9, s13\n\t"
        "vfma.f32 %[acc], s10, s14\n\t"
        "vfma.f32 %[acc], s11, s15"
        : [acc] "+t"(acc), [q] "+r"(q), [k] "+r"(k)
        :
        : "s8", "s9", "s10", "s11", "s12", "s13", "s14", "s15", "memory");
  }
  for (; x > 0; --x) acc = __builtin_fmaf(*q++, *k++, acc);
  *s = acc;
}

// Queries q[0..R) against every key: 4-key blocks, then single keys.
template <int R>
ATTN_MCU_INLINE void qk_rows(const float* q, std::size_t q_stride, const float* k,
                             std::size_t k_stride, int32_t nk, int32_t d, float* s,
                             std::size_t s_stride) {
  int32_t j = 0;
  for (; j + kMcuBlock <= nk; j += kMcuBlock) {
    qk_block<R, kMcuBlock>(q, q_stride, k + static_cast<std::size_t>(j) * k_stride, k_stride, d,
                           s + j, s_stride);
  }
  for (; j < nk; ++j) {
    qk_block<R, 1>(q, q_stride, k + static_cast<std::size_t>(j) * k_stride, k_stride, d, s + j,
                   s_stride);
  }
}

}  // namespace

ATTN_MCU_OUTER void qk_tile_f32(const float* q, std::size_t q_stride, int32_t nq, const float* k,
                                std::size_t k_stride, int32_t nk, int32_t d, float* s,
                                std::size_t s_stride) {
  int32_t i = 0;
  for (; i + kMcuBlock <= nq; i += kMcuBlock) {
    qk_rows<kMcuBlock>(q + static_cast<std::size_t>(i) * q_stride, q_stride, k, k_stride, nk, d,
                       s + static_cast<std::size_t>(i) * s_stride, s_stride);
  }
  for (; i < nq; ++i) {
    qk_rows<1>(q + static_cast<std::size_t>(i) * q_stride, q_stride, k, k_stride, nk, d,
               s + static_cast<std::size_t>(i) * s_stride, s_stride);
  }
}

}  // namespace mcu
}  // namespace attn
