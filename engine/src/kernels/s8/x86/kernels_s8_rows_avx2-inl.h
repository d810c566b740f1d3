// A fragment of kernels_s8_x86.cpp, included by that one translation unit
// only: its definitions cannot be duplicated across units.
// NOLINTBEGIN(misc-definitions-in-headers)
// x86 int8 row kernels at levels 0 (scalar) and 1 (AVX2): dot products,
// P.V rows, requantization and the softmax row (part of kernels_s8_x86.cpp,
// inside its anonymous namespace).

// ------------------------------------------------------------- scalar (0)
int32_t qrow_dot_scalar(const uint8_t* u, int32_t zp, const int8_t* k, int32_t n) {
  int32_t acc = 0;
  for (int32_t i = 0; i < n; ++i) {
    acc += (static_cast<int32_t>(u[i]) - 128 - zp) * static_cast<int32_t>(k[i]);
  }
  return acc;
}

// The scale of a softmax row's outputs (as softmax_s8_row_ref): the
// reciprocal of its sum of exps (q::get_reciprocal, 12 integer bits), the
// exponent of RoundingDivideByPOT and that division's remainder mask. False
// when this has written the row: srdhm's one saturating case (through the
// reference kernel; not in practice), or an exponent over 31 (every code
// -128).
struct RowScale {
  int32_t scale;
  int exponent;
  int32_t mask;
};
inline bool row_scale(int32_t sum_of_exps, const int32_t* table, int32_t diff_min, const int8_t* in,
                      int8_t* out, int32_t n, RowScale* rs) {
  int num_bits_over_unit = 0;
  rs->scale = q::get_reciprocal(sum_of_exps, 12, &num_bits_over_unit);
  rs->exponent = num_bits_over_unit + 31 - 8;
  if (rs->scale == INT32_MIN) {
    softmax_s8_row_ref(table, diff_min, in, out, n);
    return false;
  }
  if (rs->exponent > 31) {
    std::memset(out, 0x80, static_cast<std::size_t>(n));
    return false;
  }
  rs->mask = static_cast<int32_t>((uint64_t{1} << rs->exponent) - 1u);
  return true;
}

// ------------------------------------------------------------- AVX2 (1)
// Horizontal reductions: r[t] (8 int32 lanes each) -> lane t = sum of r[t].
ATTN_T_AVX2 inline __m256i reduce8x8(const __m256i* r) {
  const __m256i x01 =
      _mm256_add_epi32(_mm256_unpacklo_epi32(r[0], r[1]), _mm256_unpackhi_epi32(r[0], r[1]));
  const __m256i x23 =
      _mm256_add_epi32(_mm256_unpacklo_epi32(r[2], r[3]), _mm256_unpackhi_epi32(r[2], r[3]));
  const __m256i x45 =
      _mm256_add_epi32(_mm256_unpacklo_epi32(r[4], r[5]), _mm256_unpackhi_epi32(r[4], r[5]));
  const __m256i x67 =
      _mm256_add_epi32(_mm256_unpacklo_epi32(r[6], r[7]), _mm256_unpackhi_epi32(r[6], r[7]));
  const __m256i y0 =
      _mm256_add_epi32(_mm256_unpacklo_epi64(x01, x23), _mm256_unpackhi_epi64(x01, x23));
  const __m256i y1 =
      _mm256_add_epi32(_mm256_unpacklo_epi64(x45, x67), _mm256_unpackhi_epi64(x45, x67));
  return _mm256_add_epi32(_mm256_permute2x128_si256(y0, y1, 0x20),
                          _mm256_permute2x128_si256(y0, y1, 0x31));
}

ATTN_T_AVX2 inline int32_t hsum8(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
  return _mm_cvtsi128_si32(s);
}

// The one-row kernels (qrow_s8_dot, qk_s8, dot_s8, mac_s8, pv_s8) of every
// level are one body, kernels_s8_rows_x86-inl.h, over the level's vector ops
// below. Level 1: int8 sign-extended to int16, vpmaddwd.
ATTN_T_AVX2 inline __m256i k16_avx2(const int8_t* k) {
  return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(k)));
}

