// A fragment of kernels_s8_x86.cpp, included by that one translation unit
// only: its definitions cannot be duplicated across units.
// NOLINTBEGIN(misc-definitions-in-headers)
// x86 int8 row kernels at level 2 (AVX-VNNI, 256-bit vpdpbusd) (part of
// kernels_s8_x86.cpp, inside its anonymous namespace).

// ------------------------------------------------------------- AVX-VNNI (2)
// vpdpbusd on 256-bit vectors; the AVX2 ops of level 1 (reduce8x8, hsum8,
// mac) inline here: their target is a subset of this level's.
namespace rows256 {
using rows_avx2::hsum;
using rows_avx2::kLanes;
using rows_avx2::kRqVecs;
using rows_avx2::load_i32_tail;
using rows_avx2::mac_step;
using rows_avx2::mac_tail;
using rows_avx2::qk_short;
using rows_avx2::reduce8;
using rows_avx2::set1;
using rows_avx2::set1_64;
using rows_avx2::store_packed;
using rows_avx2::store_packed_tail;
using rows_avx2::sub;
using rows_avx2::V;
using rows_avx2::zero;
constexpr int32_t kStep = 32;
constexpr int32_t kDotBias = 128;  // dot: (a + 128) b, less 128 sum b
constexpr int32_t kMacLanes = 8;
constexpr int kPvRows = 4;  // byte-interleaved rows, weights as unsigned bytes
constexpr int32_t kPvCols = 32;
ATTN_T_AVXVNNI inline V load(const void* p) {
  return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}
ATTN_T_AVXVNNI inline V load_tail(const void* p, int32_t len) {
  alignas(32) uint8_t b[32] = {};
  std::memcpy(b, p, static_cast<std::size_t>(len));
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(b));
}
// vpdpbusd in asm (as the tile kernels): GCC 12 copies arrays of
// accumulators around the intrinsic every step (and spills one); the tied
// operand keeps them in place. s may come from memory.
ATTN_T_AVXVNNI inline V dp(V acc, V u, V s) {
  __asm__("%{vex%} vpdpbusd %2, %1, %0" : "+x"(acc) : "x"(u), "xm"(s));
  return acc;
}
ATTN_T_AVXVNNI inline V qconst(int32_t zp) { return _mm256_set1_epi8(static_cast<char>(128 + zp)); }
ATTN_T_AVXVNNI inline V qop(const uint8_t* u, V /*c*/) { return load(u); }
ATTN_T_AVXVNNI inline V qop_tail(const uint8_t* u, int32_t len, V /*c*/) {
  return load_tail(u, len);
}
// With 16 registers, a second accumulator per key would spill: the
// zero-point term goes into a as c ~k = -c k - c (~k is an int8), which
// leaves a off by -4c per lane and step; acc0 starts a at +4c per step.
ATTN_T_AVXVNNI inline V acc0(int32_t zp, int32_t n) {
  return _mm256_set1_epi32(wrap_mul32(4 * (128 + zp), (n + kStep - 1) / kStep));
}
ATTN_T_AVXVNNI inline void kdot(V& a, V& /*s*/, V q, V c, const int8_t* k) {
  const V kv = load(k);
  a = dp(dp(a, q, kv), c, _mm256_xor_si256(kv, _mm256_set1_epi32(-1)));
}
ATTN_T_AVXVNNI inline void kdot_tail(V& a, V& /*s*/, V q, V c, const int8_t* k, int32_t len) {
  const V kv = load_tail(k, len);
  a = dp(dp(a, q, kv), c, _mm256_xor_si256(kv, _mm256_set1_epi32(-1)));
}
ATTN_T_AVXVNNI inline void dot32(V& acc, V& sb, V a, V b) {
  acc = dp(acc, _mm256_xor_si256(a, _mm256_set1_epi8(static_cast<char>(0x80))), b);
  sb = dp(sb, _mm256_set1_epi8(1), b);
}
ATTN_T_AVXVNNI inline void dstep(V& acc, V& sb, const int8_t* a, const int8_t* b) {
  dot32(acc, sb, load(a), load(b));
}
ATTN_T_AVXVNNI inline void dstep_tail(V& acc, V& sb, const int8_t* a, const int8_t* b,
                                      int32_t len) {
  dot32(acc, sb, load_tail(a, len), load_tail(b, len));
}
ATTN_T_AVXVNNI inline V pv_load(const int8_t* p) { return load(p); }
ATTN_T_AVXVNNI inline V pv_load_tail(const int8_t* p, int32_t len) { return load_tail(p, len); }
// The weights of rows r.. as bytes of one int32, broadcast (n of them).
ATTN_T_AVX2 inline uint32_t weight_bytes(const int16_t* w, int32_t n) {
  uint32_t wp = 0;
  for (int32_t t = 0; t < n && t < 4; ++t) {
    wp |= static_cast<uint32_t>(static_cast<uint8_t>(w[t])) << (8 * t);
  }
  return wp;
}
struct PvWeights {
  const int16_t* w;
  int32_t nrows;
  ATTN_T_AVXVNNI PvWeights(const int16_t* weights, int32_t n) : w(weights), nrows(n) {}
  ATTN_T_AVXVNNI V full(int32_t r) const {
    return _mm256_set1_epi32(static_cast<int32_t>(weight_bytes(w + r, 4)));
  }
  ATTN_T_AVXVNNI V part(int32_t r) const {
    return _mm256_set1_epi32(static_cast<int32_t>(weight_bytes(w + r, nrows - r)));
  }
};
// a[t] += the four rows' bytes of columns 4t..4t+3 of each 16-column lane.
ATTN_T_AVXVNNI inline void pv_step(V* a, V wv, const V* x) {
  const V lo01 = _mm256_unpacklo_epi8(x[0], x[1]);
  const V hi01 = _mm256_unpackhi_epi8(x[0], x[1]);
  const V lo23 = _mm256_unpacklo_epi8(x[2], x[3]);
  const V hi23 = _mm256_unpackhi_epi8(x[2], x[3]);
  a[0] = dp(a[0], wv, _mm256_unpacklo_epi16(lo01, lo23));
  a[1] = dp(a[1], wv, _mm256_unpackhi_epi16(lo01, lo23));
  a[2] = dp(a[2], wv, _mm256_unpacklo_epi16(hi01, hi23));
  a[3] = dp(a[3], wv, _mm256_unpackhi_epi16(hi01, hi23));
}
ATTN_T_AVXVNNI inline void pv_store(const V* a, int32_t* out) {
  auto* o = reinterpret_cast<__m256i*>(out);
  _mm256_storeu_si256(o, _mm256_permute2x128_si256(a[0], a[1], 0x20));
  _mm256_storeu_si256(o + 1, _mm256_permute2x128_si256(a[2], a[3], 0x20));
  _mm256_storeu_si256(o + 2, _mm256_permute2x128_si256(a[0], a[1], 0x31));
  _mm256_storeu_si256(o + 3, _mm256_permute2x128_si256(a[2], a[3], 0x31));
}
ATTN_T_AVXVNNI inline void pv_store_tail(const V* a, int32_t* out, int32_t len) {
  alignas(32) int32_t t[32];
  pv_store(a, t);
  std::memcpy(out, t, static_cast<std::size_t>(len) * sizeof(int32_t));
}
#define ATTN_ROWS_T ATTN_T_AVXVNNI
#include "kernels/s8/x86/kernels_s8_rows_x86-inl.h"
#undef ATTN_ROWS_T
}  // namespace rows256
// NOLINTEND(misc-definitions-in-headers)
