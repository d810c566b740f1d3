// A fragment of kernels_s8_x86.cpp, included by that one translation unit
// only: its definitions cannot be duplicated across units.
// NOLINTBEGIN(misc-definitions-in-headers)
// x86 int8 row kernels at level 3 (AVX-512 VNNI): dot products, P.V rows,
// requantization and the softmax row (part of kernels_s8_x86.cpp, inside its
// anonymous namespace).

// ------------------------------------------------------------- AVX-512 VNNI (3)
ATTN_T_AVX512 inline __mmask64 tail_mask64(int32_t len) {
  return len >= 64 ? ~__mmask64{0} : (len <= 0 ? __mmask64{0} : (__mmask64{1} << len) - 1u);
}

// r[t] (16 int32 lanes each, t < 8) -> lane t = sum of r[t].
ATTN_T_AVX512 inline __m256i reduce8x16(const __m512i* r) {
  const __m512i x01 =
      _mm512_add_epi32(_mm512_unpacklo_epi32(r[0], r[1]), _mm512_unpackhi_epi32(r[0], r[1]));
  const __m512i x23 =
      _mm512_add_epi32(_mm512_unpacklo_epi32(r[2], r[3]), _mm512_unpackhi_epi32(r[2], r[3]));
  const __m512i x45 =
      _mm512_add_epi32(_mm512_unpacklo_epi32(r[4], r[5]), _mm512_unpackhi_epi32(r[4], r[5]));
  const __m512i x67 =
      _mm512_add_epi32(_mm512_unpacklo_epi32(r[6], r[7]), _mm512_unpackhi_epi32(r[6], r[7]));
  // Per 128-bit lane L: [t0_L, t1_L, t2_L, t3_L] and [t4_L .. t7_L].
  const __m512i y0 =
      _mm512_add_epi32(_mm512_unpacklo_epi64(x01, x23), _mm512_unpackhi_epi64(x01, x23));
  const __m512i y1 =
      _mm512_add_epi32(_mm512_unpacklo_epi64(x45, x67), _mm512_unpackhi_epi64(x45, x67));
  // [y0.L0+L1, y0.L2+L3, y1.L0+L1, y1.L2+L3]
  const __m512i z =
      _mm512_add_epi32(_mm512_shuffle_i32x4(y0, y1, 0x88), _mm512_shuffle_i32x4(y0, y1, 0xdd));
  // [y0.L0+L1, y1.L0+L1 | y0.L2+L3, y1.L2+L3]
  const __m512i p = _mm512_shuffle_i32x4(z, z, 0xd8);
  return _mm256_add_epi32(_mm512_castsi512_si256(p), _mm512_extracti64x4_epi64(p, 1));
}

// r[t] (16 int32 lanes each, t < 16) -> lane t = sum of r[t].
ATTN_T_AVX512 inline __m512i reduce16x16(const __m512i* r) {
  __m512i x[8];
  for (int t = 0; t < 8; ++t) {
    x[t] = _mm512_add_epi32(_mm512_unpacklo_epi32(r[2 * t], r[2 * t + 1]),
                            _mm512_unpackhi_epi32(r[2 * t], r[2 * t + 1]));
  }
  __m512i y[4];
  for (int t = 0; t < 4; ++t) {
    y[t] = _mm512_add_epi32(_mm512_unpacklo_epi64(x[2 * t], x[2 * t + 1]),
                            _mm512_unpackhi_epi64(x[2 * t], x[2 * t + 1]));
  }
  // y[t], lane L: keys 4t..4t+3 partial over 128-bit lane L.
  const __m512i z0 = _mm512_add_epi32(_mm512_shuffle_i32x4(y[0], y[1], 0x88),
                                      _mm512_shuffle_i32x4(y[0], y[1], 0xdd));
  const __m512i z1 = _mm512_add_epi32(_mm512_shuffle_i32x4(y[2], y[3], 0x88),
                                      _mm512_shuffle_i32x4(y[2], y[3], 0xdd));
  return _mm512_add_epi32(_mm512_shuffle_i32x4(z0, z1, 0x88), _mm512_shuffle_i32x4(z0, z1, 0xdd));
}

