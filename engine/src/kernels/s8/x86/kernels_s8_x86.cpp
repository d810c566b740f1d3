// x86 int8 kernels (see kernels/s8/kernels_s8.h), selected at run time from
// what the CPU supports:
//   3 "avx512-vnni"  AVX-512 VNNI vpdpbusd on 512-bit vectors (+BW/VL)
//   2 "avx-vnni"     AVX-VNNI vpdpbusd (VEX) on 256-bit vectors
//   1 "avx2"         AVX2: int8 sign-extended to int16, vpmaddwd (exact
//                    int32 pair sums; never the saturating vpmaddubsw)
//   0 "scalar"       portable C++
// Each function is compiled for its target with a target attribute, so the
// library itself needs no -m flags. Every level gives the bits of *_ref:
// integer sums are exact (intermediate int32 wrap-around cancels out, the
// final values fit), and the requantization is TFLite's arithmetic lane-wise.
//
// vpdpbusd multiplies unsigned by signed bytes. The packed query row holds
// u = q ^ 0x80 = q + 128 (unsigned), so for a key row k
//   sum (q - zp) k = sum u k - (128 + zp) sum k
// and both sums are vpdpbusd of k: by u, and by the constant byte 128 + zp
// (in [0, 255]). The same packed layout serves every level, so switching
// levels (tests) never mixes layouts.
//
// The query-tiled core's kernels (attend_s8 runs it at levels 2 and 3; levels
// 0 and 1 keep the one-row core):
//   qk_tile_s8 / pv_tile_s8    one body, kernels_s8_tile_x86-inl.h, over the
//                              vector ops of levels 2 and 3 (the references at 0, 1)
//   qk_tile_s8_rq /            the same GEMMs with the score / output
//   pv_tile_s8_rq              requantization in the epilogue: level 3 only
//                              (kernels_s8_tile_rq_avx512-inl.h)
//   kpack_s8 / vpack_s8 /      AVX-512 at level 3 (kernels_s8_pack_avx512-inl.h),
//   qtile_s8_pack              SSE2 at levels 1 and 2, the references at 0
//   softmax_s8_tile_w          level 3: the AVX512_VBMI byte tables from 64
//                              columns (kernels_s8_softmax_tile_avx512-inl.h),
//                              one vector per row up to 16 columns; else
//                              softmax_s8_row_w row by row.
#include "kernels/s8/kernels_s8.h"

#if defined(ATTN_S8_KERNELS_X86)

// GCC 12's AVX-512 headers trip its own uninitialized warnings (the
// _mm512_undefined_* idiom) once inlined into -Wall -Werror code.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <cpuid.h>
#include <immintrin.h>

#include <atomic>
#include <cstring>

#include "kernels/s8/fixedpoint.h"

#define ATTN_T_AVX2 __attribute__((target("avx2")))
#define ATTN_T_AVXVNNI __attribute__((target("avx2,avxvnni")))
#define ATTN_T_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#define ATTN_T_AVX512VBMI \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx512vbmi")))

namespace attn {
namespace detail {
namespace {

// ------------------------------------------------------------- CPU features
uint64_t xgetbv0() {
  uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

// The best level this CPU runs, and (separately) whether it has AVX-VNNI:
// a CPU with AVX512-VNNI but no VEX-encoded AVX-VNNI (Ice Lake, Cascade
// Lake) runs levels 0, 1 and 3 but not 2.
struct CpuLevels {
  int best = 0;
  bool avxvnni = false;
};

CpuLevels detect_levels() {
  CpuLevels r;
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d) == 0 || a < 7) return r;
  __get_cpuid(1, &a, &b, &c, &d);
  const bool osxsave = (c & (1u << 27)) != 0;
  const bool avx = (c & (1u << 28)) != 0;
  if (!osxsave || !avx) return r;
  const uint64_t xcr0 = xgetbv0();
  const bool os_ymm = (xcr0 & 0x6u) == 0x6u;
  const bool os_zmm = (xcr0 & 0xe6u) == 0xe6u;
  if (!os_ymm) return r;
  __cpuid_count(7, 0, a, b, c, d);
  const bool avx2 = (b & (1u << 5)) != 0;
  const bool avx512f = (b & (1u << 16)) != 0;
  const bool avx512bw = (b & (1u << 30)) != 0;
  const bool avx512vl = (b & (1u << 31)) != 0;
  const bool avx512vnni = (c & (1u << 11)) != 0;
  unsigned a1 = 0, b1 = 0, c1 = 0, d1 = 0;
  __cpuid_count(7, 1, a1, b1, c1, d1);
  if (!avx2) return r;
  r.avxvnni = (a1 & (1u << 4)) != 0;
  if (os_zmm && avx512f && avx512bw && avx512vl && avx512vnni) {
    r.best = 3;
  } else {
    r.best = r.avxvnni ? 2 : 1;
  }
  return r;
}

const CpuLevels& cpu_levels() {
  static const CpuLevels levels = detect_levels();
  return levels;
}

int cpu_level() { return cpu_levels().best; }

// AVX512_VBMI (vpermi2b), for the byte-table softmax at level 3.
bool detect_vbmi() {
  if (cpu_level() < 3) return false;
  unsigned a = 0, b = 0, c = 0, d = 0;
  __cpuid_count(7, 0, a, b, c, d);
  return (c & (1u << 1)) != 0;
}

bool cpu_vbmi() {
  static const bool vbmi = detect_vbmi();
  return vbmi;
}

std::atomic<int> g_level{-1};

int level() {
  int l = g_level.load(std::memory_order_relaxed);
  if (l < 0) {
    l = cpu_level();
    g_level.store(l, std::memory_order_relaxed);
  }
  return l;
}

inline int32_t wrap_sub32(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
}
inline int32_t wrap_mul32(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
}

// ------------------------------------------------------------- scalar (0)
int32_t qrow_dot_scalar(const uint8_t* u, int32_t zp, const int8_t* k, int32_t n) {
  int32_t acc = 0;
  for (int32_t i = 0; i < n; ++i) {
    acc += (static_cast<int32_t>(u[i]) - 128 - zp) * static_cast<int32_t>(k[i]);
  }
  return acc;
}

// ------------------------------------------------------------- AVX2 (1)
// Horizontal reductions: r[t] (8 int32 lanes each) -> lane t = sum of r[t].
ATTN_T_AVX2 inline __m256i reduce8x8(const __m256i* r) {
  const __m256i x01 = _mm256_add_epi32(_mm256_unpacklo_epi32(r[0], r[1]),
                                       _mm256_unpackhi_epi32(r[0], r[1]));
  const __m256i x23 = _mm256_add_epi32(_mm256_unpacklo_epi32(r[2], r[3]),
                                       _mm256_unpackhi_epi32(r[2], r[3]));
  const __m256i x45 = _mm256_add_epi32(_mm256_unpacklo_epi32(r[4], r[5]),
                                       _mm256_unpackhi_epi32(r[4], r[5]));
  const __m256i x67 = _mm256_add_epi32(_mm256_unpacklo_epi32(r[6], r[7]),
                                       _mm256_unpackhi_epi32(r[6], r[7]));
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
constexpr int32_t kStep = 16;     // bytes per dot step (16 int16 lanes)
constexpr int32_t kDotBias = 0;   // dot: a sign-extended as is
constexpr int32_t kMacLanes = 8;
constexpr int kPvRows = 2;        // int16 weight pairs
constexpr int32_t kPvCols = 16;
ATTN_T_AVX2 inline V zero() { return _mm256_setzero_si256(); }
ATTN_T_AVX2 inline V sub(V a, V b) { return _mm256_sub_epi32(a, b); }
ATTN_T_AVX2 inline V set1(int32_t x) { return _mm256_set1_epi32(x); }
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
ATTN_T_AVX2 inline V load(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
ATTN_T_AVX2 inline V load_i32_tail(const int32_t* p, int32_t len) {
  alignas(32) int32_t b[8] = {};
  std::memcpy(b, p, static_cast<std::size_t>(len) * sizeof(int32_t));
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(b));
}
// One vector per step (more would spill the constants of 16 registers).
constexpr int kRqVecs = 1;
ATTN_T_AVX2 inline void store_packed(int8_t* out, const V* r) {
  const __m128i w16 = _mm_packs_epi32(_mm256_castsi256_si128(r[0]), _mm256_extracti128_si256(r[0], 1));
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
// MultiplyByQuantizedMultiplier of x - offset, plus the zero point, with
// left = max(shift, 0) and right = max(-shift, 0); multiplier > 0.
struct RequantAvx2 {
  __m128i vleft, vright;
  __m256i mult, nudge, mask, half, zp, off;
};
ATTN_T_AVX2 inline __m256i requant_avx2(const RequantAvx2& c, __m256i x) {
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
  const int left = shift > 0 ? shift : 0;
  const int right = shift > 0 ? 0 : -shift;
  RequantAvx2 c;
  c.vleft = _mm_cvtsi32_si128(left);
  c.vright = _mm_cvtsi32_si128(right);
  c.mult = _mm256_set1_epi64x(multiplier);
  c.nudge = _mm256_set1_epi64x(int64_t{1} << 30);
  const int32_t m = static_cast<int32_t>((uint64_t{1} << right) - 1u);
  c.mask = _mm256_set1_epi32(m);
  c.half = _mm256_set1_epi32(m >> 1);
  c.zp = _mm256_set1_epi32(zero_point);
  c.off = _mm256_set1_epi32(offset);
  rows_avx2::store_requantized<RequantAvx2, requant_avx2>(c, acc, n, out);
}

// softmax_s8_row (see softmax_s8_row_ref), 8 columns at a time with gathered
// table exps; the last n % 8 columns in scalar code. Outputs are truncated to
// int8 as the reference casts them.
ATTN_T_AVX2 inline __m256i rdbp_avx2(__m256i x, __m128i e, __m256i mask, __m256i half) {
  const __m256i rem = _mm256_and_si256(x, mask);
  const __m256i thr = _mm256_sub_epi32(half, _mm256_srai_epi32(x, 31));
  return _mm256_sub_epi32(_mm256_sra_epi32(x, e), _mm256_cmpgt_epi32(rem, thr));
}

ATTN_T_AVX2 void softmax_avx2(const int32_t* table, int32_t diff_min, const int8_t* in,
                              int8_t* out, int32_t n) {
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
    const __m256i x = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(in + i)));
    const __m256i diff = _mm256_sub_epi32(x, vmax);
    const __m256i keep = _mm256_xor_si256(_mm256_cmpgt_epi32(vdmin, diff), _mm256_set1_epi32(-1));
    const __m256i e = _mm256_mask_i32gather_epi32(zero, table, _mm256_sub_epi32(zero, diff), keep, 4);
    sum = _mm256_add_epi32(sum, _mm256_and_si256(keep, rdbp_avx2(e, e12, mask12, half12)));
  }
  int32_t sum_of_exps = hsum8(sum);
  for (int32_t i = nv; i < n; ++i) {
    const int32_t diff = in[i] - max_in_row;
    if (diff >= diff_min) sum_of_exps += q::rounding_divide_by_pot(table[-diff], 12);
  }
  int num_bits_over_unit = 0;
  const int32_t shifted_scale = q::get_reciprocal(sum_of_exps, 12, &num_bits_over_unit);
  const int exponent = num_bits_over_unit + 31 - 8;
  if (shifted_scale == INT32_MIN) {
    softmax_s8_row_ref(table, diff_min, in, out, n);
    return;
  }
  if (exponent > 31) {
    std::memset(out, 0x80, static_cast<std::size_t>(n));
    return;
  }
  const __m256i scale64 = _mm256_set1_epi64x(shifted_scale);
  const __m256i nudge = _mm256_set1_epi64x(int64_t{1} << 30);
  const __m128i ev = _mm_cvtsi32_si128(exponent);
  const int32_t mk = static_cast<int32_t>((uint64_t{1} << exponent) - 1u);
  const __m256i mask = _mm256_set1_epi32(mk), half = _mm256_set1_epi32(mk >> 1);
  const __m256i lo = _mm256_set1_epi32(-128), hi = _mm256_set1_epi32(127);
  // Byte 0 of each int32 lane, then the two lanes' dwords together.
  const __m256i pick = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                        0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m256i join = _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0);
  for (int32_t i = 0; i < nv; i += 8) {
    const __m256i x = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(in + i)));
    const __m256i diff = _mm256_sub_epi32(x, vmax);
    const __m256i keep = _mm256_xor_si256(_mm256_cmpgt_epi32(vdmin, diff), _mm256_set1_epi32(-1));
    const __m256i e = _mm256_mask_i32gather_epi32(zero, table, _mm256_sub_epi32(zero, diff), keep, 4);
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
      v = q::rounding_divide_by_pot(q::srdhm(shifted_scale, table[-diff]), exponent) - 128;
      if (v > 127) v = 127;
    }
    out[i] = static_cast<int8_t>(v);
  }
}

