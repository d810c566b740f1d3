// Cortex-M55 Helium (MVE) int8 kernels: VMLADAVA.S8 / VADDVA.S8 with tail
// predication (see kernels/s8/kernels_s8.h); each is bit-identical to its
// *_ref version.
#include "kernels/s8/kernels_s8.h"

#if defined(ATTN_S8_KERNELS_MVE)

#include <arm_mve.h>

#include "kernels/s8/fixedpoint.h"

namespace attn {
namespace detail {

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
  return qrow_s8_dot_bytes(packed, zp, k, n);
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

// acc[c] = sum_r w[r] * row_r[c] for c < n, where a copy of `rows` returns
// row_0, row_1, ... on successive calls: 16 columns a block, four int32x4
// accumulators held across every row (pv_s8, pv_s8_strided).
template <class RowCursor>
inline void pv_columns(RowCursor rows, const int16_t* w, int32_t nrows, int32_t n, int32_t* acc) {
  for (int32_t c = 0; c < n; c += 16) {
    const int32_t rem = n - c;
    const mve_pred16_t p0 = lanes32(rem), p1 = lanes32(rem - 4), p2 = lanes32(rem - 8),
                       p3 = lanes32(rem - 12);
    int32x4_t a0 = vdupq_n_s32(0), a1 = a0, a2 = a0, a3 = a0;
    RowCursor next_row = rows;
    for (int32_t r = 0; r < nrows; ++r) {
      const int8_t* row = next_row() + c;
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
}  // namespace

void pv_s8_strided(const int8_t* v, std::size_t stride, const int16_t* w, int32_t nrows, int32_t n,
                   int32_t* acc) {
  pv_columns(
      [next = v, stride]() mutable {
        const int8_t* row = next;
        next += stride;
        return row;
      },
      w, nrows, n, acc);
}

void requantize_row_s8(const int32_t* acc, int32_t n, int32_t offset, int32_t multiplier,
                       int32_t shift, int32_t zero_point, int8_t* out) {
  const int32x4_t left = vdupq_n_s32(shift > 0 ? shift : 0);
  const int32_t right = shift > 0 ? 0 : -shift;
  // RoundingDivideByPOT with VRSHL (ties up) after subtracting 1 from
  // negative values when right > 0: ties away from zero, exactly.
  const int32x4_t neg_right = vdupq_n_s32(-right);
  const auto rq = [&](int32x4_t x) {
    x = vsubq_n_s32(x, offset);
    x = vshlq_s32(x, left);              // wrapping, as the scalar form
    x = vqrdmulhq_n_s32(x, multiplier);  // SRDHM
    const int32x4_t fixup = vshrq_n_s32(vandq_s32(x, neg_right), 31);
    x = vrshlq_s32(vqaddq_s32(x, fixup), neg_right);
    x = vaddq_n_s32(x, zero_point);
    x = vmaxq_s32(x, vdupq_n_s32(-128));
    return vminq_s32(x, vdupq_n_s32(127));
  };
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) vstrbq_s32(out + i, rq(vldrwq_s32(acc + i)));  // whole vectors
  if (i < n) {
    const mve_pred16_t p = vctp32q(static_cast<uint32_t>(n - i));
    vstrbq_p_s32(out + i, rq(vldrwq_z_s32(acc + i, p)), p);
  }
}

void pv_s8(const int8_t* const* rows, const int16_t* w, int32_t nrows, int32_t n, int32_t* acc) {
  pv_columns([next = rows]() mutable { return *next++; }, w, nrows, n, acc);
}

void softmax_s8_row(const int32_t* exp_table, int32_t diff_min, const int8_t* in, int8_t* out,
                    int32_t n) {
  (void)diff_min;  // the table is 0 below it: those keys add 0 and give -128
  int8_t max_in_row = -128;
  int32_t i = 0;
  for (; i + 16 <= n; i += 16) max_in_row = vmaxvq_s8(max_in_row, vldrbq_s8(in + i));
  if (i < n) {
    const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n - i));
    max_in_row = vmaxvq_p_s8(max_in_row, vldrbq_z_s8(in + i, p), p);
  }
  // exp(d) by gathering table[-d] four lanes at a time (whole vectors, then
  // the tail's lanes under VCTP). For the non-negative exp values
  // RoundingDivideByPOT is exactly VRSHR / VRSHL (ties up = ties away).
  const auto exp4 = [&](int32_t at) {  // whole vectors (indices in [0, 255])
    const int32x4_t d = vsubq_n_s32(vldrbq_s32(in + at), max_in_row);
    return vldrwq_gather_shifted_offset_s32(exp_table, vreinterpretq_u32_s32(vnegq_s32(d)));
  };
  const auto exp4_tail = [&](int32_t at, mve_pred16_t p) {
    const int32x4_t d = vsubq_n_s32(vldrbq_z_s32(in + at, p), max_in_row);
    return vldrwq_gather_shifted_offset_z_s32(exp_table, vreinterpretq_u32_s32(vnegq_s32(d)), p);
  };
  const int32_t n4 = n / 4 * 4;
  const mve_pred16_t tail = vctp32q(static_cast<uint32_t>(n - n4));
  int32_t sum_of_exps = 0;
  for (i = 0; i < n4; i += 4) sum_of_exps = vaddvaq_s32(sum_of_exps, vrshrq_n_s32(exp4(i), 12));
  if (n4 < n) sum_of_exps = vaddvaq_s32(sum_of_exps, vrshrq_n_s32(exp4_tail(n4, tail), 12));
  int num_bits_over_unit = 0;
  const int32_t shifted_scale = q::get_reciprocal(sum_of_exps, 12, &num_bits_over_unit);
  const int exponent = num_bits_over_unit + 31 - 8;
  if (exponent > 31) {  // every output rounds to 0 -> -128
    for (i = 0; i < n; ++i) out[i] = -128;
    return;
  }
  const int32x4_t right = vdupq_n_s32(-exponent);
  const auto out4 = [&](int32x4_t e) {
    const int32x4_t y = vrshlq_s32(vqrdmulhq_n_s32(e, shifted_scale), right);
    return vminq_s32(vsubq_n_s32(y, 128), vdupq_n_s32(127));
  };
  for (i = 0; i < n4; i += 4) vstrbq_s32(out + i, out4(exp4(i)));
  if (n4 < n) vstrbq_p_s32(out + n4, out4(exp4_tail(n4, tail)), tail);
}

// weights_from_codes_s8 16 bytes a step: VEOR 0x80 and VADDVA.U8 for the sum
// (whole vectors, then the tail and the zeros up to n_pad under VCTP).
int32_t weights_from_codes_s8(uint8_t* w, int32_t n, int32_t n_pad) {
  uint32_t sum = 0;
  int32_t c = 0;
  for (; c + 16 <= n; c += 16) {
    const uint8x16_t x = veorq_u8(vldrbq_u8(w + c), vdupq_n_u8(0x80));
    vstrbq_u8(w + c, x);
    sum = vaddvaq_u8(sum, x);
  }
  for (; c < n_pad; c += 16) {
    const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n_pad - c));
    const mve_pred16_t in = vctp8q(static_cast<uint32_t>(n > c ? n - c : 0));
    const uint8x16_t x =
        veorq_m_u8(vdupq_n_u8(0), vldrbq_z_u8(w + c, in), vdupq_n_u8(0x80), in);  // 0 past n
    vstrbq_p_u8(w + c, x, p);
    sum = vaddvaq_u8(sum, x);
  }
  return static_cast<int32_t>(sum);
}