// n <= 64: the query row stays in one register; sixteen keys per step. The
// zero-point term goes into the same accumulator as c * ~k = -c k - c (~k is
// always an int8), so each key is two vpdpbusd and the total is off by
// -64 c (64 lanes, masked ones included: ~0 = -1).
ATTN_T_AVX512 int32_t qk_short_avx512(const uint8_t* u, int32_t zp, const int8_t* k,
                                      std::size_t stride, int32_t nkeys, int32_t n, int32_t* out) {
  const int32_t c = 128 + zp;
  const __m512i cv = _mm512_set1_epi8(static_cast<char>(c));
  const __m512i fix = _mm512_set1_epi32(64 * c);
  const __m512i ones = _mm512_set1_epi32(-1);
  const __mmask64 m = tail_mask64(n);
  const __m512i qv = _mm512_maskz_loadu_epi8(m, u);
  int32_t j = 0;
  for (; j + 16 <= nkeys; j += 16) {
    __m512i a[16];
    const int8_t* kj = k + static_cast<std::size_t>(j) * stride;
    for (int t = 0; t < 16; ++t) {
      const __m512i kv = _mm512_maskz_loadu_epi8(m, kj + static_cast<std::size_t>(t) * stride);
      a[t] = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(_mm512_setzero_si512(), qv, kv), cv,
                                 _mm512_xor_si512(kv, ones));
    }
    _mm512_storeu_si512(out + j, _mm512_add_epi32(reduce16x16(a), fix));
  }
  return j;
}

