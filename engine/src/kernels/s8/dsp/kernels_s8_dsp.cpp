// Cortex-M int8 kernels: DSP extension (SMLAD) and Helium (MVE). See
// kernels/s8/kernels_s8.h; each is bit-identical to its *_ref version.
#include <cstring>

#include "kernels/s8/kernels_s8.h"

#include "kernels/s8/fixedpoint.h"

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

int32_t qrow_s8_pack(const int8_t* q, int32_t zp, int32_t n, void* packed) {
  // zp is applied in the dots: sum (q - zp) k = sum q k - zp sum k.
  auto* dst = static_cast<int8_t*>(packed);
  int32_t sum = 0;
  for (int32_t i = 0; i < n; i += 16) {
    const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n - i));
    const int8x16_t v = vldrbq_z_s8(q + i, p);
    vstrbq_p_s8(dst + i, v, p);
    sum = vaddvaq_p_s8(sum, v, p);
  }
  return sum - zp * n;
}

int32_t qrow_s8_dot(const void* packed, int32_t zp, const int8_t* k, int32_t n) {
  int32_t sum_k = 0;
  const int32_t dot = dot_s8(static_cast<const int8_t*>(packed), k, n, &sum_k);
  return dot - zp * sum_k;
}

void qk_s8(const void* packed, int32_t zp, const int8_t* k, std::size_t k_stride, int32_t nkeys,
           int32_t n, int32_t* out) {
  const auto* q = static_cast<const int8_t*>(packed);
  int32_t j = 0;
  // Two keys a step share each query vector load.
  for (; j + 2 <= nkeys; j += 2) {
    const int8_t* k1 = k + static_cast<std::size_t>(j) * k_stride;
    const int8_t* k2 = k1 + k_stride;
    const int8_t* qp = q;
    int32_t a1 = 0, a2 = 0, s1 = 0, s2 = 0;
    for (int32_t i = n; i > 0; i -= 16) {
      const mve_pred16_t p = vctp8q(static_cast<uint32_t>(i));
      const int8x16_t vq = vldrbq_z_s8(qp, p);
      const int8x16_t v1 = vldrbq_z_s8(k1, p);
      const int8x16_t v2 = vldrbq_z_s8(k2, p);
      a1 = vmladavaq_p_s8(a1, vq, v1, p);
      a2 = vmladavaq_p_s8(a2, vq, v2, p);
      s1 = vaddvaq_p_s8(s1, v1, p);
      s2 = vaddvaq_p_s8(s2, v2, p);
      qp += 16;
      k1 += 16;
      k2 += 16;
    }
    out[j] = a1 - zp * s1;
    out[j + 1] = a2 - zp * s2;
  }
  if (j < nkeys) out[j] = qrow_s8_dot(packed, zp, k + static_cast<std::size_t>(j) * k_stride, n);
}

namespace {
// vctp32q of a count that may be negative (no lanes then).
inline mve_pred16_t lanes32(int32_t remaining) {
  return vctp32q(remaining > 0 ? static_cast<uint32_t>(remaining) : 0u);
}
}  // namespace

void pv_s8_strided(const int8_t* v, std::size_t stride, const int16_t* w, int32_t nrows, int32_t n,
                   int32_t* acc) {
  for (int32_t c = 0; c < n; c += 16) {
    const int32_t rem = n - c;
    const mve_pred16_t p0 = lanes32(rem), p1 = lanes32(rem - 4), p2 = lanes32(rem - 8),
                       p3 = lanes32(rem - 12);
    int32x4_t a0 = vdupq_n_s32(0), a1 = a0, a2 = a0, a3 = a0;
    const int8_t* row = v + c;
    for (int32_t r = 0; r < nrows; ++r, row += stride) {
      const int32_t wr = w[r];
      a0 = vmlaq_n_s32(a0, vldrbq_z_s32(row, p0), wr);
      a1 = vmlaq_n_s32(a1, vldrbq_z_s32(row + 4, p1), wr);
      a2 = vmlaq_n_s32(a2, vldrbq_z_s32(row + 8, p2), wr);
      a3 = vmlaq_n_s32(a3, vldrbq_z_s32(row + 12, p3), wr);
    }
    vstrwq_p_s32(acc + c, a0, p0);
    vstrwq_p_s32(acc + c + 4, a1, p1);
    vstrwq_p_s32(acc + c + 8, a2, p2);
    vstrwq_p_s32(acc + c + 12, a3, p3);
  }
}

