// xsimd backend of the float kernels (kernels_f32.h), namespace attn::xsimd.
//
// The kernels are the templates of kernels/generic/kernels_f32-inl.h, shared
// with the Highway backend; this file supplies their vector policy in xsimd
// 8.1 ops for the architecture the compile flags enable (backends.cmake:
// ATTN_XSIMD_FLAGS, default -march=native on a native x86 build; NEON on Arm).
// xsimd 8.1 has no reduce_max and no masked loads: both are written here.
//
// Note: inside namespace attn, `xsimd` names this backend's namespace, so the
// library is always spelled ::xsimd here.
#include <cstddef>
#include <cstdint>

#include "kernels/f32/exp_poly.h"
#include "kernels/f32/f16.h"
#include "kernels/f32/generic/register_block.h"
#include "kernels/f32/kernels_f32.h"
#include "kernels/f32/xsimd/kernels_f32_xsimd.h"
#include "xsimd/xsimd.hpp"
#if defined(__AVX512F__) || defined(__F16C__)
#include <immintrin.h>
#endif
#if defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace attn_xsimd {

struct Ops {
  using V = ::xsimd::batch<float>;
  using VI = ::xsimd::batch<int32_t>;
  static constexpr std::size_t kN = V::size;
  static constexpr std::size_t kMaxLanes = kN;
  static std::size_t Lanes() { return kN; }
  static V Zero() { return V(0.0f); }
  static V Set(float f) { return V(f); }
  static V LoadU(const float* p) { return V::load_unaligned(p); }
  // A load kept in a register: GCC otherwise folds a GEMM panel's loads into
  // every FMA that uses them (MR loads instead of one, each possibly split
  // across cache lines), which halved the Dense speed on AVX-512.
  static V LoadReg(const float* p) {
    V v = V::load_unaligned(p);
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __asm__("" : "+v"(v.data));
#endif
    return v;
  }
  static void StoreU(V v, float* p) { v.store_unaligned(p); }
  static V LoadN(const float* p, std::size_t n) {
    alignas(64) float buf[kN] = {};
    for (std::size_t i = 0; i < n; ++i) buf[i] = p[i];
    return V::load_aligned(buf);
  }
  static void StoreN(V v, float* p, std::size_t n) {
    alignas(64) float buf[kN];
    v.store_aligned(buf);
    for (std::size_t i = 0; i < n; ++i) p[i] = buf[i];
  }
  static V Add(V a, V b) { return a + b; }
  static V Sub(V a, V b) { return a - b; }
  static V Mul(V a, V b) { return a * b; }
  static V Div(V a, V b) { return a / b; }
  static V MulAdd(V a, V b, V c) { return ::xsimd::fma(a, b, c); }
  static V Abs(V a) { return ::xsimd::abs(a); }
  static V CopySign(V mag, V sign) { return ::xsimd::copysign(mag, sign); }
  static V IfLess(V a, V b, V yes, V no) { return ::xsimd::select(a < b, yes, no); }
#if defined(__SSE2__)
  // x86 maxps(a, b) = a > b ? a : b (b when either is NaN): one instruction
  // instead of a compare and a blend.
  static V MaxSkipNaN(V x, V m) { return ::xsimd::max(x, m); }
  static V ClampBelow(V x, float lo) { return ::xsimd::max(Set(lo), x); }
#else
  static V MaxSkipNaN(V x, V m) { return ::xsimd::select(x > m, x, m); }
  static V ClampBelow(V x, float lo) { return ::xsimd::select(x < Set(lo), Set(lo), x); }
#endif
  static V Pow2FromMagic(V t) {
    const VI bits = ::xsimd::bitwise_cast<VI>(t);
    return ::xsimd::bitwise_cast<V>((bits + VI(127)) << 23);
  }
#if defined(__AVX512F__)
  // The AVX-512 exp's steps (exp_poly.h): xsimd 8.1 has no two-register
  // permute nor masked FMA, so the intrinsics on the batch's native register.
  static_assert(kN == 16, "xsimd's AVX-512 batch<float> holds 16 lanes");
  static constexpr bool kExpTable32 = true;
  static V Pow2Table32(V t) {
    const __m512i tab = _mm512_permutex2var_epi32(
        _mm512_load_si512(::attn::exp_poly::kExp2Table32Bits), _mm512_castps_si512(t),
        _mm512_load_si512(::attn::exp_poly::kExp2Table32Bits + 16));
    return V(
        _mm512_castsi512_ps(_mm512_add_epi32(tab, _mm512_slli_epi32(_mm512_castps_si512(t), 18))));
  }
  static V MulAddOrZeroBelow(V a, V b, V c, V x, float lo) {
    const __mmask16 keep = _mm512_cmp_ps_mask(x, _mm512_set1_ps(lo), _CMP_NLT_UQ);
    return V(_mm512_maskz_fmadd_ps(keep, a, b, c));
  }
#else
  static constexpr bool kExpTable32 = false;
#endif
  // binary16 rows (generic/f16_f32-inl.h): x86 F16C (rounding in the
  // immediate: to nearest even) on the batch's register, AArch64 FCVTL/FCVTN.
#if defined(__AVX512F__)
  static constexpr bool kF16 = true;
  static V LoadF16(const uint16_t* p) {
    return V(_mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))));
  }
  static void StoreF16(V v, uint16_t* p) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtps_ph(v, _MM_FROUND_NO_EXC));
  }