// Level 3's vector ops for kernels_s8_rows_x86-inl.h: vpdpbusd on 512-bit
// vectors, tails masked.
namespace rows512 {
using V = __m512i;
constexpr int32_t kStep = 64;
constexpr int32_t kDotBias = 128;  // dot: (a + 128) b, less 128 sum b
constexpr int32_t kMacLanes = 16;
constexpr int kPvRows = 4;  // byte-interleaved rows, weights as unsigned bytes
constexpr int32_t kPvCols = 64;
ATTN_T_AVX512 inline V zero() { return _mm512_setzero_si512(); }
ATTN_T_AVX512 inline V sub(V a, V b) { return _mm512_sub_epi32(a, b); }
ATTN_T_AVX512 inline V set1(int32_t x) { return _mm512_set1_epi32(x); }
ATTN_T_AVX512 inline V set1_64(int64_t x) { return _mm512_set1_epi64(x); }
ATTN_T_AVX512 inline int32_t hsum(V v) { return _mm512_reduce_add_epi32(v); }
ATTN_T_AVX512 inline __m256i reduce8(const V* r) { return reduce8x16(r); }
ATTN_T_AVX512 inline V load(const void* p) { return _mm512_loadu_si512(p); }
// Masked-off bytes load as 0 (on both sides of a product: they add nothing).
ATTN_T_AVX512 inline V load_tail(const void* p, int32_t len) {
  return _mm512_maskz_loadu_epi8(tail_mask64(len), p);
}
// vpdpbusd in asm: see rows256::dp.
ATTN_T_AVX512 inline V dp(V acc, V u, V s) {
  __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(u), "vm"(s));
  return acc;
}
ATTN_T_AVX512 inline V qconst(int32_t zp) { return _mm512_set1_epi8(static_cast<char>(128 + zp)); }
ATTN_T_AVX512 inline V qop(const uint8_t* u, V /*c*/) { return load(u); }
ATTN_T_AVX512 inline V qop_tail(const uint8_t* u, int32_t len, V /*c*/) {
  return load_tail(u, len);
}
ATTN_T_AVX512 inline V acc0(int32_t /*zp*/, int32_t /*n*/) { return zero(); }
ATTN_T_AVX512 inline void kdot(V& a, V& s, V q, V c, const int8_t* k) {
  const V kv = load(k);
  a = dp(a, q, kv);
  s = dp(s, c, kv);
}
ATTN_T_AVX512 inline void kdot_tail(V& a, V& s, V q, V c, const int8_t* k, int32_t len) {
  const V kv = load_tail(k, len);
  a = dp(a, q, kv);
  s = dp(s, c, kv);
}
ATTN_T_AVX512 inline int32_t qk_short(const uint8_t* u, int32_t zp, const int8_t* k,
                                      std::size_t stride, int32_t nkeys, int32_t n, int32_t* out) {
  return n <= 64 ? qk_short_avx512(u, zp, k, stride, nkeys, n, out) : 0;
}
ATTN_T_AVX512 inline void dot64(V& acc, V& sb, V a, V b) {
  acc = dp(acc, _mm512_xor_si512(a, _mm512_set1_epi8(static_cast<char>(0x80))), b);
  sb = dp(sb, _mm512_set1_epi8(1), b);
}
ATTN_T_AVX512 inline void dstep(V& acc, V& sb, const int8_t* a, const int8_t* b) {
  dot64(acc, sb, load(a), load(b));
}
ATTN_T_AVX512 inline void dstep_tail(V& acc, V& sb, const int8_t* a, const int8_t* b, int32_t len) {
  dot64(acc, sb, load_tail(a, len), load_tail(b, len));
}
ATTN_T_AVX512 inline void mac_step(int32_t* acc, const int8_t* b, V wv) {
  const V bv = _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b)));
  _mm512_storeu_si512(acc, _mm512_add_epi32(_mm512_loadu_si512(acc), _mm512_mullo_epi32(wv, bv)));
}
ATTN_T_AVX512 inline void mac_tail(int32_t* acc, const int8_t* b, int32_t /*w*/, V wv,
                                   int32_t len) {
  const auto m = static_cast<__mmask16>((1u << len) - 1u);
  const V bv = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(m, b));
  const V av = _mm512_maskz_loadu_epi32(m, acc);
  _mm512_mask_storeu_epi32(acc, m, _mm512_add_epi32(av, _mm512_mullo_epi32(wv, bv)));
}
ATTN_T_AVX512 inline V pv_load(const int8_t* p) { return load(p); }
ATTN_T_AVX512 inline V pv_load_tail(const int8_t* p, int32_t len) { return load_tail(p, len); }
// The weights as bytes, 64 rows at a time (at r = 0, 64, ...), each group
// of four broadcast from this buffer.
struct PvWeights {
  const int16_t* w;
  int32_t nrows;
  alignas(64) uint8_t wb[64] = {};  // filled at r = 0 before its first read
  ATTN_T_AVX512 PvWeights(const int16_t* weights, int32_t n) : w(weights), nrows(n) {}
  ATTN_T_AVX512 V full(int32_t r) {
    if ((r & 63) == 0) {
      const int32_t wl = nrows - r < 64 ? nrows - r : 64;
      const __mmask32 m0 = wl >= 32 ? ~__mmask32{0} : static_cast<__mmask32>((1u << wl) - 1u);
      const __mmask32 m1 = wl <= 32   ? __mmask32{0}
                           : wl >= 64 ? ~__mmask32{0}
                                      : static_cast<__mmask32>((1u << (wl - 32)) - 1u);
      _mm256_store_si256(reinterpret_cast<__m256i*>(wb),
                         _mm512_cvtepi16_epi8(_mm512_maskz_loadu_epi16(m0, w + r)));
      _mm256_store_si256(reinterpret_cast<__m256i*>(wb + 32),
                         _mm512_cvtepi16_epi8(_mm512_maskz_loadu_epi16(m1, w + r + 32)));
    }
    int32_t wp4 = 0;
    std::memcpy(&wp4, wb + (r & 63), 4);
    return _mm512_set1_epi32(wp4);
  }
  ATTN_T_AVX512 V part(int32_t r) const {
    return _mm512_set1_epi32(static_cast<int32_t>(rows256::weight_bytes(w + r, nrows - r)));
  }
};
// a[t] += the four rows' bytes of columns 16L + 4t .. 16L + 4t + 3 in 128-bit
// lane L.
ATTN_T_AVX512 inline void pv_step(V* a, V wv, const V* x) {
  const V lo01 = _mm512_unpacklo_epi8(x[0], x[1]);
  const V hi01 = _mm512_unpackhi_epi8(x[0], x[1]);
  const V lo23 = _mm512_unpacklo_epi8(x[2], x[3]);
  const V hi23 = _mm512_unpackhi_epi8(x[2], x[3]);
  a[0] = dp(a[0], wv, _mm512_unpacklo_epi16(lo01, lo23));
  a[1] = dp(a[1], wv, _mm512_unpackhi_epi16(lo01, lo23));
  a[2] = dp(a[2], wv, _mm512_unpacklo_epi16(hi01, hi23));
  a[3] = dp(a[3], wv, _mm512_unpackhi_epi16(hi01, hi23));
}
// A 4x4 transpose of 128-bit blocks gives the columns in order.
ATTN_T_AVX512 inline void pv_columns(const V* a, V* o) {
  const V t0 = _mm512_shuffle_i32x4(a[0], a[1], 0x44);
  const V t1 = _mm512_shuffle_i32x4(a[2], a[3], 0x44);
  const V t2 = _mm512_shuffle_i32x4(a[0], a[1], 0xee);
  const V t3 = _mm512_shuffle_i32x4(a[2], a[3], 0xee);
  o[0] = _mm512_shuffle_i32x4(t0, t1, 0x88);
  o[1] = _mm512_shuffle_i32x4(t0, t1, 0xdd);
  o[2] = _mm512_shuffle_i32x4(t2, t3, 0x88);
  o[3] = _mm512_shuffle_i32x4(t2, t3, 0xdd);
}
ATTN_T_AVX512 inline void pv_store(const V* a, int32_t* out) {
  V o[4];
  pv_columns(a, o);
  for (int b = 0; b < 4; ++b) _mm512_storeu_si512(out + 16 * b, o[b]);
}
ATTN_T_AVX512 inline void pv_store_tail(const V* a, int32_t* out, int32_t len) {
  V o[4];
  pv_columns(a, o);
  for (int b = 0; b < 4 && len > 16 * b; ++b) {
    const int32_t cl = len - 16 * b;
    const __mmask16 sm = cl >= 16 ? static_cast<__mmask16>(0xffff)
                                  : static_cast<__mmask16>((1u << cl) - 1u);
    _mm512_mask_storeu_epi32(out + 16 * b, sm, o[b]);
  }
}
// Requantized rows: 16 int32 lanes per vector.
constexpr int32_t kLanes = 16;
ATTN_T_AVX512 inline V load_i32_tail(const int32_t* p, int32_t len) {
  return _mm512_maskz_loadu_epi32(static_cast<__mmask16>((1u << len) - 1u), p);
}
// Four vectors per step: two rounds of saturating packs clamp to [-128, 127]
// (the 128-bit lanes interleave the four vectors; one dword permute restores
// the order); vpmovdb to memory is slow on AMD.
constexpr int kRqVecs = 4;
ATTN_T_AVX512 inline void store_packed(int8_t* out, const V* r) {
  const V order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const V p = _mm512_packs_epi16(_mm512_packs_epi32(r[0], r[1]), _mm512_packs_epi32(r[2], r[3]));
  _mm512_storeu_si512(out, _mm512_permutexvar_epi32(order, p));
}
ATTN_T_AVX512 inline void store_packed_tail(int8_t* out, V s, int32_t len) {
  s = _mm512_max_epi32(_mm512_min_epi32(s, _mm512_set1_epi32(127)), _mm512_set1_epi32(-128));
  _mm_mask_storeu_epi8(out, static_cast<__mmask16>((1u << len) - 1u), _mm512_cvtepi32_epi8(s));
}
#define ATTN_ROWS_T ATTN_T_AVX512
#include "kernels/s8/x86/kernels_s8_rows_x86-inl.h"
#undef ATTN_ROWS_T
}  // namespace rows512