// ------------------------------------------------------------- AVX-VNNI (2)
// vpdpbusd on 256-bit vectors; the AVX2 ops of level 1 (reduce8x8, hsum8,
// mac) inline here: their target is a subset of this level's.
namespace rows256 {
using rows_avx2::hsum;
using rows_avx2::kLanes;
using rows_avx2::load_i32_tail;
using rows_avx2::mac_step;
using rows_avx2::mac_tail;
using rows_avx2::qk_short;
using rows_avx2::reduce8;
using rows_avx2::set1;
using rows_avx2::kRqVecs;
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
ATTN_T_AVXVNNI inline V load(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
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
ATTN_T_AVXVNNI inline V qop_tail(const uint8_t* u, int32_t len, V /*c*/) { return load_tail(u, len); }
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

// ------------------------------------------------------------- AVX-512 VNNI (3)
ATTN_T_AVX512 inline __mmask64 tail_mask64(int32_t len) {
  return len >= 64 ? ~__mmask64{0} : (len <= 0 ? __mmask64{0} : (__mmask64{1} << len) - 1u);
}

// r[t] (16 int32 lanes each, t < 8) -> lane t = sum of r[t].
ATTN_T_AVX512 inline __m256i reduce8x16(const __m512i* r) {
  const __m512i x01 = _mm512_add_epi32(_mm512_unpacklo_epi32(r[0], r[1]),
                                       _mm512_unpackhi_epi32(r[0], r[1]));
  const __m512i x23 = _mm512_add_epi32(_mm512_unpacklo_epi32(r[2], r[3]),
                                       _mm512_unpackhi_epi32(r[2], r[3]));
  const __m512i x45 = _mm512_add_epi32(_mm512_unpacklo_epi32(r[4], r[5]),
                                       _mm512_unpackhi_epi32(r[4], r[5]));
  const __m512i x67 = _mm512_add_epi32(_mm512_unpacklo_epi32(r[6], r[7]),
                                       _mm512_unpackhi_epi32(r[6], r[7]));
  // Per 128-bit lane L: [t0_L, t1_L, t2_L, t3_L] and [t4_L .. t7_L].
  const __m512i y0 =
      _mm512_add_epi32(_mm512_unpacklo_epi64(x01, x23), _mm512_unpackhi_epi64(x01, x23));
  const __m512i y1 =
      _mm512_add_epi32(_mm512_unpacklo_epi64(x45, x67), _mm512_unpackhi_epi64(x45, x67));
  // [y0.L0+L1, y0.L2+L3, y1.L0+L1, y1.L2+L3]
  const __m512i z = _mm512_add_epi32(_mm512_shuffle_i32x4(y0, y1, 0x88),
                                     _mm512_shuffle_i32x4(y0, y1, 0xdd));
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
ATTN_T_AVX512 inline V qop_tail(const uint8_t* u, int32_t len, V /*c*/) { return load_tail(u, len); }
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
ATTN_T_AVX512 inline void dstep_tail(V& acc, V& sb, const int8_t* a, const int8_t* b,
                                     int32_t len) {
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
// of x - offset, plus the zero point.
struct RequantAvx512 {
  __m128i vleft, vright;
  __m512i mult, nudge, mask, half, zp, off, one;
};
ATTN_T_AVX512 inline __m512i requant_avx512(const RequantAvx512& c, __m512i x) {
  x = _mm512_sll_epi32(_mm512_sub_epi32(x, c.off), c.vleft);
  const __m512i pe = _mm512_add_epi64(_mm512_mul_epi32(x, c.mult), c.nudge);
  const __m512i po = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), c.mult), c.nudge);
  // Even lanes: bits 31..62 of pe; odd lanes: the high half of po << 1.
  __m512i s = _mm512_mask_blend_epi32(static_cast<__mmask16>(0xaaaa), _mm512_srli_epi64(pe, 31),
                                      _mm512_slli_epi64(po, 1));
  const __m512i rem = _mm512_and_si512(s, c.mask);
  const __m512i thr = _mm512_sub_epi32(c.half, _mm512_srai_epi32(s, 31));
  s = _mm512_sra_epi32(s, c.vright);
  s = _mm512_mask_add_epi32(s, _mm512_cmpgt_epi32_mask(rem, thr), s, c.one);
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
  return _mm512_sra_epi64(_mm512_mask_sub_epi64(_mm512_add_epi64(p, c.k), s,
                                                _mm512_add_epi64(p, c.k), c.two31),
                          c.vshift);
}
ATTN_T_AVX512 inline __m512i requant64_avx512(const Requant64Avx512& c, __m512i x) {
  const __m512i even = requant64_half(c, x);
  const __m512i odd = requant64_half(c, _mm512_srli_epi64(x, 32));
  return _mm512_mask_shuffle_epi32(even, static_cast<__mmask16>(0xaaaa), odd,
                                   static_cast<_MM_PERM_ENUM>(0xa0));
}

ATTN_T_AVX512 void requantize64_avx512(const int32_t* acc, int32_t n, int32_t offset,
                                       int32_t multiplier, int e, int32_t zero_point,
                                       int8_t* out) {
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
  const int left = shift > 0 ? shift : 0;
  const int right = shift > 0 ? 0 : -shift;
  RequantAvx512 c;
  c.vleft = _mm_cvtsi32_si128(left);
  c.vright = _mm_cvtsi32_si128(right);
  c.mult = _mm512_set1_epi64(multiplier);
  c.nudge = _mm512_set1_epi64(int64_t{1} << 30);
  const int32_t mk = static_cast<int32_t>((uint64_t{1} << right) - 1u);
  c.mask = _mm512_set1_epi32(mk);
  c.half = _mm512_set1_epi32(mk >> 1);
  c.zp = _mm512_set1_epi32(zero_point);
  c.off = _mm512_set1_epi32(offset);
  c.one = _mm512_set1_epi32(1);
  rows512::store_requantized<RequantAvx512, requant_avx512>(c, acc, n, out);
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
  const __m256i m256 = _mm256_max_epi8(_mm512_castsi512_si256(mx), _mm512_extracti64x4_epi64(mx, 1));
  const __m128i m128 = _mm_max_epi8(_mm256_castsi256_si128(m256), _mm256_extracti128_si256(m256, 1));
  return _mm512_reduce_max_epi32(_mm512_cvtepi8_epi32(m128));
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
      const __m512i diff = _mm512_sub_epi32(_mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(m, in + i)), vmax);
      const __mmask16 keep = _mm512_mask_cmpge_epi32_mask(m, diff, vdmin);
      const __m512i e = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), keep,
                                                    _mm512_sub_epi32(_mm512_setzero_si512(), diff),
                                                    table, 4);
      sum = _mm512_mask_add_epi32(sum, keep, sum, rdbp_avx512(e, e12, mask12, half12));
    }
  }
  const int32_t sum_of_exps = _mm512_reduce_add_epi32(sum);
  int num_bits_over_unit = 0;
  const int32_t shifted_scale = q::get_reciprocal(sum_of_exps, 12, &num_bits_over_unit);
  const int exponent = num_bits_over_unit + 31 - 8;
  if (shifted_scale == INT32_MIN) {  // srdhm's one saturating case (not in practice)
    softmax_s8_row_ref(table, diff_min, in, out, n);
    return;
  }
  if (exponent > 31) {
    std::memset(out, 0x80, static_cast<std::size_t>(n));
    return;
  }
  const __m512i scale64 = _mm512_set1_epi64(shifted_scale);
  const __m128i ev = _mm_cvtsi32_si128(exponent);
  const int32_t mk = static_cast<int32_t>((uint64_t{1} << exponent) - 1u);
  const __m512i mask = _mm512_set1_epi32(mk), half = _mm512_set1_epi32(mk >> 1);
  const __m512i lo = _mm512_set1_epi32(-128), hi = _mm512_set1_epi32(127);
  for (int32_t i = 0; i < n; i += 16) {
    const int32_t len = n - i < 16 ? n - i : 16;
    const __mmask16 m = static_cast<__mmask16>((1u << len) - 1u);
    const __m512i diff = _mm512_sub_epi32(_mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(m, in + i)), vmax);
    const __mmask16 keep = _mm512_mask_cmpge_epi32_mask(m, diff, vdmin);
    const __m512i e = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), keep,
                                                  _mm512_sub_epi32(_mm512_setzero_si512(), diff),
                                                  table, 4);
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
ATTN_T_AVX512VBMI inline __m512i lut256(const __m512i* t, __m512i d) {
  const __m512i lo = _mm512_permutex2var_epi8(t[0], d, t[1]);
  const __m512i hi = _mm512_permutex2var_epi8(t[2], d, t[3]);
  return _mm512_mask_blend_epi8(_mm512_movepi8_mask(d), lo, hi);
}