void requantize_row_s8(const int32_t* acc, int32_t n, int32_t offset, int32_t multiplier,
                       int32_t shift, int32_t zero_point, int8_t* out) {
  const int32x4_t left = vdupq_n_s32(shift > 0 ? shift : 0);
  const int32_t right = shift > 0 ? 0 : -shift;
  // RoundingDivideByPOT with VRSHL (ties up) after subtracting 1 from
  // negative values when right > 0: ties away from zero, exactly.
  const int32x4_t neg_right = vdupq_n_s32(-right);
  for (int32_t i = 0; i < n; i += 4) {
    const mve_pred16_t p = vctp32q(static_cast<uint32_t>(n - i));
    int32x4_t x = vsubq_n_s32(vldrwq_z_s32(acc + i, p), offset);
    x = vshlq_s32(x, left);                 // wrapping, as the scalar form
    x = vqrdmulhq_n_s32(x, multiplier);     // SRDHM
    const int32x4_t fixup = vshrq_n_s32(vandq_s32(x, neg_right), 31);
    x = vrshlq_s32(vqaddq_s32(x, fixup), neg_right);
    x = vaddq_n_s32(x, zero_point);
    x = vmaxq_s32(x, vdupq_n_s32(-128));
    x = vminq_s32(x, vdupq_n_s32(127));
    vstrbq_p_s32(out + i, x, p);
  }
}

void pv_s8(const int8_t* const* rows, const int16_t* w, int32_t nrows, int32_t n, int32_t* acc) {
  // 16 columns a block, four int32x4 accumulators held across every row.
  for (int32_t c = 0; c < n; c += 16) {
    const int32_t rem = n - c;
    const mve_pred16_t p0 = lanes32(rem), p1 = lanes32(rem - 4), p2 = lanes32(rem - 8),
                       p3 = lanes32(rem - 12);
    int32x4_t a0 = vdupq_n_s32(0), a1 = a0, a2 = a0, a3 = a0;
    for (int32_t r = 0; r < nrows; ++r) {
      const int8_t* row = rows[r] + c;
      const int32_t wr = w[r];
      a0 = vmlaq_n_s32(a0, vldrbq_z_s32(row, p0), wr);
      a1 = vmlaq_n_s32(a1, vldrbq_z_s32(row + 4, p1), wr);
      a2 = vmlaq_n_s32(a2, vldrbq_z_s32(row + 8, p2), wr);
      a3 = vmlaq_n_s32(a3, vldrbq_z_s32(row + 12, p3), wr);
    }
    vstrwq_p_s32(acc + c, a0, p0);
    vstrwq_p_s32(acc + c + 4, a1, p1);
    vstrwq_p_s32(acc + c + 8, a2, p2);
    vstrwq_p_s32(acc + c + 12, a3, p3);
  }
}