// One vector of requantize_avx512 before the clamp: MultiplyByQuantizedMultiplier
// of x - offset, plus the zero point (the constants: rows512::requant_consts).
ATTN_T_AVX512 inline __m512i requant_avx512(const rows512::Requant& c, __m512i x) {
  x = _mm512_sll_epi32(_mm512_sub_epi32(x, c.off), c.vleft);
  const __m512i pe = _mm512_add_epi64(_mm512_mul_epi32(x, c.mult), c.nudge);
  const __m512i po = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), c.mult), c.nudge);
  // Even lanes: bits 31..62 of pe; odd lanes: the high half of po << 1.
  __m512i s = _mm512_mask_blend_epi32(static_cast<__mmask16>(0xaaaa), _mm512_srli_epi64(pe, 31),
                                      _mm512_slli_epi64(po, 1));
  const __m512i rem = _mm512_and_si512(s, c.mask);
  const __m512i thr = _mm512_sub_epi32(c.half, _mm512_srai_epi32(s, 31));
  s = _mm512_sra_epi32(s, c.vright);
  s = _mm512_mask_add_epi32(s, _mm512_cmpgt_epi32_mask(rem, thr), s, _mm512_set1_epi32(1));
  return _mm512_add_epi32(s, c.zp);
}

// The same for shift in [-23, 0] in 64-bit lanes, offset and zero point
// folded into one constant. With P = (x - offset) m (exact, |P| < 2^62),
// srdhm is y = floor((P + 2^30) / 2^31) and RoundingDivideByPOT by e =
// -shift (ties away from zero) is floor((y + c - s) / 2^e), c = 2^(e-1)
// and s = [y < 0] for e > 0 (c = s = 0 for e = 0). Nested floors by powers
// of two compose, so the result plus the zero point is
//   floor((x m + K - s 2^31) / 2^(31 + e)),  K = 2^30 - offset m + c 2^31 + zp 2^(31+e)
// (|.| < 2^63 for e <= 23), s = [x m < offset m - 2^30]; the low 32 bits
// of each 64-bit lane are the int32 result (zero point added with wrap, as
// requantize). Even lanes multiply in place, odd lanes after a 32-bit shift;
// a merge-masked vpshufd puts the odd results between the even ones.
struct Requant64Avx512 {
  __m512i mult, k, thr, two31;
  __m128i vshift;
  __mmask16 round_neg;  // all ones when e > 0
};
ATTN_T_AVX512 inline __m512i requant64_half(const Requant64Avx512& c, __m512i x) {
  const __m512i p = _mm512_mul_epi32(x, c.mult);
  const __mmask8 s = _mm512_cmplt_epi64_mask(p, c.thr) & static_cast<__mmask8>(c.round_neg);
  return _mm512_sra_epi64(
      _mm512_mask_sub_epi64(_mm512_add_epi64(p, c.k), s, _mm512_add_epi64(p, c.k), c.two31),
      c.vshift);
}
ATTN_T_AVX512 inline __m512i requant64_avx512(const Requant64Avx512& c, __m512i x) {
  const __m512i even = requant64_half(c, x);
  const __m512i odd = requant64_half(c, _mm512_srli_epi64(x, 32));
  return _mm512_mask_shuffle_epi32(even, static_cast<__mmask16>(0xaaaa), odd,
                                   static_cast<_MM_PERM_ENUM>(0xa0));
}