#elif defined(__AVX__) && defined(__F16C__)
  static_assert(kN == 8, "xsimd's AVX batch<float> holds 8 lanes");
  static constexpr bool kF16 = true;
  static V LoadF16(const uint16_t* p) {
    return V(_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
  }
  static void StoreF16(V v, uint16_t* p) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_cvtps_ph(v, _MM_FROUND_NO_EXC));
  }
#elif defined(__aarch64__)
  static_assert(kN == 4, "xsimd's NEON batch<float> holds 4 lanes");
  static constexpr bool kF16 = true;
  static V LoadF16(const uint16_t* p) { return V(vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p)))); }
  static void StoreF16(V v, uint16_t* p) { vst1_u16(p, vreinterpret_u16_f16(vcvt_f16_f32(v))); }
#else
  static constexpr bool kF16 = false;
  static V LoadF16(const uint16_t*) { return Zero(); }
  static void StoreF16(V, uint16_t*) {}
#endif
  static float ReduceSum(V v) { return ::xsimd::hadd(v); }
  static float ReduceMax(V v) {
    alignas(64) float buf[kN];
    v.store_aligned(buf);
    float m = buf[0];
    for (std::size_t i = 1; i < kN; ++i) m = buf[i] > m ? buf[i] : m;
    return m;
  }
#if defined(__AVX512F__)
  // 4x4 transposes inside each 128-bit block (unpacks), then block b of
  // column k to p + (4b + k) s: no round trip through memory (the buffer
  // below made TransposeScale 30% of SDPA 16 x 16).
  static void Transpose4Store(V r0, V r1, V r2, V r3, float* p, std::size_t s) {
    const __m512d t0 = _mm512_castps_pd(_mm512_unpacklo_ps(r0, r1));
    const __m512d t1 = _mm512_castps_pd(_mm512_unpacklo_ps(r2, r3));
    const __m512d t2 = _mm512_castps_pd(_mm512_unpackhi_ps(r0, r1));
    const __m512d t3 = _mm512_castps_pd(_mm512_unpackhi_ps(r2, r3));
    const __m512 c0 = _mm512_castpd_ps(_mm512_unpacklo_pd(t0, t1));
    const __m512 c1 = _mm512_castpd_ps(_mm512_unpackhi_pd(t0, t1));
    const __m512 c2 = _mm512_castpd_ps(_mm512_unpacklo_pd(t2, t3));
    const __m512 c3 = _mm512_castpd_ps(_mm512_unpackhi_pd(t2, t3));
    StoreBlock4<0>(c0, c1, c2, c3, p, s);
    StoreBlock4<1>(c0, c1, c2, c3, p, s);
    StoreBlock4<2>(c0, c1, c2, c3, p, s);
    StoreBlock4<3>(c0, c1, c2, c3, p, s);
  }
  template <int B>
  static void StoreBlock4(__m512 c0, __m512 c1, __m512 c2, __m512 c3, float* p, std::size_t s) {
    float* q = p + 4 * B * s;
    _mm_storeu_ps(q, _mm512_extractf32x4_ps(c0, B));
    _mm_storeu_ps(q + s, _mm512_extractf32x4_ps(c1, B));
    _mm_storeu_ps(q + 2 * s, _mm512_extractf32x4_ps(c2, B));
    _mm_storeu_ps(q + 3 * s, _mm512_extractf32x4_ps(c3, B));
  }