// The r(d) planes depend only on the table and diff_min: built once per
// table (per row here, once per call by the tiled core). False when some kept
// table[d] is negative or r(d) >= 2^24 (not a prepared table): the gather
// kernel then.
ATTN_T_AVX512 bool softmax_lut_planes_avx512(const int32_t* table, int32_t diff_min,
                                             uint8_t* planes) {
  const __m512i vdmin = _mm512_set1_epi32(diff_min);
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m128i e12 = _mm_cvtsi32_si128(12);
  const __m512i mask12 = _mm512_set1_epi32(4095), half12 = _mm512_set1_epi32(2047);
  __m512i big = _mm512_setzero_si512(), neg = _mm512_setzero_si512();
  // 64 d at a time, each plane's 64 bytes joined in registers and stored
  // once: vpmovdb to memory is slow on AMD, and the 16-byte stores reloaded
  // as 64 bytes (softmax_lut_stats_avx512) would stall store forwarding.
  for (int32_t d0 = 0; d0 < 256; d0 += 64) {
    __m128i part[3][4];
    for (int k = 0; k < 4; ++k) {
      const int32_t d = d0 + 16 * k;
      const __m512i dv = _mm512_add_epi32(iota, _mm512_set1_epi32(d));
      // Kept when -d >= diff_min.
      const __mmask16 keep =
          _mm512_cmpge_epi32_mask(_mm512_sub_epi32(_mm512_setzero_si512(), dv), vdmin);
      const __m512i x = _mm512_maskz_loadu_epi32(keep, table + d);
      const __m512i r = _mm512_maskz_mov_epi32(keep, rdbp_avx512(x, e12, mask12, half12));
      big = _mm512_or_si512(big, r);
      neg = _mm512_or_si512(neg, x);
      part[0][k] = _mm512_cvtepi32_epi8(r);
      part[1][k] = _mm512_cvtepi32_epi8(_mm512_srli_epi32(r, 8));
      part[2][k] = _mm512_cvtepi32_epi8(_mm512_srli_epi32(r, 16));
    }
    for (int b = 0; b < 3; ++b) {
      const __m512i v = _mm512_inserti32x4(
          _mm512_inserti32x4(
              _mm512_inserti32x4(_mm512_castsi128_si512(part[b][0]), part[b][1], 1), part[b][2], 2),
          part[b][3], 3);
      _mm512_storeu_si512(planes + 256 * b + d0, v);
    }
  }
  return _mm512_test_epi32_mask(big, _mm512_set1_epi32(static_cast<int32_t>(0xff000000u))) == 0 &&
         _mm512_cmplt_epi32_mask(neg, _mm512_setzero_si512()) == 0;
}

// One row from prepared planes. kWeights: out receives the unsigned weights
// w = o + 128 (0 for n <= c < n_pad) and the result is their sum; else out
// receives the int8 codes and the result is 0. -1: fall back (a reciprocal
// <= 0: srdhm's saturating case, not in practice).
// dcut (optional): dcut[e - 23] for output exponents e in [23, 31] bounds
// the d whose o(d) can exceed -128: |table[d]| < 2^(e-1) for every d >= it,
// and then |srdhm(scale, table[d])| <= |table[d]| rounds (RoundingDivideByPOT
// by e) to 0, the code -128.
ATTN_T_AVX512 void softmax_lut_dcut(const int32_t* table, uint16_t* dcut) {
  // |table[d]| >= 2^(e-1) <=> e <= bits(|table[d]|) (its bit length): dcut
  // = 1 + the largest d reaching e (0 if none). 16 d at a time from the top:
  // the e a vector's largest magnitude reaches and no higher d did take the
  // vector's highest d at or above 2^(e-1) (|INT32_MIN| = 2^31 unsigned).
  int found = 22;  // every e <= found has its cut
  for (int e = 23; e <= 31; ++e) dcut[e - 23] = 0;
  for (int32_t d0 = 240; d0 >= 0 && found < 31; d0 -= 16) {
    const __m512i mag = _mm512_abs_epi32(_mm512_loadu_si512(table + d0));
    const uint32_t mx = _mm512_reduce_max_epu32(mag);
    const int bits = mx == 0 ? 0 : 32 - __builtin_clz(mx);
    const int top = bits > 31 ? 31 : bits;
    for (int e = found + 1; e <= top; ++e) {
      const __mmask16 m =
          _mm512_cmpge_epu32_mask(mag, _mm512_set1_epi32(static_cast<int32_t>(1u << (e - 1))));
      dcut[e - 23] = static_cast<uint16_t>(d0 + 32 - __builtin_clz(static_cast<uint32_t>(m)));
    }
    if (top > found) found = top;
  }
}