namespace rows_avx2 {
using V = __m256i;
constexpr int32_t kStep = 16;    // bytes per dot step (16 int16 lanes)
constexpr int32_t kDotBias = 0;  // dot: a sign-extended as is
constexpr int32_t kMacLanes = 8;
constexpr int kPvRows = 2;  // int16 weight pairs
constexpr int32_t kPvCols = 16;
ATTN_T_AVX2 inline V zero() { return _mm256_setzero_si256(); }
ATTN_T_AVX2 inline V sub(V a, V b) { return _mm256_sub_epi32(a, b); }
ATTN_T_AVX2 inline V set1(int32_t x) { return _mm256_set1_epi32(x); }
ATTN_T_AVX2 inline V set1_64(int64_t x) { return _mm256_set1_epi64x(x); }
ATTN_T_AVX2 inline int32_t hsum(V v) { return hsum8(v); }
ATTN_T_AVX2 inline __m256i reduce8(const V* r) { return reduce8x8(r); }
// len < 16 bytes at p, zero-padded to 16.
ATTN_T_AVX2 inline __m128i load16_tail(const void* p, int32_t len) {
  alignas(16) uint8_t b[16] = {};
  std::memcpy(b, p, static_cast<std::size_t>(len));
  return _mm_load_si128(reinterpret_cast<const __m128i*>(b));
}
// The query operand: 16 bytes of the packed row as int16 q - zp (c: zp in
// every int16 lane). Padding bytes meet zero key bytes.
ATTN_T_AVX2 inline V qconst(int32_t zp) { return _mm256_set1_epi16(static_cast<int16_t>(zp)); }
ATTN_T_AVX2 inline V q16(__m128i u, V zp16) {
  const __m128i q = _mm_xor_si128(u, _mm_set1_epi8(static_cast<char>(0x80)));
  return _mm256_sub_epi16(_mm256_cvtepi8_epi16(q), zp16);
}
ATTN_T_AVX2 inline V qop(const uint8_t* u, V c) {
  return q16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(u)), c);
}
ATTN_T_AVX2 inline V qop_tail(const uint8_t* u, int32_t len, V c) {
  return q16(load16_tail(u, len), c);
}
ATTN_T_AVX2 inline V acc0(int32_t /*zp*/, int32_t /*n*/) { return zero(); }
ATTN_T_AVX2 inline void kdot(V& a, V& /*s*/, V q, V /*c*/, const int8_t* k) {
  a = _mm256_add_epi32(a, _mm256_madd_epi16(q, k16_avx2(k)));
}
ATTN_T_AVX2 inline void kdot_tail(V& a, V& /*s*/, V q, V /*c*/, const int8_t* k, int32_t len) {
  a = _mm256_add_epi32(a, _mm256_madd_epi16(q, _mm256_cvtepi8_epi16(load16_tail(k, len))));
}
ATTN_T_AVX2 inline int32_t qk_short(const uint8_t*, int32_t, const int8_t*, std::size_t, int32_t,
                                    int32_t, int32_t*) {
  return 0;
}
ATTN_T_AVX2 inline void dot16(V& acc, V& sb, __m128i a, __m128i b) {
  const V b16 = _mm256_cvtepi8_epi16(b);
  acc = _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_cvtepi8_epi16(a), b16));
  sb = _mm256_add_epi32(sb, _mm256_madd_epi16(_mm256_set1_epi16(1), b16));
}
ATTN_T_AVX2 inline void dstep(V& acc, V& sb, const int8_t* a, const int8_t* b) {
  dot16(acc, sb, _mm_loadu_si128(reinterpret_cast<const __m128i*>(a)),
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(b)));
}
ATTN_T_AVX2 inline void dstep_tail(V& acc, V& sb, const int8_t* a, const int8_t* b, int32_t len) {
  dot16(acc, sb, load16_tail(a, len), load16_tail(b, len));
}
ATTN_T_AVX2 inline void mac_step(int32_t* acc, const int8_t* b, V wv) {
  const V bv = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(b)));
  auto* p = reinterpret_cast<__m256i*>(acc);
  _mm256_storeu_si256(p, _mm256_add_epi32(_mm256_loadu_si256(p), _mm256_mullo_epi32(wv, bv)));
}
ATTN_T_AVX2 inline void mac_tail(int32_t* acc, const int8_t* b, int32_t w, V /*wv*/, int32_t len) {
  for (int32_t i = 0; i < len; ++i) acc[i] += w * static_cast<int32_t>(b[i]);
}
// pv: rows in pairs, (w_r, w_r+1) int16 pairs times the interleaved
// sign-extended row bytes (vpmaddwd, exact), 16 columns per pass.
ATTN_T_AVX2 inline V pv_load(const int8_t* p) { return k16_avx2(p); }
ATTN_T_AVX2 inline V pv_load_tail(const int8_t* p, int32_t len) {
  return _mm256_cvtepi8_epi16(load16_tail(p, len));
}
struct PvWeights {
  const int16_t* w;
  ATTN_T_AVX2 PvWeights(const int16_t* weights, int32_t /*nrows*/) : w(weights) {}
  // (w_r, w_r+1) as one little-endian dword: a broadcast load.
  ATTN_T_AVX2 V full(int32_t r) const {
    int32_t wp = 0;
    std::memcpy(&wp, w + r, 4);
    return _mm256_set1_epi32(wp);
  }
  ATTN_T_AVX2 V part(int32_t r) const { return _mm256_set1_epi32(static_cast<uint16_t>(w[r])); }
};
ATTN_T_AVX2 inline void pv_step(V* a, V wv, const V* x) {
  a[0] = _mm256_add_epi32(a[0], _mm256_madd_epi16(_mm256_unpacklo_epi16(x[0], x[1]), wv));
  a[1] = _mm256_add_epi32(a[1], _mm256_madd_epi16(_mm256_unpackhi_epi16(x[0], x[1]), wv));
}
// a[0]: columns 0-3 | 8-11, a[1]: 4-7 | 12-15.
ATTN_T_AVX2 inline void pv_store(const V* a, int32_t* out) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_permute2x128_si256(a[0], a[1], 0x20));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8),
                      _mm256_permute2x128_si256(a[0], a[1], 0x31));
}
ATTN_T_AVX2 inline void pv_store_tail(const V* a, int32_t* out, int32_t len) {
  alignas(32) int32_t t[16];
  pv_store(a, t);
  std::memcpy(out, t, static_cast<std::size_t>(len) * sizeof(int32_t));
}
// Requantized rows: 8 int32 lanes per vector; saturating packs are the
// clamp to [-128, 127].
constexpr int32_t kLanes = 8;
ATTN_T_AVX2 inline V load(const void* p) {
  return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}
