// Helium scaled, transposed query tile (kernels_f32.h, namespace attn::mve):
//
//   qt[x*tq + i] = scale * q[i*q_stride + x]  for i < nq,  0 for nq <= i < tq;  x < d
//
// Each query row is read 4 floats at a time, scaled, and written down its
// column with one scatter store to rows x .. x+3 (VSTRW with a vector of
// addresses that the store itself moves on by 4 rows: 7 instructions per 8
// floats with the loads, the multiplies and the loop end); the last d % 4 floats are one
// predicated step (VCTP).
#include <cstddef>
#include <cstdint>

#include "kernels/f32/kernels_f32.h"
#include "kernels/f32/mve/mve_f32.h"

namespace attn {
namespace mve {
namespace {

// Column i of qt from row qi (null: zeros), 4 rows per store; addr holds the
// addresses of rows -4 .. -1 of the column (the store adds kStep first).
template <int kStep>
void write_column(const float* qi, float s, int32_t d, uint32x4_t addr) {
  int32_t x = 0;
  if (qi != nullptr) {
    // 8 floats per iteration (GCC 12 adds two pointer moves to the same
    // loop from intrinsics).
    float32x4_t v0, v1;
    __asm__ volatile(
        "lsr lr, %[d], #3\n\t"
        "wls lr, lr, 2f\n"
        "1:\n\t"
        "vldrw.32 %q[v0], [%[qi]], #32\n\t"
        "vldrw.32 %q[v1], [%[qi], #-16]\n\t"
        "vmul.f32 %q[v0], %q[v0], %[s]\n\t"
        "vmul.f32 %q[v1], %q[v1], %[s]\n\t"
        "vstrw.32 %q[v0], [%q[addr], %[step]]!\n\t"
        "vstrw.32 %q[v1], [%q[addr], %[step]]!\n\t"
        "le lr, 1b\n"
        "2:\n"
        : [addr] "+w"(addr), [qi] "+r"(qi), [v0] "=&w"(v0), [v1] "=&w"(v1)
        : [d] "r"(d), [s] "r"(s), [step] "n"(kStep)
        : "lr", "memory");
    x = d & ~7;
    for (; x + 4 <= d; x += 4, qi += 4) {
      vstrwq_scatter_base_wb_f32(&addr, kStep, vmulq_n_f32(vldrwq_f32(qi), s));
    }
  } else {
    for (; x + 4 <= d; x += 4) vstrwq_scatter_base_wb_f32(&addr, kStep, vdupq_n_f32(0.0f));
  }
  if (x < d) {
    const mve_pred16_t p = vctp32q(d - x);
    const float32x4_t v = qi != nullptr ? vmulq_n_f32(vldrwq_z_f32(qi, p), s) : vdupq_n_f32(0.0f);
    vstrwq_scatter_base_p_f32(addr, kStep, v, p);
  }
}

}  // namespace

void transpose_scale_f32(const float* q, std::size_t q_stride, int32_t nq, int32_t d, float scale,
                         float* qt, int32_t tq) {
  const std::size_t t = Sz(tq);
  if (tq == 16) {
    // Byte addresses of rows -4 .. -1 of column 0.
    const uint32_t base = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(qt)) - 4 * 64;
    const uint32x4_t rows = vmulq_n_u32(vidupq_n_u32(0u, 1), 64u);
    for (int32_t i = 0; i < tq; ++i) {
      const uint32x4_t addr = vaddq_n_u32(rows, base + 4u * static_cast<uint32_t>(i));
      write_column<4 * 64>(i < nq ? q + Sz(i) * q_stride : nullptr, scale, d, addr);
    }
    return;
  }
  // Element offsets of rows x .. x+3 of one column.
  const uint32x4_t rows = vmulq_n_u32(vidupq_n_u32(0u, 1), static_cast<uint32_t>(tq));
  for (int32_t i = 0; i < tq; ++i) {
    const float* qi = q + Sz(i) * q_stride;
    const float s = i < nq ? scale : 0.0f;
    int32_t x = 0;
    for (; x + 4 <= d; x += 4) {
      const float32x4_t v = i < nq ? vmulq_n_f32(vldrwq_f32(qi + x), s) : vdupq_n_f32(0.0f);
      vstrwq_scatter_shifted_offset_f32(qt + Sz(x) * t + Sz(i), rows, v);
    }
    if (x < d) {
      const mve_pred16_t p = vctp32q(d - x);
      const float32x4_t v = i < nq ? vmulq_n_f32(vldrwq_z_f32(qi + x, p), s) : vdupq_n_f32(0.0f);
      vstrwq_scatter_shifted_offset_p_f32(qt + Sz(x) * t + Sz(i), rows, v, p);
    }
  }
}

}  // namespace mve
}  // namespace attn