// The r(d) plane sums of one row (d = max - x over its n columns), combined
// lane-wise: s0 + s1 2^8 + s2 2^16 per int64 lane (< 2^40 each). A plane
// whose entries from d = 128 on are all 0, or any plane when the row's d
// stay below 128, takes one vpermi2b zero-masked on d's top bit. Whole
// 64-column vectors first (no column mask), then the tail (zero-masked past
// n). kShort: plane b's lookup is the lower half only (low_only or upper
// zero), per plane.
template <bool kShort>
ATTN_T_AVX512VBMI inline __m512i plane_lookup(const __m512i* t, __m512i d, __mmask64 m,
                                              __mmask64 klo) {
  if constexpr (kShort) {
    return _mm512_maskz_permutex2var_epi8(klo, t[0], d, t[1]);
  } else {
    return _mm512_maskz_mov_epi8(m, lut256(t, d));
  }
}

template <bool kShort0, bool kShort1, bool kShort2>
ATTN_T_AVX512VBMI inline void plane_sums_step(const __m512i (*p)[4], __m512i d, __mmask64 m,
                                              __m512i* s) {
  const __m512i zero = _mm512_setzero_si512();
  const __mmask64 klo = m & ~_mm512_movepi8_mask(d);
  s[0] = _mm512_add_epi64(s[0], _mm512_sad_epu8(plane_lookup<kShort0>(p[0], d, m, klo), zero));
  s[1] = _mm512_add_epi64(s[1], _mm512_sad_epu8(plane_lookup<kShort1>(p[1], d, m, klo), zero));
  s[2] = _mm512_add_epi64(s[2], _mm512_sad_epu8(plane_lookup<kShort2>(p[2], d, m, klo), zero));
}

template <bool kShort0, bool kShort1, bool kShort2>
ATTN_T_AVX512VBMI inline __m512i plane_sums_loop(const __m512i (*p)[4], const int8_t* in,
                                                 int32_t n, __m512i vmax8) {
  __m512i s[3] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
  int32_t i = 0;
  for (; i + 64 <= n; i += 64) {
    plane_sums_step<kShort0, kShort1, kShort2>(
        p, _mm512_sub_epi8(vmax8, _mm512_loadu_si512(in + i)), ~__mmask64{0}, s);
  }
  if (i < n) {
    const __mmask64 m = tail_mask64(n - i);
    plane_sums_step<kShort0, kShort1, kShort2>(
        p, _mm512_sub_epi8(vmax8, _mm512_maskz_loadu_epi8(m, in + i)), m, s);
  }
  return _mm512_add_epi64(s[0],
                          _mm512_add_epi64(_mm512_slli_epi64(s[1], 8), _mm512_slli_epi64(s[2], 16)));
}

ATTN_T_AVX512VBMI inline __m512i plane_sums_row(const __m512i (*p)[4], const bool* upper_zero,
                                                const int8_t* in, int32_t n, int32_t max_in_row,
                                                int32_t range) {
  const __m512i vmax8 = _mm512_set1_epi8(static_cast<char>(max_in_row));
  const bool low_only = range < 128;
  const bool short1 = low_only || upper_zero[1];
  const bool short2 = low_only || upper_zero[2];
  if ((low_only || upper_zero[0]) && short1 && short2) {
    return plane_sums_loop<true, true, true>(p, in, n, vmax8);
  }
  if (short1 && short2) return plane_sums_loop<false, true, true>(p, in, n, vmax8);
  if (short2) return plane_sums_loop<false, false, true>(p, in, n, vmax8);
  return plane_sums_loop<false, false, false>(p, in, n, vmax8);
}

// Row statistics of the LUT softmax: the row max, max - min, and the Q12.19
// sum of exps (wrapping as the reference's int32 sum).
struct LutRowStats {
  int32_t max = 0, range = 0, sum = 0;
};
ATTN_T_AVX512VBMI LutRowStats softmax_lut_stats_avx512(const uint8_t* planes, const int8_t* in,
                                                        int32_t n) {
  // Row max and min (d = max - x never exceeds max - min).
  __m512i mx = _mm512_set1_epi8(-128), mn = _mm512_set1_epi8(127);
  for (int32_t i = 0; i < n; i += 64) {
    const __mmask64 m = tail_mask64(n - i);
    mx = _mm512_max_epi8(mx, _mm512_mask_loadu_epi8(mx, m, in + i));
    mn = _mm512_min_epi8(mn, _mm512_mask_loadu_epi8(mn, m, in + i));
  }
  const __m256i x256 = _mm256_max_epi8(_mm512_castsi512_si256(mx), _mm512_extracti64x4_epi64(mx, 1));
  const __m128i x128 = _mm_max_epi8(_mm256_castsi256_si128(x256), _mm256_extracti128_si256(x256, 1));
  const int32_t max_in_row = _mm512_reduce_max_epi32(_mm512_cvtepi8_epi32(x128));
  const __m256i n256 = _mm256_min_epi8(_mm512_castsi512_si256(mn), _mm512_extracti64x4_epi64(mn, 1));
  const __m128i n128 = _mm_min_epi8(_mm256_castsi256_si128(n256), _mm256_extracti128_si256(n256, 1));
  const int32_t range = max_in_row - _mm512_reduce_min_epi32(_mm512_cvtepi8_epi32(n128));
  __m512i p[3][4];
  for (int b = 0; b < 3; ++b) {
    for (int t = 0; t < 4; ++t) p[b][t] = _mm512_loadu_si512(planes + 256 * b + 64 * t);
  }
  // A plane whose entries from d = 128 on are all 0 (the upper planes of
  // fast-decaying tables) takes one vpermi2b instead of two and a blend.
  bool upper_zero[3];
  for (int b = 0; b < 3; ++b) {
    upper_zero[b] = _mm512_test_epi64_mask(_mm512_or_si512(p[b][2], p[b][3]),
                                           _mm512_or_si512(p[b][2], p[b][3])) == 0;
  }
  // The three plane sums combined lane-wise (< 2^40 per lane), one reduction.
  const int64_t sum64 =
      _mm512_reduce_add_epi64(plane_sums_row(p, upper_zero, in, n, max_in_row, range));
  // Below 2^31 for n <= 4095 (each term < 2^24 ... and in practice <= 2^19);
  // the reference sums in int32, so wrap as it would.
  const int32_t sum_of_exps = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(sum64)));
  LutRowStats st;
  st.max = max_in_row;
  st.range = range;
  st.sum = sum_of_exps;
  return st;
}