ATTN_T_AVX2 inline V load_i32_tail(const int32_t* p, int32_t len) {
  alignas(32) int32_t b[8] = {};
  std::memcpy(b, p, static_cast<std::size_t>(len) * sizeof(int32_t));
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(b));
}
// One vector per step (more would spill the constants of 16 registers).
constexpr int kRqVecs = 1;
ATTN_T_AVX2 inline void store_packed(int8_t* out, const V* r) {
  const __m128i w16 =
      _mm_packs_epi32(_mm256_castsi256_si128(r[0]), _mm256_extracti128_si256(r[0], 1));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm_packs_epi16(w16, w16));
}
ATTN_T_AVX2 inline void store_packed_tail(int8_t* out, V r, int32_t len) {
  const __m128i w16 = _mm_packs_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
  alignas(16) int8_t b[16];
  _mm_store_si128(reinterpret_cast<__m128i*>(b), _mm_packs_epi16(w16, w16));
  std::memcpy(out, b, static_cast<std::size_t>(len));
}
#define ATTN_ROWS_T ATTN_T_AVX2
#include "kernels/s8/x86/kernels_s8_rows_x86-inl.h"
#undef ATTN_ROWS_T
}  // namespace rows_avx2

// TFLite requantization of 8 lanes (see q::requantize) before the clamp:
// MultiplyByQuantizedMultiplier of x - offset, plus the zero point (the
// constants: rows_avx2::requant_consts).
ATTN_T_AVX2 inline __m256i requant_avx2(const rows_avx2::Requant& c, __m256i x) {
  x = _mm256_sll_epi32(_mm256_sub_epi32(x, c.off), c.vleft);
  // srdhm: floor((x m + 2^30) / 2^31), even and odd lanes as int64.
  const __m256i pe = _mm256_add_epi64(_mm256_mul_epi32(x, c.mult), c.nudge);
  const __m256i po = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), c.mult), c.nudge);
  // Bits 31..62 of each product: >> 31 (logical is fine: we keep 32 bits).
  const __m256i he = _mm256_srli_epi64(pe, 31);
  const __m256i ho = _mm256_slli_epi64(_mm256_srli_epi64(po, 31), 32);
  __m256i s = _mm256_blend_epi32(he, ho, 0xaa);
  // RoundingDivideByPOT.
  const __m256i rem = _mm256_and_si256(s, c.mask);
  const __m256i thr = _mm256_sub_epi32(c.half, _mm256_srai_epi32(s, 31));  // + (s < 0)
  s = _mm256_sra_epi32(s, c.vright);
  s = _mm256_sub_epi32(s, _mm256_cmpgt_epi32(rem, thr));
  return _mm256_add_epi32(s, c.zp);
}

ATTN_T_AVX2 void requantize_avx2(const int32_t* acc, int32_t n, int32_t offset, int32_t multiplier,
                                 int32_t shift, int32_t zero_point, int8_t* out) {
  rows_avx2::store_requantized<rows_avx2::Requant, requant_avx2>(
      rows_avx2::requant_consts(offset, multiplier, shift, zero_point), acc, n, out);
}

// softmax_s8_row (see softmax_s8_row_ref), 8 columns at a time with gathered
// table exps; the last n % 8 columns in scalar code. Outputs are truncated to
// int8 as the reference casts them.
ATTN_T_AVX2 inline __m256i rdbp_avx2(__m256i x, __m128i e, __m256i mask, __m256i half) {
  const __m256i rem = _mm256_and_si256(x, mask);
  const __m256i thr = _mm256_sub_epi32(half, _mm256_srai_epi32(x, 31));
  return _mm256_sub_epi32(_mm256_sra_epi32(x, e), _mm256_cmpgt_epi32(rem, thr));
}

