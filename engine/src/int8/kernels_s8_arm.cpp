// Cortex-M int8 kernels: DSP extension (SMLAD) and Helium (MVE). See
// attn/int8/kernels_s8.h; each is bit-identical to its *_ref version.
#include <cstring>

#include "attn/int8/kernels_s8.h"

#if defined(ATTN_S8_KERNELS_MVE)
#include <arm_mve.h>
#elif defined(ATTN_S8_KERNELS_DSP)
#include <arm_acle.h>
#endif

namespace attn {
namespace detail {

#if defined(ATTN_S8_KERNELS_MVE)

int32_t dot_s8(const int8_t* a, const int8_t* b, int32_t n, int32_t* sum_b) {
  int32_t acc = 0;
  int32_t sb = 0;
  while (n > 0) {
    const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n));
    const int8x16_t va = vldrbq_z_s8(a, p);
    const int8x16_t vb = vldrbq_z_s8(b, p);
    acc = vmladavaq_p_s8(acc, va, vb, p);
    sb = vaddvaq_p_s8(sb, vb, p);
    a += 16;
    b += 16;
    n -= 16;
  }
  *sum_b = sb;
  return acc;
}

void mac_s8(int32_t* acc, const int8_t* b, int32_t w, int32_t n) {
  while (n > 0) {
    const mve_pred16_t p = vctp32q(static_cast<uint32_t>(n));
    const int32x4_t vb = vldrbq_z_s32(b, p);
    const int32x4_t va = vldrwq_z_s32(acc, p);
    vstrwq_p_s32(acc, vmlaq_n_s32(va, vb, w), p);
    acc += 4;
    b += 4;
    n -= 4;
  }
}

const char* kernels_s8_name() { return "mve"; }

#elif defined(ATTN_S8_KERNELS_DSP)

namespace {

// SXTB16 of the odd bytes: SXTB16 with its ROR #8 operand. GCC 12 does not
// fold a C rotate ((x >> 8) | (x << 24)) into the operand (it emits a separate
// ROR), so this one instruction is written out.
inline int16x2_t sxtb16_ror8(uint32_t x) {
  int16x2_t r;
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(x));
  return r;
}

inline uint32_t load4(const int8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);  // unaligned word load (LDR allows it on M4/M7/M33)
  return v;
}

}  // namespace

int32_t dot_s8(const int8_t* a, const int8_t* b, int32_t n, int32_t* sum_b) {
  int32_t acc = 0;
  int32_t sb = 0;
  constexpr int16x2_t kOnes = 0x00010001;
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const uint32_t a4 = load4(a + i);
    const uint32_t b4 = load4(b + i);
    const int16x2_t a02 = __sxtb16(static_cast<int8x4_t>(a4));
    const int16x2_t a13 = sxtb16_ror8(a4);
    const int16x2_t b02 = __sxtb16(static_cast<int8x4_t>(b4));
    const int16x2_t b13 = sxtb16_ror8(b4);
    acc = __smlad(a02, b02, acc);
    acc = __smlad(a13, b13, acc);
    sb = __smlad(b02, kOnes, sb);
    sb = __smlad(b13, kOnes, sb);
  }
  for (; i < n; ++i) {
    acc += static_cast<int32_t>(a[i]) * static_cast<int32_t>(b[i]);
    sb += b[i];
  }
  *sum_b = sb;
  return acc;
}

void mac_s8(int32_t* acc, const int8_t* b, int32_t w, int32_t n) {
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    acc[i] += w * static_cast<int32_t>(b[i]);
    acc[i + 1] += w * static_cast<int32_t>(b[i + 1]);
    acc[i + 2] += w * static_cast<int32_t>(b[i + 2]);
    acc[i + 3] += w * static_cast<int32_t>(b[i + 3]);
  }
  for (; i < n; ++i) acc[i] += w * static_cast<int32_t>(b[i]);
}

const char* kernels_s8_name() { return "dsp"; }

#endif

}  // namespace detail
}  // namespace attn