// The weight table of a row, w(d) = o(d) + 128 for d in [0, 256) as four
// 64-byte vectors (64 d each), from its reciprocal: shifted_scale > 0 and
// exponent E = num_bits_over_unit + 23 in [23, 31]. With x = table[d] >= 0
// (softmax_lut_planes_avx512 checks) and P = x scale in [0, 2^62), both
// roundings see non-negative values (srdhm's nudge is 2^30, RoundingDivideByPOT
// has no sign correction), so as in requantize64_avx512
//   o(d) + 128 = floor((P + 2^30 + 2^(E-1) 2^31) / 2^(31+E))  in [0, 257]
// (|sum| < 2^63), and the weight min(o(d) + 128, 255) is the unsigned
// saturation of vpackusdw / vpackuswb. d >= dend (past the row's range, cut
// by diff_min, or past the dcut bound) read x = 0 (masked loads), weight 0.
// Even d multiply in place (vpmuludq reads each qword's low dword), odd d
// from the table loaded one entry on (their qwords' low dwords); a
// merge-masked vpshufd interleaves them, two packs and one dword permute
// order 64 d.
ATTN_T_AVX512 inline void softmax_lut_weights(const int32_t* table, int32_t dend,
                                              int32_t shifted_scale, int exponent, __m512i* w) {
  const __m512i scale = _mm512_set1_epi64(shifted_scale);
  const __m512i k = _mm512_set1_epi64((int64_t{1} << 30) + (int64_t{1} << (30 + exponent)));
  const __m128i sh = _mm_cvtsi32_si128(31 + exponent);
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const auto lanes = [](int32_t left) {
    return static_cast<__mmask16>(left >= 16 ? 0xffffu : left <= 0 ? 0u : (1u << left) - 1u);
  };
  for (int t = 0; t < 4; ++t) {
    if (64 * t >= dend) {
      w[t] = _mm512_setzero_si512();
      continue;
    }
    __m512i part[4];
    for (int j = 0; j < 4; ++j) {
      const int32_t d = 64 * t + 16 * j;
      const int32_t left = dend - d;  // lanes d + i < dend of the even / odd loads
      if (left <= 0) {
        part[j] = _mm512_setzero_si512();
        continue;
      }
      // Odd entries d + 1 + 2 i < dend <= 256: never past the table.
      const __m512i xe = _mm512_maskz_loadu_epi32(lanes(left), table + d);
      const __m512i xo = _mm512_maskz_loadu_epi32(lanes(left - 1), table + d + 1);
      const __m512i re = _mm512_srl_epi64(_mm512_add_epi64(_mm512_mul_epu32(xe, scale), k), sh);
      const __m512i ro = _mm512_srl_epi64(_mm512_add_epi64(_mm512_mul_epu32(xo, scale), k), sh);
      part[j] = _mm512_mask_shuffle_epi32(re, static_cast<__mmask16>(0xaaaa), ro,
                                          static_cast<_MM_PERM_ENUM>(0xa0));
    }
    w[t] = _mm512_permutexvar_epi32(
        order, _mm512_packus_epi16(_mm512_packus_epi32(part[0], part[1]),
                                   _mm512_packus_epi32(part[2], part[3])));
  }
}

// The outputs of a row from its statistics and reciprocal (shifted_scale >
// 0, exponent = num_bits_over_unit + 23). See softmax_lut_row_avx512.
// kWeights: returns the weights' sums per int64 lane (the caller reduces).
template <bool kWeights>
ATTN_T_AVX512VBMI __m512i softmax_lut_out_avx512(const uint16_t* dcut, const int32_t* table,
                                                 int32_t diff_min, const int8_t* in, int8_t* out,
                                                 int32_t n, int32_t n_pad, LutRowStats st,
                                                 int32_t shifted_scale, int exponent) {
  const __m512i vmax8 = _mm512_set1_epi8(static_cast<char>(st.max));
  const __m512i zero = _mm512_setzero_si512();
  if (exponent > 31) {
    // Every code -128: every weight 0.
    std::memset(out, kWeights ? 0 : 0x80, static_cast<std::size_t>(kWeights ? n_pad : n));
    return zero;
  }
  // w(d) for the d this row has (d <= range; the rest are never looked up),
  // kept (-d >= diff_min) and below the cut; the rest weigh 0.
  int32_t dend = st.range + 1;
  if (diff_min > 1 - dend) dend = 1 - diff_min;
  if (dcut != nullptr && dcut[exponent - 23] < dend) dend = dcut[exponent - 23];
  __m512i w[4];
  softmax_lut_weights(table, dend, shifted_scale, exponent, w);
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  if (!kWeights) {
    for (int32_t i = 0; i < n; i += 64) {
      const __mmask64 m = tail_mask64(n - i);
      const __m512i d = _mm512_sub_epi8(vmax8, _mm512_maskz_loadu_epi8(m, in + i));
      _mm512_mask_storeu_epi8(out + i, m, _mm512_xor_si512(lut256(w, d), flip));
    }
    return zero;
  }
  __m512i sw = zero;
  if (dend <= 128) {
    // w(d) = 0 from d = 128 on: the lower half, one vpermi2b zero-masked on
    // d's top bit (and past n). Whole vectors of columns first.
    int32_t i = 0;
    for (; i + 64 <= n; i += 64) {
      const __m512i d = _mm512_sub_epi8(vmax8, _mm512_loadu_si512(in + i));
      const __m512i v = _mm512_maskz_permutex2var_epi8(~_mm512_movepi8_mask(d), w[0], d, w[1]);
      sw = _mm512_add_epi64(sw, _mm512_sad_epu8(v, zero));
      _mm512_storeu_si512(out + i, v);
    }
    for (; i < n_pad; i += 64) {
      const __mmask64 m = tail_mask64(n - i);  // all-zero past n
      const __mmask64 mp = tail_mask64(n_pad - i);
      const __m512i d = _mm512_sub_epi8(vmax8, _mm512_maskz_loadu_epi8(m, in + i));
      const __m512i v =
          _mm512_maskz_permutex2var_epi8(m & ~_mm512_movepi8_mask(d), w[0], d, w[1]);
      sw = _mm512_add_epi64(sw, _mm512_sad_epu8(v, zero));
      _mm512_mask_storeu_epi8(out + i, mp, v);
    }
    return sw;
  }
  int32_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i v = lut256(w, _mm512_sub_epi8(vmax8, _mm512_loadu_si512(in + i)));
    sw = _mm512_add_epi64(sw, _mm512_sad_epu8(v, zero));
    _mm512_storeu_si512(out + i, v);
  }
  for (; i < n_pad; i += 64) {
    const __mmask64 m = tail_mask64(n - i);  // all-zero past n
    const __mmask64 mp = tail_mask64(n_pad - i);
    const __m512i d = _mm512_sub_epi8(vmax8, _mm512_maskz_loadu_epi8(m, in + i));
    const __m512i v = _mm512_maskz_mov_epi8(m, lut256(w, d));
    sw = _mm512_add_epi64(sw, _mm512_sad_epu8(v, zero));
    _mm512_mask_storeu_epi8(out + i, mp, v);
  }
  return sw;
}

template <bool kWeights>
ATTN_T_AVX512VBMI int32_t softmax_lut_row_avx512(const uint8_t* planes, const uint16_t* dcut,
                                                 const int32_t* table, int32_t diff_min,
                                                 const int8_t* in, int8_t* out, int32_t n,
                                                 int32_t n_pad) {
  const LutRowStats st = softmax_lut_stats_avx512(planes, in, n);
  int num_bits_over_unit = 0;
  const int32_t shifted_scale = q::get_reciprocal(st.sum, 12, &num_bits_over_unit);
  if (shifted_scale <= 0) return -1;  // srdhm's saturating case (not in practice)
  const __m512i sw = softmax_lut_out_avx512<kWeights>(dcut, table, diff_min, in, out, n, n_pad,
                                                      st, shifted_scale,
                                                      num_bits_over_unit + 31 - 8);
  return static_cast<int32_t>(_mm512_reduce_add_epi64(sw));
}

// gemmlowp's one_over_one_plus_x_for_x_in_0_1 (see q::) on 16 lanes, for
// a in [0, 2^31): the Newton steps of 16 rows' reciprocals at once.
ATTN_T_AVX512 inline __m512i srdhm_vv_avx512(__m512i a, __m512i b) {
  const __m512i nudge = _mm512_set1_epi64(int64_t{1} << 30);
  const __m512i pe = _mm512_add_epi64(_mm512_mul_epi32(a, b), nudge);
  const __m512i po = _mm512_add_epi64(
      _mm512_mul_epi32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(b, 32)), nudge);
  const __m512i r = _mm512_mask_blend_epi32(static_cast<__mmask16>(0xaaaa),
                                            _mm512_srli_epi64(pe, 31),
                                            _mm512_slli_epi64(_mm512_srli_epi64(po, 31), 32));
  const __m512i vmin = _mm512_set1_epi32(INT32_MIN);
  const __mmask16 both = _mm512_cmpeq_epi32_mask(a, vmin) & _mm512_cmpeq_epi32_mask(b, vmin);
  return _mm512_mask_mov_epi32(r, both, _mm512_set1_epi32(INT32_MAX));
}