// Bahdanau's ADD + TANH products four units a vector: the codes' t2 entries
// gathered (VLDRW with the sign-extended codes as offsets from t2 + 128),
// then the doubled form of the requantization (see the DSP set's
// add_tanh_dot_s8): for x = (a2 + t2) / 2 and r = -shift in [1, 21],
//   requantize(x) + 128 = clamp((VRMULH(2x, m) + bias - [x < 0]) >> r, 0, 255),
//   bias = 2^(r-1) + (zp + 128) 2^r
// (VRMULH(2x, m) = (2x m + 2^31) >> 32 = SRDHM(x, m)), the TANH codes
// gathered by those indices (VLDRB), and VMLADAVA with v. Other shifts take
// the reference.
int32_t add_tanh_dot_s8(const int32_t* a2, const int32_t* t2, const int8_t* codes, const int8_t* v,
                        int32_t n, int32_t m, int32_t shift, int32_t zp, const int8_t* tanh_table) {
  const AddTanhRq rq(m, shift, zp);
  if (!rq.ok) return add_tanh_dot_s8_ref(a2, t2, codes, v, n, m, shift, zp, tanh_table);
  const int32_t right = rq.right;
  const int32_t bias = rq.bias;
  const int32x4_t mv = vdupq_n_s32(m);
  const int32_t* t = t2 + 128;
  // The table indices of four units from their a2 and t2 entries.
  const auto index4 = [&](int32x4_t a, int32x4_t b) {
    const int32x4_t x2 = vaddq_s32(a, b);
    const int32x4_t h = vaddq_s32(vrmulhq_s32(x2, mv), vaddq_n_s32(vshrq_n_s32(x2, 31), bias));
    return vreinterpretq_u32_s32(
        vminq_s32(vmaxq_s32(vshlq_r_s32(h, -right), vdupq_n_s32(0)), vdupq_n_s32(255)));
  };
  int32_t acc = 0;
  int32_t u = 0;
  for (; u + 4 <= n; u += 4) {
    const uint32x4_t c = vreinterpretq_u32_s32(vldrbq_s32(codes + u));
    const uint32x4_t i = index4(vldrwq_s32(a2 + u), vldrwq_gather_shifted_offset_s32(t, c));
    acc = vmladavaq_s32(acc, vldrbq_gather_offset_s32(tanh_table, i), vldrbq_s32(v + u));
  }
  if (u < n) {
    const mve_pred16_t p = vctp32q(static_cast<uint32_t>(n - u));
    const uint32x4_t c = vreinterpretq_u32_s32(vldrbq_z_s32(codes + u, p));
    const uint32x4_t i =
        index4(vldrwq_z_s32(a2 + u, p), vldrwq_gather_shifted_offset_z_s32(t, c, p));
    acc = vmladavaq_p_s32(acc, vldrbq_gather_offset_z_s32(tanh_table, i, p), vldrbq_z_s32(v + u, p),
                          p);
  }
  return acc;
}

const char* kernels_s8_name() { return "mve"; }

}  // namespace detail
}  // namespace attn

#endif  // ATTN_S8_KERNELS_MVE