ATTN_T_AVX512 void requantize64_avx512(const int32_t* acc, int32_t n, int32_t offset,
                                       int32_t multiplier, int e, int32_t zero_point, int8_t* out) {
  Requant64Avx512 c;
  c.vshift = _mm_cvtsi32_si128(31 + e);
  c.mult = _mm512_set1_epi64(multiplier);
  const int64_t om = static_cast<int64_t>(offset) * multiplier;
  const int64_t half = e > 0 ? int64_t{1} << (e - 1) : 0;
  c.k = _mm512_set1_epi64((int64_t{1} << 30) - om + half * (int64_t{1} << 31) +
                          static_cast<int64_t>(zero_point) * (int64_t{1} << (31 + e)));
  c.thr = _mm512_set1_epi64(om - (int64_t{1} << 30));
  c.two31 = _mm512_set1_epi64(int64_t{1} << 31);
  c.round_neg = static_cast<__mmask16>(e > 0 ? 0xffff : 0);
  rows512::store_requantized<Requant64Avx512, requant64_avx512>(c, acc, n, out);
}

ATTN_T_AVX512 void requantize_avx512(const int32_t* acc, int32_t n, int32_t offset,
                                     int32_t multiplier, int32_t shift, int32_t zero_point,
                                     int8_t* out) {
  if (shift <= 0 && shift >= -23) {
    return requantize64_avx512(acc, n, offset, multiplier, -shift, zero_point, out);
  }
  rows512::store_requantized<rows512::Requant, requant_avx512>(
      rows512::requant_consts(offset, multiplier, shift, zero_point), acc, n, out);
}

// softmax_s8_row (see softmax_s8_row_ref): the row maximum, then 16 columns
// at a time: the table exp of every kept difference (gathered), its Q12.19
// sum, and the outputs from the scalar reciprocal. The integer steps are the
// reference's lane-wise.
ATTN_T_AVX512 inline __m512i rdbp_avx512(__m512i x, __m128i e, __m512i mask, __m512i half) {
  const __m512i rem = _mm512_and_si512(x, mask);
  const __m512i thr = _mm512_sub_epi32(half, _mm512_srai_epi32(x, 31));
  const __m512i y = _mm512_sra_epi32(x, e);
  return _mm512_mask_add_epi32(y, _mm512_cmpgt_epi32_mask(rem, thr), y, _mm512_set1_epi32(1));
}

// floor((a b + 2^30) / 2^31) per lane; a = b = INT32_MIN excluded by the caller.
ATTN_T_AVX512 inline __m512i srdhm_avx512(__m512i a, __m512i b64) {
  const __m512i nudge = _mm512_set1_epi64(int64_t{1} << 30);
  const __m512i pe = _mm512_add_epi64(_mm512_mul_epi32(a, b64), nudge);
  const __m512i po = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(a, 32), b64), nudge);
  return _mm512_mask_blend_epi32(static_cast<__mmask16>(0xaaaa), _mm512_srli_epi64(pe, 31),
                                 _mm512_slli_epi64(_mm512_srli_epi64(po, 31), 32));
}