template <int kExp>
ATTN_T_AVX512 inline __m512i saturating_shl_avx512(__m512i x) {
  const __m512i thr = _mm512_set1_epi32(static_cast<int32_t>((int64_t{1} << (31 - kExp)) - 1));
  const __mmask16 hi = _mm512_cmpgt_epi32_mask(x, thr);
  const __mmask16 lo = _mm512_cmplt_epi32_mask(x, _mm512_sub_epi32(_mm512_setzero_si512(), thr));
  __m512i r = _mm512_slli_epi32(x, kExp);
  r = _mm512_mask_mov_epi32(r, hi, _mm512_set1_epi32(INT32_MAX));
  return _mm512_mask_mov_epi32(r, lo, _mm512_set1_epi32(INT32_MIN));
}

ATTN_T_AVX512 __m512i one_over_one_plus_x_avx512(__m512i a) {
  // rounding_half_sum(a, INT32_MAX) for a >= 0: (a + 2^31) / 2 = (a >> 1) + 2^30.
  const __m512i half_denominator =
      _mm512_add_epi32(_mm512_srli_epi32(a, 1), _mm512_set1_epi32(int32_t{1} << 30));
  const __m512i k48over17 = _mm512_set1_epi32(1515870810);
  const __m512i kneg32over17 = _mm512_set1_epi32(-1010580540);
  const __m512i one_q2 = _mm512_set1_epi32(int32_t{1} << 29);
  __m512i x = _mm512_add_epi32(k48over17, srdhm_vv_avx512(half_denominator, kneg32over17));
  for (int i = 0; i < 3; ++i) {
    const __m512i one_minus = _mm512_sub_epi32(one_q2, srdhm_vv_avx512(half_denominator, x));
    x = _mm512_add_epi32(x, saturating_shl_avx512<2>(srdhm_vv_avx512(x, one_minus)));
  }
  return saturating_shl_avx512<1>(x);
}

ATTN_T_AVX512VBMI bool softmax_lut_avx512(const int32_t* table, int32_t diff_min, const int8_t* in,
                                          int8_t* out, int32_t n) {
  alignas(64) uint8_t planes[768];
  if (!softmax_lut_planes_avx512(table, diff_min, planes)) return false;
  return softmax_lut_row_avx512<false>(planes, nullptr, table, diff_min, in, out, n, n) >= 0;
}

// ------------------------------------------------------------- query tiles
// qk_tile_s8 / pv_tile_s8 at levels 2 and 3: one body
// (kernels_s8_tile_x86-inl.h) over each level's vector ops.
namespace tile512 {
using V = __m512i;
constexpr int kLanes = 16;
constexpr int kQkRows = 8;   // 8 rows x 2 key vectors: 16 accumulators
constexpr int kQkRows4 = 4;  // 4 rows x 4 key vectors: 16 accumulators
constexpr int kPvRows = 4;  // 4 rows x 4 column vectors
ATTN_T_AVX512 inline V zero() { return _mm512_setzero_si512(); }
ATTN_T_AVX512 inline V load(const void* p) { return _mm512_loadu_si512(p); }
ATTN_T_AVX512 inline V bcast4(const void* p) {
  int32_t x = 0;
  std::memcpy(&x, p, 4);
  return _mm512_set1_epi32(x);
}
ATTN_T_AVX512 inline V set1(int32_t x) { return _mm512_set1_epi32(x); }
// vpdpbusd in asm: GCC 12 copies (and spills) arrays of accumulators around
// the intrinsic every iteration; the tied operand keeps them in registers.
ATTN_T_AVX512 inline V dp(V acc, V u, V s) {
  __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(u), "v"(s));
  return acc;
}
ATTN_T_AVX512 inline V sub(V a, V b) { return _mm512_sub_epi32(a, b); }
ATTN_T_AVX512 inline V mul(V a, V b) { return _mm512_mullo_epi32(a, b); }
ATTN_T_AVX512 inline void store(void* p, V v) { _mm512_storeu_si512(p, v); }
#define ATTN_TILE_T ATTN_T_AVX512
#include "kernels/s8/x86/kernels_s8_tile_x86-inl.h"
#include "kernels/s8/x86/kernels_s8_tile_rq_avx512-inl.h"
#undef ATTN_TILE_T
}  // namespace tile512

namespace tile256 {
using V = __m256i;
constexpr int kLanes = 8;
constexpr int kQkRows = 4;   // 4 rows x 2 key vectors: 8 accumulators
constexpr int kQkRows4 = 4;  // unused (4 key vectors: 512-bit only)
constexpr int kPvRows = 2;  // 2 rows x 4 column vectors
ATTN_T_AVXVNNI inline V zero() { return _mm256_setzero_si256(); }
ATTN_T_AVXVNNI inline V load(const void* p) {
  return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}
ATTN_T_AVXVNNI inline V bcast4(const void* p) {
  int32_t x = 0;
  std::memcpy(&x, p, 4);
  return _mm256_set1_epi32(x);
}
ATTN_T_AVXVNNI inline V set1(int32_t x) { return _mm256_set1_epi32(x); }
ATTN_T_AVXVNNI inline V dp(V acc, V u, V s) {
  __asm__("%{vex%} vpdpbusd %2, %1, %0" : "+x"(acc) : "x"(u), "x"(s));
  return acc;
}
ATTN_T_AVXVNNI inline V sub(V a, V b) { return _mm256_sub_epi32(a, b); }
ATTN_T_AVXVNNI inline V mul(V a, V b) { return _mm256_mullo_epi32(a, b); }
ATTN_T_AVXVNNI inline void store(void* p, V v) { _mm256_storeu_si256(static_cast<__m256i*>(p), v); }
#define ATTN_TILE_T ATTN_T_AVXVNNI
#include "kernels/s8/x86/kernels_s8_tile_x86-inl.h"
#undef ATTN_TILE_T
}  // namespace tile256

// The packings at levels 1 and 2 (level 3 has the AVX-512 ones,
// kernels_s8_pack_avx512-inl.h), in SSE2 (baseline x86-64). vpack_s8: 4 rows
// x 16 columns interleaved by two rounds of unpacks into one 64-byte block;
// edges scalar.
void vpack_sse2(const int8_t* v, std::size_t stride, int32_t nrows, int32_t n, int8_t* packed) {
  const int32_t groups = (nrows + 3) / 4;
  const int32_t cblocks = (n + 15) / 16;
  const int32_t full_g = nrows / 4;
  const int32_t full_cb = n / 16;
  for (int32_t g = 0; g < groups; ++g) {
    const int8_t* r0 = v + static_cast<std::size_t>(4 * g) * stride;
    for (int32_t cb = 0; cb < cblocks; ++cb) {
      int8_t* d = packed + (static_cast<std::size_t>(g) * static_cast<std::size_t>(cblocks) +
                            static_cast<std::size_t>(cb)) * 64;
      if (g < full_g && cb < full_cb) {
        const int8_t* p = r0 + 16 * static_cast<std::size_t>(cb);
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + stride));
        const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 * stride));
        const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 3 * stride));
        const __m128i ab_lo = _mm_unpacklo_epi8(a, b), ab_hi = _mm_unpackhi_epi8(a, b);
        const __m128i ce_lo = _mm_unpacklo_epi8(c, e), ce_hi = _mm_unpackhi_epi8(c, e);
        auto* o = reinterpret_cast<__m128i*>(d);
        _mm_storeu_si128(o + 0, _mm_unpacklo_epi16(ab_lo, ce_lo));
        _mm_storeu_si128(o + 1, _mm_unpackhi_epi16(ab_lo, ce_lo));
        _mm_storeu_si128(o + 2, _mm_unpacklo_epi16(ab_hi, ce_hi));
        _mm_storeu_si128(o + 3, _mm_unpackhi_epi16(ab_hi, ce_hi));
        continue;
      }
      for (int32_t c = 0; c < 16; ++c) {
        for (int32_t t = 0; t < 4; ++t) {
          const int32_t r = 4 * g + t;
          const int32_t col = 16 * cb + c;
          d[4 * c + t] = r < nrows && col < n
                             ? v[static_cast<std::size_t>(r) * stride + static_cast<std::size_t>(col)]
                             : int8_t{0};
        }
      }
    }
  }
}

// sum_c x[c] of n signed bytes: vpsadbw of x ^ 0x80 (= x + 128) per 16
// bytes, less 128 per byte; the tail scalar.
int32_t sum_s8_sse2(const int8_t* x, int32_t n) {
  const __m128i flip = _mm_set1_epi8(static_cast<char>(0x80));
  __m128i acc = _mm_setzero_si128();
  int32_t c = 0;
  for (; c + 16 <= n; c += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + c));
    acc = _mm_add_epi64(acc, _mm_sad_epu8(_mm_xor_si128(v, flip), _mm_setzero_si128()));
  }
  int32_t s = _mm_cvtsi128_si32(acc) + _mm_cvtsi128_si32(_mm_srli_si128(acc, 8)) - 128 * c;
  for (; c < n; ++c) s += x[c];
  return s;
}