void softmax_s8_row(const int32_t* exp_table, int32_t diff_min, const int8_t* in, int8_t* out,
                    int32_t n) {
  int8_t max_in_row = -128;
  for (int32_t i = 0; i < n; i += 16) {
    const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n - i));
    max_in_row = vmaxvq_p_s8(max_in_row, vldrbq_z_s8(in + i, p), p);
  }
  // exp(d) by gathering table[-d] four lanes at a time; lanes with
  // d < diff_min (or past n) are off. For the non-negative exp values
  // RoundingDivideByPOT is exactly VRSHR / VRSHL (ties up = ties away).
  int32_t sum_of_exps = 0;
  for (int32_t i = 0; i < n; i += 4) {
    const mve_pred16_t p = vctp32q(static_cast<uint32_t>(n - i));
    const int32x4_t d = vsubq_n_s32(vldrbq_z_s32(in + i, p), max_in_row);
    const mve_pred16_t on = vcmpgeq_m_n_s32(d, diff_min, p);
    const int32x4_t e = vldrwq_gather_shifted_offset_z_s32(
        exp_table, vreinterpretq_u32_s32(vnegq_s32(d)), on);
    sum_of_exps = vaddvaq_s32(sum_of_exps, vrshrq_n_s32(e, 12));
  }
  int num_bits_over_unit = 0;
  const int32_t shifted_scale = q::get_reciprocal(sum_of_exps, 12, &num_bits_over_unit);
  const int exponent = num_bits_over_unit + 31 - 8;
  if (exponent > 31) {  // every output rounds to 0 -> -128
    for (int32_t i = 0; i < n; ++i) out[i] = -128;
    return;
  }
  const int32x4_t right = vdupq_n_s32(-exponent);
  const int32x4_t lowest = vdupq_n_s32(-128);
  for (int32_t i = 0; i < n; i += 4) {
    const mve_pred16_t p = vctp32q(static_cast<uint32_t>(n - i));
    const int32x4_t d = vsubq_n_s32(vldrbq_z_s32(in + i, p), max_in_row);
    const mve_pred16_t on = vcmpgeq_m_n_s32(d, diff_min, p);
    const int32x4_t e = vldrwq_gather_shifted_offset_z_s32(
        exp_table, vreinterpretq_u32_s32(vnegq_s32(d)), on);
    int32x4_t y = vrshlq_s32(vqrdmulhq_n_s32(e, shifted_scale), right);
    y = vminq_s32(vsubq_n_s32(y, 128), vdupq_n_s32(127));
    y = vpselq_s32(y, lowest, on);
    vstrbq_p_s32(out + i, y, p);
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

// PKHBT / PKHTB (GCC 12 builds these from C with two instructions each).
// pack_lo(a, b) = (a[15:0], b[15:0]); pack_hi(a, b) = (a[31:16], b[31:16]),
// first argument in the low half.
inline uint32_t pack_lo(uint32_t a, uint32_t b) {
  uint32_t r;
  __asm__("pkhbt %0, %1, %2, lsl #16" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
inline uint32_t pack_hi(uint32_t a, uint32_t b) {
  uint32_t r;
  __asm__("pkhtb %0, %1, %2, asr #16" : "=r"(r) : "r"(b), "r"(a));
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

int32_t qrow_s8_pack(const int8_t* q, int32_t zp, int32_t n, void* packed) {
  // Groups of four as (q0, q2), (q1, q3): the halves SXTB16 / SXTB16 ROR #8
  // extract from four key bytes. The tail stays in order.
  auto* p = static_cast<int16_t*>(packed);
  int32_t sum = 0;
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    p[i] = static_cast<int16_t>(q[i] - zp);
    p[i + 1] = static_cast<int16_t>(q[i + 2] - zp);
    p[i + 2] = static_cast<int16_t>(q[i + 1] - zp);
    p[i + 3] = static_cast<int16_t>(q[i + 3] - zp);
    sum += q[i] + q[i + 1] + q[i + 2] + q[i + 3];
  }
  for (; i < n; ++i) {
    p[i] = static_cast<int16_t>(q[i] - zp);
    sum += q[i];
  }
  return sum - zp * n;
}

int32_t qrow_s8_dot(const void* packed, int32_t zp, const int8_t* k, int32_t n) {
  (void)zp;
  const auto* p = static_cast<const int16_t*>(packed);
  int32_t acc = 0;
  int32_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint32_t q02a, q13a, q02b, q13b;
    std::memcpy(&q02a, p + i, 4);
    std::memcpy(&q13a, p + i + 2, 4);
    std::memcpy(&q02b, p + i + 4, 4);
    std::memcpy(&q13b, p + i + 6, 4);
    const uint32_t ka = load4(k + i);
    const uint32_t kb = load4(k + i + 4);
    acc = __smlad(static_cast<int16x2_t>(q02a), __sxtb16(static_cast<int8x4_t>(ka)), acc);
    acc = __smlad(static_cast<int16x2_t>(q13a), sxtb16_ror8(ka), acc);
    acc = __smlad(static_cast<int16x2_t>(q02b), __sxtb16(static_cast<int8x4_t>(kb)), acc);
    acc = __smlad(static_cast<int16x2_t>(q13b), sxtb16_ror8(kb), acc);
  }
  if (i + 4 <= n) {
    uint32_t q02, q13;
    std::memcpy(&q02, p + i, 4);
    std::memcpy(&q13, p + i + 2, 4);
    const uint32_t k4 = load4(k + i);
    acc = __smlad(static_cast<int16x2_t>(q02), __sxtb16(static_cast<int8x4_t>(k4)), acc);
    acc = __smlad(static_cast<int16x2_t>(q13), sxtb16_ror8(k4), acc);
    i += 4;
  }
  for (; i < n; ++i) acc += static_cast<int32_t>(p[i]) * static_cast<int32_t>(k[i]);
  return acc;
}

void qk_s8(const void* packed, int32_t zp, const int8_t* k, std::size_t k_stride, int32_t nkeys,
           int32_t n, int32_t* out) {
  const auto* p = static_cast<const int16_t*>(packed);
  int32_t j = 0;
  // Two keys a step share each pair of query words.
  for (; j + 2 <= nkeys; j += 2) {
    const int8_t* k1 = k + static_cast<std::size_t>(j) * k_stride;
    const int8_t* k2 = k1 + k_stride;
    int32_t acc1 = 0, acc2 = 0;
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
      uint32_t q02, q13;
      std::memcpy(&q02, p + i, 4);
      std::memcpy(&q13, p + i + 2, 4);
      const uint32_t a4 = load4(k1 + i);
      const uint32_t b4 = load4(k2 + i);
      acc1 = __smlad(static_cast<int16x2_t>(q02), __sxtb16(static_cast<int8x4_t>(a4)), acc1);
      acc1 = __smlad(static_cast<int16x2_t>(q13), sxtb16_ror8(a4), acc1);
      acc2 = __smlad(static_cast<int16x2_t>(q02), __sxtb16(static_cast<int8x4_t>(b4)), acc2);
      acc2 = __smlad(static_cast<int16x2_t>(q13), sxtb16_ror8(b4), acc2);
    }
    for (; i < n; ++i) {
      acc1 += static_cast<int32_t>(p[i]) * static_cast<int32_t>(k1[i]);
      acc2 += static_cast<int32_t>(p[i]) * static_cast<int32_t>(k2[i]);
    }
    out[j] = acc1;
    out[j + 1] = acc2;
  }
  if (j < nkeys) out[j] = qrow_s8_dot(packed, zp, k + static_cast<std::size_t>(j) * k_stride, n);
}

// acc[c] = sum_r w[r] * row_at(r)[c] for c < n, r < nrows: four columns a
// block, two rows a step, the (v_r[c], v_r+1[c]) pairs times the weight pair
// (w_r, w_r+1) with SMLAD; the accumulators stay in registers. row_at gives
// row r's first byte (an array of row pointers, or a base and a stride).
template <class RowAt>
inline void pv_s8_dsp(RowAt row_at, const int16_t* w, int32_t nrows, int32_t n, int32_t* acc) {
  int32_t c = 0;
  for (; c + 4 <= n; c += 4) {
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    int32_t r = 0;
    for (; r + 2 <= nrows; r += 2) {
      const uint32_t v1 = load4(row_at(r) + c);
      const uint32_t v2 = load4(row_at(r + 1) + c);
      uint32_t w12;
      std::memcpy(&w12, w + r, 4);  // (w_r, w_r+1)
      const auto v1e = static_cast<uint32_t>(__sxtb16(static_cast<int8x4_t>(v1)));
      const auto v1o = static_cast<uint32_t>(sxtb16_ror8(v1));
      const auto v2e = static_cast<uint32_t>(__sxtb16(static_cast<int8x4_t>(v2)));
      const auto v2o = static_cast<uint32_t>(sxtb16_ror8(v2));
      const auto ww = static_cast<int16x2_t>(w12);
      a0 = __smlad(static_cast<int16x2_t>(pack_lo(v1e, v2e)), ww, a0);
      a1 = __smlad(static_cast<int16x2_t>(pack_lo(v1o, v2o)), ww, a1);
      a2 = __smlad(static_cast<int16x2_t>(pack_hi(v1e, v2e)), ww, a2);
      a3 = __smlad(static_cast<int16x2_t>(pack_hi(v1o, v2o)), ww, a3);
    }
    if (r < nrows) {
      const int8_t* row = row_at(r) + c;
      const int32_t wr = w[r];
      a0 += wr * row[0];
      a1 += wr * row[1];
      a2 += wr * row[2];
      a3 += wr * row[3];
    }
    acc[c] = a0;
    acc[c + 1] = a1;
    acc[c + 2] = a2;
    acc[c + 3] = a3;
  }
  for (; c < n; ++c) {
    int32_t a = 0;
    for (int32_t r = 0; r < nrows; ++r) a += static_cast<int32_t>(w[r]) * row_at(r)[c];
    acc[c] = a;
  }
}

void pv_s8(const int8_t* const* rows, const int16_t* w, int32_t nrows, int32_t n, int32_t* acc) {
  pv_s8_dsp([rows](int32_t r) { return rows[r]; }, w, nrows, n, acc);
}

void pv_s8_strided(const int8_t* v, std::size_t stride, const int16_t* w, int32_t nrows, int32_t n,
                   int32_t* acc) {
  pv_s8_dsp([v, stride](int32_t r) { return v + static_cast<std::size_t>(r) * stride; }, w, nrows,
            n, acc);
}

const char* kernels_s8_name() { return "dsp"; }

#endif

}  // namespace detail
}  // namespace attn