ATTN_T_AVX512 int32_t row_max_avx512(const int8_t* in, int32_t n) {
  __m512i mx = _mm512_set1_epi8(-128);
  for (int32_t i = 0; i < n; i += 64) {
    mx = _mm512_max_epi8(mx, _mm512_mask_loadu_epi8(mx, tail_mask64(n - i), in + i));
  }
  const __m256i m256 =
      _mm256_max_epi8(_mm512_castsi512_si256(mx), _mm512_extracti64x4_epi64(mx, 1));
  const __m128i m128 =
      _mm_max_epi8(_mm256_castsi256_si128(m256), _mm256_extracti128_si256(m256, 1));
  return _mm512_reduce_max_epi32(_mm512_cvtepi8_epi32(m128));
}

// The exp table's entries of the 16 columns at in (lanes of m): lane j is
// table[max - x_j] where x_j - max >= diff_min (*keep), else 0.
ATTN_T_AVX512 inline __m512i exp_lut16_avx512(const int32_t* table, const int8_t* in, __mmask16 m,
                                              __m512i vmax, __m512i vdmin, __mmask16* keep) {
  const __m512i diff = _mm512_sub_epi32(_mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(m, in)), vmax);
  *keep = _mm512_mask_cmpge_epi32_mask(m, diff, vdmin);
  return _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), *keep,
                                     _mm512_sub_epi32(_mm512_setzero_si512(), diff), table, 4);
}

ATTN_T_AVX512 void softmax_avx512(const int32_t* table, int32_t diff_min, const int8_t* in,
                                  int8_t* out, int32_t n) {
  const int32_t max_in_row = row_max_avx512(in, n);
  const __m512i vmax = _mm512_set1_epi32(max_in_row);
  const __m512i vdmin = _mm512_set1_epi32(diff_min);
  __m512i sum = _mm512_setzero_si512();
  {
    const __m128i e12 = _mm_cvtsi32_si128(12);
    const __m512i mask12 = _mm512_set1_epi32(4095), half12 = _mm512_set1_epi32(2047);
    for (int32_t i = 0; i < n; i += 16) {
      const int32_t len = n - i < 16 ? n - i : 16;
      const __mmask16 m = static_cast<__mmask16>((1u << len) - 1u);
      __mmask16 keep;
      const __m512i e = exp_lut16_avx512(table, in + i, m, vmax, vdmin, &keep);
      sum = _mm512_mask_add_epi32(sum, keep, sum, rdbp_avx512(e, e12, mask12, half12));
    }
  }
  const int32_t sum_of_exps = _mm512_reduce_add_epi32(sum);
  RowScale rs;
  if (!row_scale(sum_of_exps, table, diff_min, in, out, n, &rs)) return;
  const __m512i scale64 = _mm512_set1_epi64(rs.scale);
  const __m128i ev = _mm_cvtsi32_si128(rs.exponent);
  const __m512i mask = _mm512_set1_epi32(rs.mask), half = _mm512_set1_epi32(rs.mask >> 1);
  const __m512i lo = _mm512_set1_epi32(-128), hi = _mm512_set1_epi32(127);
  for (int32_t i = 0; i < n; i += 16) {
    const int32_t len = n - i < 16 ? n - i : 16;
    const __mmask16 m = static_cast<__mmask16>((1u << len) - 1u);
    __mmask16 keep;
    const __m512i e = exp_lut16_avx512(table, in + i, m, vmax, vdmin, &keep);
    __m512i v = rdbp_avx512(srdhm_avx512(e, scale64), ev, mask, half);
    v = _mm512_min_epi32(_mm512_add_epi32(v, lo), hi);
    v = _mm512_mask_blend_epi32(keep, lo, v);
    _mm_mask_storeu_epi8(out + i, m, _mm512_cvtepi32_epi8(v));
  }
}

// softmax_s8_row with AVX512_VBMI, for rows of 64 columns or more: every
// per-element value depends only on d = max - x in [0, 255], so the row
// builds two byte tables indexed by d and looks them up 64 columns at a time
// (vpermi2b on 128 bytes twice, then a blend on d's top bit):
//   the Q12.19 exp term r(d) (0 when cut by diff_min), as three byte planes
//   summed with vpsadbw (r < 2^24 in every prepared table; other tables take
//   the gather kernel), and
//   the output byte o(d), from the reciprocal of the sum.
// NOLINTEND(misc-definitions-in-headers)