// kpack_s8 with SSE2: in a full block of 16 keys, 4 keys x 16 columns (4
// groups) at a time are a 4x4 transpose of dwords, one 16-byte store per
// group; the groups past the last 16 columns, and a partial last block,
// as kpack_s8_ref.
void kpack_sse2(const int8_t* k, std::size_t k_stride, int32_t nkeys, int32_t n, int8_t* packed,
                int32_t* ksum) {
  const int32_t groups = (n + 3) / 4;
  const int32_t full_blocks = nkeys / 16;
  const int32_t chunks = n / 16;  // 16-column chunks: groups 4 ch .. 4 ch + 3
  const std::size_t bstride = static_cast<std::size_t>(groups) * 64;
  for (int32_t b = 0; b < full_blocks; ++b) {
    int8_t* pb = packed + static_cast<std::size_t>(b) * bstride;
    const int8_t* kb = k + static_cast<std::size_t>(16 * b) * k_stride;
    for (int32_t r0 = 0; r0 < 16; r0 += 4) {
      const int8_t* k0 = kb + static_cast<std::size_t>(r0) * k_stride;
      for (int32_t ch = 0; ch < chunks; ++ch) {
        const int8_t* p = k0 + 16 * static_cast<std::size_t>(ch);
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i bb = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + k_stride));
        const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 * k_stride));
        const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 3 * k_stride));
        const __m128i ab_lo = _mm_unpacklo_epi32(a, bb), ab_hi = _mm_unpackhi_epi32(a, bb);
        const __m128i ce_lo = _mm_unpacklo_epi32(c, e), ce_hi = _mm_unpackhi_epi32(c, e);
        int8_t* d = pb + static_cast<std::size_t>(4 * ch) * 64 + static_cast<std::size_t>(r0) * 4;
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d), _mm_unpacklo_epi64(ab_lo, ce_lo));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 64), _mm_unpackhi_epi64(ab_lo, ce_lo));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 128), _mm_unpacklo_epi64(ab_hi, ce_hi));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 192), _mm_unpackhi_epi64(ab_hi, ce_hi));
      }
    }
    for (int32_t r = 0; r < 16; ++r) {
      const int8_t* kj = kb + static_cast<std::size_t>(r) * k_stride;
      ksum[16 * b + r] = sum_s8_sse2(kj, n);
      for (int32_t g = 4 * chunks; g < groups; ++g) {
        int8_t* d = pb + static_cast<std::size_t>(g) * 64 + static_cast<std::size_t>(r) * 4;
        for (int32_t t = 0; t < 4; ++t) d[t] = 4 * g + t < n ? kj[4 * g + t] : int8_t{0};
      }
    }
  }
  if (full_blocks * 16 < nkeys) {
    const auto done = static_cast<std::size_t>(full_blocks);
    kpack_s8_ref(k + done * 16 * k_stride, k_stride, nkeys - full_blocks * 16, n,
                 packed + done * bstride, ksum + done * 16);
  }
}

// qtile_s8_pack with SSE2: u = q ^ 0x80 and its sum (vpsadbw) 16 bytes at a
// time; the tail scalar.
void qtile_pack_sse2(const int8_t* q, std::size_t q_stride, int32_t nq, int32_t zp, int32_t n,
                     uint8_t* u, int32_t* qsum) {
  const std::size_t row = round_up_s8(static_cast<std::size_t>(n), 4);
  const __m128i flip = _mm_set1_epi8(static_cast<char>(0x80));
  for (int32_t i = 0; i < nq; ++i) {
    const int8_t* qi = q + static_cast<std::size_t>(i) * q_stride;
    uint8_t* ui = u + static_cast<std::size_t>(i) * row;
    __m128i acc = _mm_setzero_si128();
    int32_t c = 0;
    for (; c + 16 <= n; c += 16) {
      const __m128i x =
          _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(qi + c)), flip);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(ui + c), x);
      acc = _mm_add_epi64(acc, _mm_sad_epu8(x, _mm_setzero_si128()));
    }
    int32_t s = _mm_cvtsi128_si32(acc) + _mm_cvtsi128_si32(_mm_srli_si128(acc, 8)) - 128 * c;
    for (; c < n; ++c) {
      ui[c] = static_cast<uint8_t>(static_cast<uint8_t>(qi[c]) ^ 0x80u);
      s += qi[c];
    }
    for (std::size_t e = static_cast<std::size_t>(n); e < row; ++e) ui[e] = 0;
    qsum[i] = s - zp * n;
  }
}

// ------------------------------------------------------------- dispatch
const uint8_t* as_u(const void* packed) { return static_cast<const uint8_t*>(packed); }

}  // namespace

bool kernels_s8_x86_supported(int lvl) {
  if (lvl == 2) return cpu_levels().avxvnni;
  return lvl >= 0 && lvl <= cpu_level();
}

int kernels_s8_x86_level() { return level(); }

bool kernels_s8_x86_select(int lvl) {
  if (lvl < 0) lvl = cpu_level();
  if (!kernels_s8_x86_supported(lvl)) return false;
  g_level.store(lvl, std::memory_order_relaxed);
  return true;
}

const char* kernels_s8_x86_level_name(int lvl) {
  switch (lvl) {
    case 3:
      return "avx512-vnni";
    case 2:
      return "avx-vnni";
    case 1:
      return "avx2";
    case 0:
      return "scalar";
    default:
      return "?";
  }
}

const char* kernels_s8_name() { return kernels_s8_x86_level_name(level()); }

int32_t dot_s8(const int8_t* a, const int8_t* b, int32_t n, int32_t* sum_b) {
  switch (level()) {
    case 3:
      return rows512::dot(a, b, n, sum_b);
    case 2:
      return rows256::dot(a, b, n, sum_b);
    case 1:
      return rows_avx2::dot(a, b, n, sum_b);
    default:
      return dot_s8_ref(a, b, n, sum_b);
  }
}

void mac_s8(int32_t* acc, const int8_t* b, int32_t w, int32_t n) {
  switch (level()) {
    case 3:
      return rows512::mac(acc, b, w, n);
    case 2:
      return rows256::mac(acc, b, w, n);
    case 1:
      return rows_avx2::mac(acc, b, w, n);
    default:
      return mac_s8_ref(acc, b, w, n);
  }
}

int32_t qrow_s8_pack(const int8_t* q, int32_t zp, int32_t n, void* packed) {
  auto* p = static_cast<uint8_t*>(packed);
  int32_t sum = 0;
  for (int32_t i = 0; i < n; ++i) {
    p[i] = static_cast<uint8_t>(static_cast<uint8_t>(q[i]) ^ 0x80u);
    sum += q[i];
  }
  return sum - zp * n;
}

int32_t qrow_s8_dot(const void* packed, int32_t zp, const int8_t* k, int32_t n) {
  switch (level()) {
    case 3:
      return rows512::qrow_dot(as_u(packed), zp, k, n);
    case 2:
      return rows256::qrow_dot(as_u(packed), zp, k, n);
    case 1:
      return rows_avx2::qrow_dot(as_u(packed), zp, k, n);
    default:
      return qrow_dot_scalar(as_u(packed), zp, k, n);
  }
}

void qk_s8(const void* packed, int32_t zp, const int8_t* k, std::size_t k_stride, int32_t nkeys,
           int32_t n, int32_t* out) {
  switch (level()) {
    case 3:
      return rows512::qk(as_u(packed), zp, k, k_stride, nkeys, n, out);
    case 2:
      return rows256::qk(as_u(packed), zp, k, k_stride, nkeys, n, out);
    case 1:
      return rows_avx2::qk(as_u(packed), zp, k, k_stride, nkeys, n, out);
    default:
      for (int32_t j = 0; j < nkeys; ++j) {
        out[j] = qrow_dot_scalar(as_u(packed), zp, k + static_cast<std::size_t>(j) * k_stride, n);
      }
      return;
  }
}

void pv_s8(const int8_t* const* rows, const int16_t* w, int32_t nrows, int32_t n, int32_t* acc) {
  const auto at = [rows](int32_t r) { return rows[r]; };
  switch (level()) {
    case 3:
      return rows512::pv(at, w, nrows, n, acc);
    case 2:
      return rows256::pv(at, w, nrows, n, acc);
    case 1:
      return rows_avx2::pv(at, w, nrows, n, acc);
    default:
      return pv_s8_ref(rows, w, nrows, n, acc);
  }
}

