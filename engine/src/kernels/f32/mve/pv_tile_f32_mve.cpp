// Helium P.V update (kernels_f32.h, namespace attn::mve), row-major P and the
// transposed tiles' P^T:
//
//   acc[i*a_stride + c] += sum_j p[i*pi + j*pj] * v[j*v_stride + c],  i < nq, c < dv
//
// (pv_tile_f32: pi = p_stride, pj = 1; pv_tile_t_f32: pi = 1, pj = tq.)
// A block of 2 queries x 3 column vectors (12 columns) keeps its 6
// accumulator vectors in registers while the keys run: per key it loads the 3
// vectors of v's row and the 2 weights (into core registers, the scalar
// operand of VFMA) for 6 VFMAs. Every accumulator adds its terms in key order
// with an FMA each, as ref. Edges: a last single query, 2- and 1-vector
// blocks, and the last dv % 4 columns as one predicated vector (VCTP).
//
// The SDPA core's case (transposed, tq = 16, full blocks) runs its key loop
// in inline assembly, 12 instructions per key: one LDRD of both weights
// (post-indexed by the tile's row), 3 VLDRW, 6 VFMA, the add of v's stride
// and the loop end LE. GCC 12 compiles the same loop from intrinsics to 16-19
// (the weights go through FPU registers and the stack, pointers are copied
// before post-indexed loads).
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

// The key loop of a 2 x 3 block of the transposed tiles with tq = kTq:
// s<r><c> += pt[j*kTq + r] * v[j*v_stride + 4c .. 4c+3] for j < nk (nk >= 1).
template <int kTq>
void pv_keys_2x3_t(const float* pt, const float* v, std::size_t v_stride, int32_t nk,
                   float32x4_t s[2][3]) {
  static_assert(kTq * 4 <= 1020, "LDRD post-index: the tile's row within 1020 bytes");
  float32x4_t s00 = s[0][0], s01 = s[0][1], s02 = s[0][2];
  float32x4_t s10 = s[1][0], s11 = s[1][1], s12 = s[1][2];
  float32x4_t t0, t1;
  uint32_t w0, w1;
  const uint32_t vs = static_cast<uint32_t>(v_stride * sizeof(float));
  __asm__ volatile(
      "dls lr, %[n]\n"
      "1:\n\t"
      "ldrd %[w0], %[w1], [%[p]], %[row]\n\t"
      "vldrw.32 %q[t0], [%[v]]\n\t"
      "vldrw.32 %q[t1], [%[v], #16]\n\t"
      "vfma.f32 %q[s00], %q[t0], %[w0]\n\t"
      "vfma.f32 %q[s10], %q[t0], %[w1]\n\t"
      "vldrw.32 %q[t0], [%[v], #32]\n\t"
      "vfma.f32 %q[s01], %q[t1], %[w0]\n\t"
      "vfma.f32 %q[s11], %q[t1], %[w1]\n\t"
      "add %[v], %[v], %[vs]\n\t"
      "vfma.f32 %q[s02], %q[t0], %[w0]\n\t"
      "vfma.f32 %q[s12], %q[t0], %[w1]\n\t"
      "le lr, 1b\n"
      : [s00] "+w"(s00), [s01] "+w"(s01), [s02] "+w"(s02), [s10] "+w"(s10), [s11] "+w"(s11),
        [s12] "+w"(s12), [t0] "=&w"(t0), [t1] "=&w"(t1), [w0] "=&r"(w0), [w1] "=&r"(w1),
        [p] "+r"(pt), [v] "+r"(v)
      : [n] "r"(nk), [vs] "r"(vs), [row] "I"(kTq * 4)
      : "lr", "memory");
  s[0][0] = s00, s[0][1] = s01, s[0][2] = s02;
  s[1][0] = s10, s[1][1] = s11, s[1][2] = s12;
}

