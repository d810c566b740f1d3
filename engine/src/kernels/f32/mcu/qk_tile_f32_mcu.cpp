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
void qk_rows(const float* q, std::size_t q_stride, const float* k, std::size_t k_stride, int32_t nk,
             int32_t d, float* s, std::size_t s_stride) {
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

void qk_tile_f32(const float* q, std::size_t q_stride, int32_t nq, const float* k,
                 std::size_t k_stride, int32_t nk, int32_t d, float* s, std::size_t s_stride) {
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