// The exp table's entries of the 8 columns at in: lane j is table[max -
// x_j] where x_j - max >= diff_min (*keep all ones), else 0.
ATTN_T_AVX2 inline __m256i exp_lut8_avx2(const int32_t* table, const int8_t* in, __m256i vmax,
                                         __m256i vdmin, __m256i* keep) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i x = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(in)));
  const __m256i diff = _mm256_sub_epi32(x, vmax);
  *keep = _mm256_xor_si256(_mm256_cmpgt_epi32(vdmin, diff), _mm256_set1_epi32(-1));
  return _mm256_mask_i32gather_epi32(zero, table, _mm256_sub_epi32(zero, diff), *keep, 4);
}

ATTN_T_AVX2 void softmax_avx2(const int32_t* table, int32_t diff_min, const int8_t* in, int8_t* out,
                              int32_t n) {
  int32_t max_in_row = -128;
  {
    __m256i mx = _mm256_set1_epi8(-128);
    int32_t i = 0;
    for (; i + 32 <= n; i += 32) {
      mx = _mm256_max_epi8(mx, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i)));
    }
    alignas(32) int8_t b[32];
    _mm256_store_si256(reinterpret_cast<__m256i*>(b), mx);
    for (int t = 0; t < 32; ++t) max_in_row = b[t] > max_in_row ? b[t] : max_in_row;
    for (; i < n; ++i) max_in_row = in[i] > max_in_row ? in[i] : max_in_row;
  }
  const int32_t nv = n / 8 * 8;
  const __m256i vmax = _mm256_set1_epi32(max_in_row);
  const __m256i vdmin = _mm256_set1_epi32(diff_min);
  const __m256i zero = _mm256_setzero_si256();
  __m256i sum = zero;
  const __m128i e12 = _mm_cvtsi32_si128(12);
  const __m256i mask12 = _mm256_set1_epi32(4095), half12 = _mm256_set1_epi32(2047);
  for (int32_t i = 0; i < nv; i += 8) {
    __m256i keep;
    const __m256i e = exp_lut8_avx2(table, in + i, vmax, vdmin, &keep);
    sum = _mm256_add_epi32(sum, _mm256_and_si256(keep, rdbp_avx2(e, e12, mask12, half12)));
  }
  int32_t sum_of_exps = hsum8(sum);
  for (int32_t i = nv; i < n; ++i) {
    const int32_t diff = in[i] - max_in_row;
    if (diff >= diff_min) sum_of_exps += q::rounding_divide_by_pot(table[-diff], 12);
  }
  RowScale rs;
  if (!row_scale(sum_of_exps, table, diff_min, in, out, n, &rs)) return;
  const __m256i scale64 = _mm256_set1_epi64x(rs.scale);
  const __m256i nudge = _mm256_set1_epi64x(int64_t{1} << 30);
  const __m128i ev = _mm_cvtsi32_si128(rs.exponent);
  const __m256i mask = _mm256_set1_epi32(rs.mask), half = _mm256_set1_epi32(rs.mask >> 1);
  const __m256i lo = _mm256_set1_epi32(-128), hi = _mm256_set1_epi32(127);
  // Byte 0 of each int32 lane, then the two lanes' dwords together.
  const __m256i pick = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                        0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                        -1);
  const __m256i join = _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0);
  for (int32_t i = 0; i < nv; i += 8) {
    __m256i keep;
    const __m256i e = exp_lut8_avx2(table, in + i, vmax, vdmin, &keep);
    const __m256i pe = _mm256_add_epi64(_mm256_mul_epi32(e, scale64), nudge);
    const __m256i po = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(e, 32), scale64), nudge);
    const __m256i sr = _mm256_blend_epi32(_mm256_srli_epi64(pe, 31),
                                          _mm256_slli_epi64(_mm256_srli_epi64(po, 31), 32), 0xaa);
    __m256i v = rdbp_avx2(sr, ev, mask, half);
    v = _mm256_min_epi32(_mm256_add_epi32(v, lo), hi);
    v = _mm256_blendv_epi8(lo, v, keep);
    const __m256i b = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(v, pick), join);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + i), _mm256_castsi256_si128(b));
  }
  for (int32_t i = nv; i < n; ++i) {
    const int32_t diff = in[i] - max_in_row;
    int32_t v = -128;
    if (diff >= diff_min) {
      v = q::rounding_divide_by_pot(q::srdhm(rs.scale, table[-diff]), rs.exponent) - 128;
      if (v > 127) v = 127;
    }
    out[i] = static_cast<int8_t>(v);
  }
}
// NOLINTEND(misc-definitions-in-headers)
