// Cortex-M4/M7/M33 DSP-extension int8 kernels: SXTB16 (+ ROR #8) and SMLAD
// (see kernels/s8/kernels_s8.h), the requantization of a row (SMULL) and
// Bahdanau's ADD + TANH products (SMMLAR); each is bit-identical to its
// *_ref version.
#include "kernels/s8/kernels_s8.h"

#if defined(ATTN_S8_KERNELS_DSP)

#include <cstring>

#include "kernels/s8/dsp/dsp_ops.h"

namespace attn {
namespace detail {

using dsp::load4;
using dsp::pack_hi;
using dsp::pack_lo;
using dsp::sxtb16_ror8;

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

namespace {
// qrow_s8_dot, also inlined into qk_s8 for an odd last key (one frame on the
// deepest stack path of the int8 core).
__attribute__((always_inline)) inline int32_t qrow_dot(const void* packed, const int8_t* k,
                                                       int32_t n) {
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
}  // namespace

int32_t qrow_s8_dot(const void* packed, int32_t zp, const int8_t* k, int32_t n) {
  (void)zp;
  return qrow_dot(packed, k, n);
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
  (void)zp;
  if (j < nkeys) out[j] = qrow_dot(packed, k + static_cast<std::size_t>(j) * k_stride, n);
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

void requantize_row_s8(const int32_t* acc, int32_t n, int32_t offset, int32_t multiplier,
                       int32_t shift, int32_t zero_point, int8_t* out) {
  const dsp::Requant rq(multiplier, shift, zero_point);
  for (int32_t i = 0; i < n; ++i) out[i] = static_cast<int8_t>(rq(q::wrap_sub(acc[i], offset)));
}

// The ADD's output requantization in the doubled form of the tile kernels'
// RqDouble (dsp/tile_dsp.h), with 128 added to the zero point so that USAT
// gives the table index: for x = (a2 + t2) / 2 (|x| < 2^29) and r = -shift
// in [1, 21],
//   requantize(x) + 128 = USAT8(SMMLAR(a2 + t2, m, bias + sign(x)) >> r),
//   bias = 2^(r-1) + (zp + 128) 2^r  (|bias| < 2^29: no overflow)
// (SMMLAR(2x, m, b) = b + SRDHM(x, m); the sign fix of RDBP read from x;
// the clamp to [-128, 127] is USAT's to [0, 255] after the 128). Other
// shifts take the reference.
int32_t add_tanh_dot_s8(const int32_t* a2, const int32_t* t2, const int8_t* codes, const int8_t* v,
                        int32_t n, int32_t m, int32_t shift, int32_t zp, const int8_t* tanh_table) {
  const AddTanhRq rq(m, shift, zp);
  if (!rq.ok) return add_tanh_dot_s8_ref(a2, t2, codes, v, n, m, shift, zp, tanh_table);
  const int32_t right = rq.right;
  const int32_t bias = rq.bias;
  const int32_t* t = t2 + 128;
  __asm__("" : "+r"(t));  // keeps the biased base (GCC would index t2 by 4 c + 512)
  const auto term = [&](int32_t u) {
    const int32_t x2 = a2[u] + t[codes[u]];
    // x2 >> 31: the sign as 0 / -1 (arithmetic on Arm, which this code relies on).
    // cppcheck-suppress shiftTooManyBitsSigned
    const int32_t b = bias + (x2 >> 31);
    int32_t h;
    __asm__("smmlar %0, %1, %2, %3" : "=r"(h) : "r"(x2), "r"(m), "r"(b));
    return static_cast<int32_t>(tanh_table[__usat(h >> right, 8)]) * static_cast<int32_t>(v[u]);
  };
  int32_t acc = 0;
  for (int32_t u = 0; u < n; ++u) acc += term(u);
  return acc;
}

const char* kernels_s8_name() { return "dsp"; }

}  // namespace detail
}  // namespace attn

#endif  // ATTN_S8_KERNELS_DSP