void pv_s8_strided(const int8_t* v, std::size_t stride, const int16_t* w, int32_t nrows, int32_t n,
                   int32_t* acc) {
  const auto at = [v, stride](int32_t r) { return v + static_cast<std::size_t>(r) * stride; };
  switch (level()) {
    case 3:
      return rows512::pv(at, w, nrows, n, acc);
    case 2:
      return rows256::pv(at, w, nrows, n, acc);
    case 1:
      return rows_avx2::pv(at, w, nrows, n, acc);
    default:
      return pv_s8_strided_ref(v, stride, w, nrows, n, acc);
  }
}

void requantize_row_s8(const int32_t* acc, int32_t n, int32_t offset, int32_t multiplier,
                       int32_t shift, int32_t zero_point, int8_t* out) {
  // The vector forms assume multiplier > 0 (TFLite's are in [2^30, 2^31)).
  const int lvl = multiplier > 0 ? level() : 0;
  switch (lvl) {
    case 3:
      return requantize_avx512(acc, n, offset, multiplier, shift, zero_point, out);
    case 2:
    case 1:
      return requantize_avx2(acc, n, offset, multiplier, shift, zero_point, out);
    default:
      return requantize_row_s8_ref(acc, n, offset, multiplier, shift, zero_point, out);
  }
}

void softmax_s8_row(const int32_t* exp_table, int32_t diff_min, const int8_t* in, int8_t* out,
                    int32_t n) {
  if (level() == 3) {
    if (n >= 64 && cpu_vbmi() && softmax_lut_avx512(exp_table, diff_min, in, out, n)) return;
    return softmax_avx512(exp_table, diff_min, in, out, n);
  }
  if (level() >= 1) return softmax_avx2(exp_table, diff_min, in, out, n);
  softmax_s8_row_ref(exp_table, diff_min, in, out, n);
}


namespace {
#include "kernels/s8/x86/kernels_s8_pack_avx512-inl.h"
#include "kernels/s8/x86/kernels_s8_softmax_tile_avx512-inl.h"
}  // namespace

bool tile_s8_fast() { return level() >= 2; }

void qk_tile_s8(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                const int32_t* ksum, int32_t nkeys, int32_t n, int32_t* out,
                std::size_t out_stride) {
  switch (level()) {
    case 3:
      return tile512::qk_tile(u, nq, zp, kpacked, ksum, nkeys, n, out, out_stride);
    case 2:
      return tile256::qk_tile(u, nq, zp, kpacked, ksum, nkeys, n, out, out_stride);
    default:
      return qk_tile_s8_ref(u, nq, zp, kpacked, ksum, nkeys, n, out, out_stride);
  }
}

bool qk_tile_s8_rq(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                   const int32_t* ksum, int32_t nkeys, int32_t n, const int32_t* offsets,
                   int32_t multiplier, int32_t shift, int32_t out_zp, int8_t* out,
                   std::size_t out_stride) {
  // The 64-bit form: multiplier > 0, shift in [-23, 0] (see requantize64_avx512).
  if (level() != 3 || multiplier <= 0 || shift > 0 || shift < -23) return false;
  tile512::qk_tile_rq(u, nq, zp, kpacked, ksum, nkeys, n, offsets, multiplier, -shift, out_zp,
                      out, out_stride);
  return true;
}

bool pv_tile_s8_rq(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                   int32_t nrows, int32_t n, const int32_t* offsets, int32_t multiplier,
                   int32_t shift, int32_t out_zp, int8_t* out, std::size_t out_stride) {
  // The 64-bit form, as qk_tile_s8_rq.
  if (level() != 3 || multiplier <= 0 || shift > 0 || shift < -23) return false;
  tile512::pv_tile_rq(w, w_stride, nq, vpacked, nrows, n, offsets, multiplier, -shift, out_zp,
                      out, out_stride);
  return true;
}

void vpack_s8(const int8_t* v, std::size_t stride, int32_t nrows, int32_t n, int8_t* packed) {
  if (level() == 3) return vpack_avx512(v, stride, nrows, n, packed);
  if (level() >= 1) return vpack_sse2(v, stride, nrows, n, packed);
  vpack_s8_ref(v, stride, nrows, n, packed);
}

void kpack_s8(const int8_t* k, std::size_t k_stride, int32_t nkeys, int32_t n, int8_t* packed,
              int32_t* ksum) {
  if (level() == 3) return kpack_avx512(k, k_stride, nkeys, n, packed, ksum);
  if (level() >= 1) return kpack_sse2(k, k_stride, nkeys, n, packed, ksum);
  kpack_s8_ref(k, k_stride, nkeys, n, packed, ksum);
}

void qtile_s8_pack(const int8_t* q, std::size_t q_stride, int32_t nq, int32_t zp, int32_t n,
                   uint8_t* u, int32_t* qsum) {
  if (level() == 3) return qtile_pack_avx512(q, q_stride, nq, zp, n, u, qsum);
  if (level() >= 1) return qtile_pack_sse2(q, q_stride, nq, zp, n, u, qsum);
  qtile_s8_pack_ref(q, q_stride, nq, zp, n, u, qsum);
}

void pv_tile_s8(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                int32_t nrows, int32_t n, int32_t* acc, std::size_t acc_stride) {
  switch (level()) {
    case 3:
      return tile512::pv_tile(w, w_stride, nq, vpacked, nrows, n, acc, acc_stride);
    case 2:
      return tile256::pv_tile(w, w_stride, nq, vpacked, nrows, n, acc, acc_stride);
    default:
      return pv_tile_s8_ref(w, w_stride, nq, vpacked, nrows, n, acc, acc_stride);
  }
}


void softmax_s8_tile_prepare(const int32_t* exp_table, int32_t diff_min, int32_t n_max,
                             void* lut) {
  auto* b = static_cast<uint8_t*>(lut);
  // [0, 768) planes, 768 flag, [772, 790) dcut.
  b[768] = 0;
  if (n_max >= 64 && cpu_level() >= 3 && cpu_vbmi()) {
    b[768] = softmax_lut_planes_avx512(exp_table, diff_min, b) ? 1 : 0;
    softmax_lut_dcut(exp_table, reinterpret_cast<uint16_t*>(b + 772));
  }
}

int32_t softmax_s8_row_w(const void* lut, const int32_t* exp_table, int32_t diff_min,
                         const int8_t* in, uint8_t* w, int32_t n, int32_t n_pad) {
  if (n == 0) {
    std::memset(w, 0, static_cast<std::size_t>(n_pad));
    return 0;
  }
  const auto* b = static_cast<const uint8_t*>(lut);
  if (level() == 3 && n >= 64 && b[768] != 0) {
    const int32_t sum = softmax_lut_row_avx512<true>(
        b, reinterpret_cast<const uint16_t*>(b + 772), exp_table, diff_min, in,
        reinterpret_cast<int8_t*>(w), n, n_pad);
    if (sum >= 0) return sum;
  }
  softmax_s8_row(exp_table, diff_min, in, reinterpret_cast<int8_t*>(w), n);
  return weights_from_codes_s8(w, n, n_pad);
}


void softmax_s8_tile_w(const void* lut, const int32_t* exp_table, int32_t diff_min, int8_t* rows,
                       std::size_t stride, int32_t nq, const int32_t* n, int32_t n_pad,
                       int32_t* sum_w) {
  const auto* b = static_cast<const uint8_t*>(lut);
  if (level() == 3) {
    int32_t n_max = 0;
    for (int32_t r = 0; r < nq; ++r) n_max = n[r] > n_max ? n[r] : n_max;
    if (n_max <= 16) {
      softmax_tile_short_avx512(lut, exp_table, diff_min, rows, stride, nq, n, n_pad, sum_w);
      return;
    }
  }
  if (level() == 3 && b[768] != 0) {
    softmax_tile16_avx512(b, exp_table, diff_min, rows, stride, nq, n, n_pad, sum_w);
    return;
  }
  for (int32_t r = 0; r < nq; ++r) {
    int8_t* row = rows + static_cast<std::size_t>(r) * stride;
    sum_w[r] = softmax_s8_row_w(lut, exp_table, diff_min, row, reinterpret_cast<uint8_t*>(row),
                                n[r], n_pad);
  }
}

}  // namespace detail
}  // namespace attn

#endif  // ATTN_S8_KERNELS_X86