#else
  static void Transpose4Store(V r0, V r1, V r2, V r3, float* p, std::size_t s) {
    alignas(64) float buf[4][kN];
    r0.store_aligned(buf[0]);
    r1.store_aligned(buf[1]);
    r2.store_aligned(buf[2]);
    r3.store_aligned(buf[3]);
    for (std::size_t x = 0; x < kN; ++x)
      for (std::size_t k = 0; k < 4; ++k) p[x * s + k] = buf[k][x];
  }
#endif
  static void ReduceSum4(V a, V b, V c, V e, float* out) {
    out[0] = ::xsimd::hadd(a);
    out[1] = ::xsimd::hadd(b);
    out[2] = ::xsimd::hadd(c);
    out[3] = ::xsimd::hadd(e);
  }
#if defined(__AVX512F__)
  // Lane 4b + k = the sum of 128-bit block b of the k-th argument.
  static __m512 BlockSums4(__m512 a, __m512 b, __m512 c, __m512 e) {
    const __m512 ab = _mm512_add_ps(_mm512_unpacklo_ps(a, b), _mm512_unpackhi_ps(a, b));
    const __m512 ce = _mm512_add_ps(_mm512_unpacklo_ps(c, e), _mm512_unpackhi_ps(c, e));
    const __m512d ab64 = _mm512_castps_pd(ab);
    const __m512d ce64 = _mm512_castps_pd(ce);
    return _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(ab64, ce64)),
                         _mm512_castpd_ps(_mm512_unpackhi_pd(ab64, ce64)));
  }
  // Block sums s_g of the arguments 4g..4g+3, then the blocks transposed and
  // added: h0 = [s0 B0+B2, s0 B1+B3, s1 B0+B2, s1 B1+B3] (blocks), h1 the same
  // of s2, s3; their even plus odd blocks are the 16 totals in order.
  static void ReduceSum16(V a0, V a1, V a2, V a3, V a4, V a5, V a6, V a7, V a8, V a9, V a10, V a11,
                          V a12, V a13, V a14, V a15, float* out) {
    const __m512 s0 = BlockSums4(a0, a1, a2, a3);
    const __m512 s1 = BlockSums4(a4, a5, a6, a7);
    const __m512 s2 = BlockSums4(a8, a9, a10, a11);
    const __m512 s3 = BlockSums4(a12, a13, a14, a15);
    const __m512 h0 =
        _mm512_add_ps(_mm512_shuffle_f32x4(s0, s1, 0x44), _mm512_shuffle_f32x4(s0, s1, 0xEE));
    const __m512 h1 =
        _mm512_add_ps(_mm512_shuffle_f32x4(s2, s3, 0x44), _mm512_shuffle_f32x4(s2, s3, 0xEE));
    _mm512_storeu_ps(
        out, _mm512_add_ps(_mm512_shuffle_f32x4(h0, h1, 0x88), _mm512_shuffle_f32x4(h0, h1, 0xDD)));
  }
#else
  static void ReduceSum16(V a0, V a1, V a2, V a3, V a4, V a5, V a6, V a7, V a8, V a9, V a10, V a11,
                          V a12, V a13, V a14, V a15, float* out) {
    ReduceSum4(a0, a1, a2, a3, out);
    ReduceSum4(a4, a5, a6, a7, out + 4);
    ReduceSum4(a8, a9, a10, a11, out + 8);
    ReduceSum4(a12, a13, a14, a15, out + 12);
  }
#endif
};

// Order matters: gemm_f32-inl.h and f16_f32-inl.h use kernels_f32-inl.h's helpers.
#include "kernels/f32/generic/kernels_f32-inl.h"
// clang-format off
#include "kernels/f32/generic/gemm_f32-inl.h"
#include "kernels/f32/generic/f16_f32-inl.h"
// clang-format on

}  // namespace attn_xsimd

namespace attn {
namespace xsimd {

using Ops = ::attn_xsimd::Ops;
namespace generic = ::attn_xsimd::generic;

#include "kernels/f32/generic/kernels_f32_entries-inl.h"

}  // namespace xsimd
}  // namespace attn