// The key loop of a 7 x 1 block of the transposed tiles with tq = 16:
// s<r> += pt[j*16 + r] * v[j*v_stride .. + 3] for j < nk (nk >= 1). The 7
// weights of a key are one LDM (into r4-r10: LDM takes its registers in
// ascending order; GCC cannot bind them to the argument registers r0-r3), 12 instructions per key for 7 VFMAs.
inline void pv_keys_7x1_t16(const float* pt, const float* v, std::size_t v_stride, int32_t nk,
                            float32x4_t s[7][1]) {
  float32x4_t s0 = s[0][0], s1 = s[1][0], s2 = s[2][0], s3 = s[3][0], s4 = s[4][0], s5 = s[5][0],
              s6 = s[6][0];
  float32x4_t t;
  register uint32_t w0 __asm__("r4");
  register uint32_t w1 __asm__("r5");
  register uint32_t w2 __asm__("r6");
  register uint32_t w3 __asm__("r7");
  register uint32_t w4 __asm__("r8");
  register uint32_t w5 __asm__("r9");
  register uint32_t w6 __asm__("r10");
  const uint32_t vs = static_cast<uint32_t>(v_stride * sizeof(float));
  __asm__ volatile(
      "dls lr, %[n]\n"
      "1:\n\t"
      "ldm %[p], {%[w0], %[w1], %[w2], %[w3], %[w4], %[w5], %[w6]}\n\t"
      "vldrw.32 %q[t], [%[v]]\n\t"
      "add %[p], %[p], #64\n\t"
      "vfma.f32 %q[s0], %q[t], %[w0]\n\t"
      "vfma.f32 %q[s1], %q[t], %[w1]\n\t"
      "vfma.f32 %q[s2], %q[t], %[w2]\n\t"
      "add %[v], %[v], %[vs]\n\t"
      "vfma.f32 %q[s3], %q[t], %[w3]\n\t"
      "vfma.f32 %q[s4], %q[t], %[w4]\n\t"
      "vfma.f32 %q[s5], %q[t], %[w5]\n\t"
      "vfma.f32 %q[s6], %q[t], %[w6]\n\t"
      "le lr, 1b\n"
      : [s0] "+w"(s0), [s1] "+w"(s1), [s2] "+w"(s2), [s3] "+w"(s3), [s4] "+w"(s4), [s5] "+w"(s5),
        [s6] "+w"(s6), [t] "=&w"(t), [w0] "=&r"(w0), [w1] "=&r"(w1), [w2] "=&r"(w2), [w3] "=&r"(w3),
        [w4] "=&r"(w4), [w5] "=&r"(w5), [w6] "=&r"(w6), [p] "+r"(pt), [v] "+r"(v)
      : [n] "r"(nk), [vs] "r"(vs)
      : "lr", "memory");
  s[0][0] = s0, s[1][0] = s1, s[2][0] = s2, s[3][0] = s3, s[4][0] = s4, s[5][0] = s5, s[6][0] = s6;
}

// Queries [0, R) x columns [0, 4 C) of the block at a.p, a.v, a.acc; kTail:
// one vector (C = 1) of only `tail` < 4 columns, predicated loads and stores.
// kT: the transposed tiles (pi = 1: a key's R weights are adjacent); kTq:
// their tq when it is the core's 16 (the assembly loop), else 0.
template <bool kT, int kTq, int R, int C, bool kTail = false>
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
  if constexpr (kT && kTq != 0 && R == 2 && C == 3 && !kTail) {
    if (a.nk > 0) pv_keys_2x3_t<kTq>(a.p, a.v, a.v_stride, a.nk, s);
  } else if constexpr (kT && kTq == 16 && R == 7 && C == 1 && !kTail) {
    if (a.nk > 0) pv_keys_7x1_t16(a.p, a.v, a.v_stride, a.nk, s);
  } else {
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

// Queries [0, R) of a over every column: blocks of 3 column vectors, or of
// one for the 7-query blocks.
template <bool kT, int kTq, int R>
void pv_rows(PvArgs a, int32_t dv) {
  int32_t c = 0;
  if constexpr (R == 7) {
    for (; c + 4 <= dv; c += 4, a.v += 4, a.acc += 4) pv_block<kT, kTq, R, 1>(a);
    if (c < dv) pv_block<kT, kTq, R, 1, true>(a, dv - c);
    return;
  }
  for (; c + 12 <= dv; c += 12, a.v += 12, a.acc += 12) pv_block<kT, kTq, R, 3>(a);
  if (dv - c >= 8) {
    pv_block<kT, kTq, R, 2>(a);
    c += 8, a.v += 8, a.acc += 8;
  }
  if (dv - c >= 4) {
    pv_block<kT, kTq, R, 1>(a);
    c += 4, a.v += 4, a.acc += 4;
  }
  if (c < dv) pv_block<kT, kTq, R, 1, true>(a, dv - c);
}

template <bool kT, int kTq>
void pv_tile(const float* p, std::size_t pi, std::size_t pj, int32_t nq, int32_t nk, const float* v,
             std::size_t v_stride, int32_t dv, float* acc, std::size_t a_stride) {
  PvArgs a{p, pi, pj, nk, v, v_stride, acc, a_stride};
  int32_t i = 0;
  if constexpr (kT && kTq == 16) {
    for (; i + 7 <= nq; i += 7, a.p += 7, a.acc += 7 * a_stride) pv_rows<kT, kTq, 7>(a, dv);
  }
  for (; i + 2 <= nq; i += 2, a.p += 2 * pi, a.acc += 2 * a_stride) pv_rows<kT, kTq, 2>(a, dv);
  if (i < nq) pv_rows<kT, kTq, 1>(a, dv);
}

}  // namespace

void pv_tile_f32(const float* p, std::size_t p_stride, int32_t nq, int32_t nk, const float* v,
                 std::size_t v_stride, int32_t dv, float* acc, std::size_t a_stride) {
  pv_tile<false, 0>(p, p_stride, 1, nq, nk, v, v_stride, dv, acc, a_stride);
}

void pv_tile_t_f32(const float* pt, int32_t tq, int32_t nq, int32_t nk, const float* v,
                   std::size_t v_stride, int32_t dv, float* acc, std::size_t a_stride) {
  if (tq == 16) {
    pv_tile<true, 16>(pt, 1, Sz(tq), nq, nk, v, v_stride, dv, acc, a_stride);
  } else {
    pv_tile<true, 0>(pt, 1, Sz(tq), nq, nk, v, v_stride, dv, acc, a_stride);
  }
}

}  // namespace mve
}  // namespace attn
