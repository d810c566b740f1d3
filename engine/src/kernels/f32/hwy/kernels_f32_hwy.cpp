// Highway backend of the float kernels (kernels_f32.h), namespace attn::hwy.
//
// The kernels themselves are the templates of kernels/generic/kernels_f32-inl.h;
// this file supplies their vector policy in Highway ops and compiles them once
// per Highway target. On x86 the targets are SSE4, AVX2, AVX-512 and AVX-512
// with VNNI (HWY_WANT_AVX3_DL), chosen at run time by HWY_DYNAMIC_DISPATCH once
// per kernel call; elsewhere (Arm) only the static target is compiled
// (HWY_COMPILE_ONLY_STATIC, set by backends.cmake) and the dispatch is direct.
//
// Each kernel is one entry of kernels/generic/kernels_f32_entries-inl.h per
// target (attn::hwy::N_AVX2::dot_f32, ...) and one dispatching function of the
// same name in attn::hwy.
//
// Inside namespace attn, `hwy` names this backend's namespace: the Highway
// library is spelled ::hwy here (hwy_namespace.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/f32/hwy/kernels_f32_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <cstddef>
#include <cstdint>

#include "kernels/f32/exp_poly.h"
#include "kernels/f32/f16.h"
#include "kernels/f32/generic/register_block.h"
#include "kernels/f32/hwy/hwy_namespace.h"
#include "kernels/f32/hwy/kernels_f32_hwy.h"
#include "kernels/f32/kernels_f32.h"

HWY_BEFORE_NAMESPACE();
namespace attn {
namespace hwy {
namespace HWY_NAMESPACE {
namespace hn = ::hwy::HWY_NAMESPACE;

// Masked loads/stores that never touch memory past n: native on AVX2 and up
// and on SVE; elsewhere (SSE4, NEON, emulated) through a lane buffer.
#if (HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2) || HWY_HAVE_SCALABLE
#define ATTN_HWY_NATIVE_MASKED 1
#else
#define ATTN_HWY_NATIVE_MASKED 0
#endif

// AArch64 NEON: FMLA by element (kernels_f32_lane-inl.h). Not SVE, whose
// indexed FMLA broadcasts per 128-bit segment, nor Armv7 (no fused by-scalar
// multiply-accumulate).
#if HWY_ARCH_ARM_A64 && HWY_TARGET == HWY_NEON
#define ATTN_HWY_LANE_FMA 1
#else
#define ATTN_HWY_LANE_FMA 0
#endif

struct Ops {
  using D = hn::ScalableTag<float>;
  using V = hn::Vec<D>;
  static constexpr std::size_t kMaxLanes = HWY_MAX_BYTES / sizeof(float);
  // x86 below AVX-512 has 16 vector registers (ymm / xmm 0-15).
  static constexpr int kVectorRegs = HWY_ARCH_X86 && HWY_TARGET >= HWY_AVX2 ? 16 : 32;
  static HWY_INLINE std::size_t Lanes() { return hn::Lanes(D()); }
  static HWY_INLINE V Zero() { return hn::Zero(D()); }
  static HWY_INLINE V Set(float f) { return hn::Set(D(), f); }
  static HWY_INLINE V LoadU(const float* p) { return hn::LoadU(D(), p); }
  static HWY_INLINE void StoreU(V v, float* p) { hn::StoreU(v, D(), p); }
  static HWY_INLINE V LoadReg(const float* p) { return hn::LoadU(D(), p); }
  static HWY_INLINE V LoadN(const float* p, std::size_t n) {
#if ATTN_HWY_NATIVE_MASKED
    return hn::MaskedLoad(hn::FirstN(D(), n), D(), p);
#else
    HWY_ALIGN float buf[HWY_MAX_BYTES / sizeof(float)] = {};
    for (std::size_t i = 0; i < n; ++i) buf[i] = p[i];
    return hn::Load(D(), buf);
#endif
  }
  static HWY_INLINE void StoreN(V v, float* p, std::size_t n) {
#if ATTN_HWY_NATIVE_MASKED
    hn::BlendedStore(v, hn::FirstN(D(), n), D(), p);
#else
    HWY_ALIGN float buf[HWY_MAX_BYTES / sizeof(float)] = {};
    hn::Store(v, D(), buf);
    for (std::size_t i = 0; i < n; ++i) p[i] = buf[i];
#endif
  }
  static HWY_INLINE V Add(V a, V b) { return hn::Add(a, b); }
  static HWY_INLINE V Sub(V a, V b) { return hn::Sub(a, b); }
  static HWY_INLINE V Mul(V a, V b) { return hn::Mul(a, b); }
  static HWY_INLINE V Div(V a, V b) { return hn::Div(a, b); }
  static HWY_INLINE V MulAdd(V a, V b, V c) { return hn::MulAdd(a, b, c); }
#if ATTN_HWY_LANE_FMA
  // a * b[kLane] + c: `fmla c.4s, a.4s, b.s[kLane]`.
  template <int kLane>
  static HWY_INLINE V MulAddLane(V a, V b, V c) {
    return V{vfmaq_laneq_f32(c.raw, a.raw, b.raw, kLane)};
  }
#endif
  static HWY_INLINE V Abs(V a) { return hn::Abs(a); }
  static HWY_INLINE V CopySign(V mag, V sign) { return hn::CopySign(mag, sign); }
  static HWY_INLINE V IfLess(V a, V b, V yes, V no) {
    return hn::IfThenElse(hn::Lt(a, b), yes, no);
  }
  static HWY_INLINE V MaxSkipNaN(V x, V m) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
    return hn::Max(x, m);  // maxps(x, m) = x > m ? x : m
#elif ATTN_HWY_LANE_FMA
    // fmaxnm: the number of a NaN and a number. Differs from x > m ? x : m
    // only for a NaN m (no caller's running max is NaN) and in the sign of
    // a zero max.
    return V{vmaxnmq_f32(x.raw, m.raw)};
#else
    return hn::IfThenElse(hn::Gt(x, m), x, m);
#endif
  }
  static HWY_INLINE V ClampBelow(V x, float lo) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
    return hn::Max(Set(lo), x);  // maxps(lo, x) = lo > x ? lo : x
#elif ATTN_HWY_LANE_FMA
    return V{vmaxq_f32(x.raw, Set(lo).raw)};  // fmax: a NaN operand gives NaN
#else
    return hn::IfThenElse(hn::Lt(x, Set(lo)), Set(lo), x);
#endif
  }
  static HWY_INLINE V Pow2FromMagic(V t) {
    const hn::RebindToSigned<D> di;
    return hn::BitCast(D(), hn::ShiftLeft<23>(hn::Add(hn::BitCast(di, t), hn::Set(di, 127))));
  }
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  // The AVX-512 exp's steps (exp_poly.h) as raw intrinsics: Highway 1.0.3
  // has no two-register permute, and its IfThenElseZero does not fold into
  // the FMA's zero-mask.
  static constexpr bool kExpTable32 = true;
  static HWY_INLINE V Pow2Table32(V t) {
    const __m512i tab = _mm512_permutex2var_epi32(
        _mm512_load_si512(::attn::exp_poly::kExp2Table32Bits), _mm512_castps_si512(t.raw),
        _mm512_load_si512(::attn::exp_poly::kExp2Table32Bits + 16));
    return V{_mm512_castsi512_ps(
        _mm512_add_epi32(tab, _mm512_slli_epi32(_mm512_castps_si512(t.raw), 18)))};
  }
  static HWY_INLINE V MulAddOrZeroBelow(V a, V b, V c, V x, float lo) {
    const __mmask16 keep = _mm512_cmp_ps_mask(x.raw, _mm512_set1_ps(lo), _CMP_NLT_UQ);
    return V{_mm512_maskz_fmadd_ps(keep, a.raw, b.raw, c.raw)};
  }
#else
  static constexpr bool kExpTable32 = false;
#endif
  // binary16 rows (generic/f16_f32-inl.h): hardware conversions on x86 with
  // F16C (AVX2 and up; SSE4's emulation truncates) and on AArch64 (NEON, SVE).
#if (HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && !defined(HWY_DISABLE_F16C)) || \
    (HWY_ARCH_ARM_A64 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR)
  static constexpr bool kF16 = true;
  static HWY_INLINE V LoadF16(const uint16_t* p) {
    const hn::Rebind<uint16_t, D> du16;
    const hn::Rebind<::hwy::float16_t, D> df16;
    return hn::PromoteTo(D(), hn::BitCast(df16, hn::LoadU(du16, p)));
  }
  static HWY_INLINE void StoreF16(V v, uint16_t* p) {
    const hn::Rebind<uint16_t, D> du16;
    const hn::Rebind<::hwy::float16_t, D> df16;
    hn::StoreU(hn::BitCast(du16, hn::DemoteTo(df16, v)), du16, p);
  }
#else
  static constexpr bool kF16 = false;
  static HWY_INLINE V LoadF16(const uint16_t*) { return Zero(); }
  static HWY_INLINE void StoreF16(V, uint16_t*) {}
#endif
  static HWY_INLINE float ReduceSum(V v) { return hn::GetLane(hn::SumOfLanes(D(), v)); }
  static HWY_INLINE float ReduceMax(V v) {
#if HWY_TARGET == HWY_EMU128
    // Highway 1.0.3's EMU128 MaxOfLanes can start from the lowest finite
    // value, so all -inf lanes reduce to -FLT_MAX (seen under -O2 -g):
    // reduce the lanes here with the same x > m rule as MaxSkipNaN.
    HWY_ALIGN float lanes[HWY_MAX_BYTES / sizeof(float)];
    hn::Store(v, D(), lanes);
    float m = lanes[0];
    for (std::size_t i = 1; i < hn::Lanes(D()); ++i) m = lanes[i] > m ? lanes[i] : m;
    return m;
#else
    return hn::GetLane(hn::MaxOfLanes(D(), v));
#endif
  }

#if HWY_TARGET == HWY_SCALAR || HWY_HAVE_SCALABLE
  static HWY_INLINE void Transpose4Store(V r0, V r1, V r2, V r3, float* p, std::size_t s) {
    HWY_ALIGN float buf[4][HWY_MAX_BYTES / sizeof(float)];
    hn::Store(r0, D(), buf[0]);
    hn::Store(r1, D(), buf[1]);
    hn::Store(r2, D(), buf[2]);
    hn::Store(r3, D(), buf[3]);
    for (std::size_t x = 0; x < Lanes(); ++x)
      for (std::size_t k = 0; k < 4; ++k) p[x * s + k] = buf[k][x];
  }
  static HWY_INLINE void ReduceSum4(V a, V b, V c, V e, float* out) {
    out[0] = ReduceSum(a);
    out[1] = ReduceSum(b);
    out[2] = ReduceSum(c);
    out[3] = ReduceSum(e);
  }
  static HWY_INLINE void ReduceSum16(V a0, V a1, V a2, V a3, V a4, V a5, V a6, V a7, V a8, V a9,
                                     V a10, V a11, V a12, V a13, V a14, V a15, float* out) {
    ReduceSum4(a0, a1, a2, a3, out);
    ReduceSum4(a4, a5, a6, a7, out + 4);
    ReduceSum4(a8, a9, a10, a11, out + 8);
    ReduceSum4(a12, a13, a14, a15, out + 12);
  }
#else
  // Sums the 128-bit blocks of v down to one and stores its 4 lanes.
  template <class DD>
  static HWY_INLINE void StoreBlockSum(DD dd, hn::Vec<DD> v, float* out) {
    if constexpr (hn::MaxLanes(DD()) > 4) {
      const hn::Half<DD> dh;
      StoreBlockSum(dh, hn::Add(hn::LowerHalf(dh, v), hn::UpperHalf(dh, v)), out);
    } else {
      hn::StoreU(v, dd, out);
    }
  }
  // Stores the 128-bit blocks of v at p, p + step, p + 2 step, ...
  template <class DD>
  static HWY_INLINE void StoreBlocks(DD dd, hn::Vec<DD> v, float* p, std::size_t step) {
    if constexpr (hn::MaxLanes(DD()) > 4) {
      const hn::Half<DD> dh;
      StoreBlocks(dh, hn::LowerHalf(dh, v), p, step);
      StoreBlocks(dh, hn::UpperHalf(dh, v), p + step * (hn::MaxLanes(DD()) / 8), step);
    } else {
      hn::StoreU(v, dd, p);
    }
  }
  // 4x4 transposes inside each 128-bit block: lane 4b + k of r0..r3 -> p[(4b + k) * s].
  static HWY_INLINE void Transpose4Store(V r0, V r1, V r2, V r3, float* p, std::size_t s) {
    const D d;
    const hn::Repartition<uint64_t, D> d64;
    const auto t0 = hn::BitCast(d64, hn::InterleaveLower(d, r0, r1));
    const auto t1 = hn::BitCast(d64, hn::InterleaveLower(d, r2, r3));
    const auto t2 = hn::BitCast(d64, hn::InterleaveUpper(d, r0, r1));
    const auto t3 = hn::BitCast(d64, hn::InterleaveUpper(d, r2, r3));
    StoreBlocks(d, hn::BitCast(d, hn::InterleaveLower(d64, t0, t1)), p, 4 * s);
    StoreBlocks(d, hn::BitCast(d, hn::InterleaveUpper(d64, t0, t1)), p + s, 4 * s);
    StoreBlocks(d, hn::BitCast(d, hn::InterleaveLower(d64, t2, t3)), p + 2 * s, 4 * s);
    StoreBlocks(d, hn::BitCast(d, hn::InterleaveUpper(d64, t2, t3)), p + 3 * s, 4 * s);
  }
  // Transpose-and-add within each 128-bit block: lane 4b + k of the result is
  // the sum of block b of the k-th argument.
  static HWY_INLINE V BlockSums4(V a, V b, V c, V e) {
    const D d;
    const hn::Repartition<uint64_t, D> d64;
    const V ab = hn::Add(hn::InterleaveLower(d, a, b), hn::InterleaveUpper(d, a, b));
    const V ce = hn::Add(hn::InterleaveLower(d, c, e), hn::InterleaveUpper(d, c, e));
    const auto ab64 = hn::BitCast(d64, ab);
    const auto ce64 = hn::BitCast(d64, ce);
    return hn::Add(hn::BitCast(d, hn::InterleaveLower(d64, ab64, ce64)),
                   hn::BitCast(d, hn::InterleaveUpper(d64, ab64, ce64)));
  }
  // Transpose-and-add within each 128-bit block, then across blocks.
  static HWY_INLINE void ReduceSum4(V a, V b, V c, V e, float* out) {
    StoreBlockSum(D(), BlockSums4(a, b, c, e), out);
  }
  // Block sums s_g of the arguments 4g..4g+3, then a transposing add across
  // blocks: on 16 lanes, halves of (s0, s2) and (s1, s3), then adjacent
  // blocks, leave lane 4g + k = the total of argument 4g + k (one vector, one
  // store); on 8 lanes the halves of (s0, s1) and (s2, s3); on 4 lanes the
  // block sums are the totals.
  template <class DD>
  static HWY_INLINE void ReduceSum16Impl(DD d, V a0, V a1, V a2, V a3, V a4, V a5, V a6, V a7, V a8,
                                         V a9, V a10, V a11, V a12, V a13, V a14, V a15,
                                         float* out) {
    const V s0 = BlockSums4(a0, a1, a2, a3);
    const V s1 = BlockSums4(a4, a5, a6, a7);
    const V s2 = BlockSums4(a8, a9, a10, a11);
    const V s3 = BlockSums4(a12, a13, a14, a15);
    if constexpr (hn::MaxLanes(DD()) == 16) {
      // h0 = [s0 B0+B2, s0 B1+B3, s2 B0+B2, s2 B1+B3] (blocks), h1 the same of s1, s3.
      const V h0 = hn::Add(hn::ConcatLowerLower(d, s2, s0), hn::ConcatUpperUpper(d, s2, s0));
      const V h1 = hn::Add(hn::ConcatLowerLower(d, s3, s1), hn::ConcatUpperUpper(d, s3, s1));
      const V x = hn::OddEvenBlocks(h1, h0);                          // h0 B0, h1 B1, h0 B2, h1 B3
      const V y = hn::SwapAdjacentBlocks(hn::OddEvenBlocks(h0, h1));  // h0 B1, h1 B0, h0 B3, h1 B2
      hn::StoreU(hn::Add(x, y), d, out);
    } else if constexpr (hn::MaxLanes(DD()) == 8) {
      hn::StoreU(hn::Add(hn::ConcatLowerLower(d, s1, s0), hn::ConcatUpperUpper(d, s1, s0)), d, out);
      hn::StoreU(hn::Add(hn::ConcatLowerLower(d, s3, s2), hn::ConcatUpperUpper(d, s3, s2)), d,
                 out + 8);
    } else {
      StoreBlockSum(d, s0, out);
      StoreBlockSum(d, s1, out + 4);
      StoreBlockSum(d, s2, out + 8);
      StoreBlockSum(d, s3, out + 12);
    }
  }
  static HWY_INLINE void ReduceSum16(V a0, V a1, V a2, V a3, V a4, V a5, V a6, V a7, V a8, V a9,
                                     V a10, V a11, V a12, V a13, V a14, V a15, float* out) {
    ReduceSum16Impl(D(), a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, out);
  }
#endif
};

// Order matters: gemm_f32-inl.h and f16_f32-inl.h use kernels_f32-inl.h's helpers.
#include "kernels/f32/generic/kernels_f32-inl.h"
// clang-format off
#include "kernels/f32/generic/gemm_f32-inl.h"
#include "kernels/f32/generic/f16_f32-inl.h"
// clang-format on

#if ATTN_HWY_LANE_FMA
#include "kernels/f32/generic/kernels_f32_lane-inl.h"

// This policy's transposed tiles and row-layout P.V: the FMLA-by-element
// register blocks.
namespace generic {
template <>
void QkTileT<Ops>(const float* qt, int32_t tq, int32_t d, const float* k, std::size_t k_stride,
                  int32_t nk, float* st) {
  QkTileTLane<Ops>(qt, tq, d, k, k_stride, nk, st);
}
template <>
void PvTileT<Ops>(const float* pt, int32_t tq, int32_t nq, int32_t nk, const float* v,
                  std::size_t v_stride, int32_t dv, float* acc, std::size_t a_stride) {
  PvTileTLane<Ops>(pt, tq, nq, nk, v, v_stride, dv, acc, a_stride);
}
template <>
void PvTile<Ops>(const float* p, std::size_t p_stride, int32_t nq, int32_t nk, const float* v,
                 std::size_t v_stride, int32_t dv, float* acc, std::size_t a_stride) {
  PvTileLane<Ops>(p, p_stride, nq, nk, v, v_stride, dv, acc, a_stride);
}
template <>
void PvTile<Ops>(const float* p, std::size_t p_stride, int32_t nq, int32_t nk, const uint16_t* v,
                 std::size_t v_stride, int32_t dv, float* acc, std::size_t a_stride) {
  PvTileLane<Ops>(p, p_stride, nq, nk, v, v_stride, dv, acc, a_stride);
}
}  // namespace generic
#endif

#include "kernels/f32/generic/kernels_f32_entries-inl.h"

#undef ATTN_HWY_LANE_FMA
#undef ATTN_HWY_NATIVE_MASKED
}  // namespace HWY_NAMESPACE
}  // namespace hwy
}  // namespace attn
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace attn {
namespace hwy {

HWY_EXPORT(dot_f32);
HWY_EXPORT(qk_tile_f32);
HWY_EXPORT(max_f32);
HWY_EXPORT(exp_sub_sum_f32);
HWY_EXPORT(softmax_f32);
HWY_EXPORT(pv_tile_f32);
HWY_EXPORT(transpose_scale_f32);
HWY_EXPORT(qk_tile_t_f32);
HWY_EXPORT(softmax_t_f32);
HWY_EXPORT(pv_tile_t_f32);
HWY_EXPORT(axpy_f32);
HWY_EXPORT(scale_f32);
HWY_EXPORT(add_f32);
HWY_EXPORT(tanh_f32);
HWY_EXPORT(linear_f32);
HWY_EXPORT(dense_f32);
HWY_EXPORT(gemm_nt_f32);
HWY_EXPORT(gemm_nt_f16w_f32);
HWY_EXPORT(qk_tile_f16k_f32);
HWY_EXPORT(pv_tile_f16v_f32);
HWY_EXPORT(qk_tile_kt_f32);
HWY_EXPORT(qk_tile_kt_f16_f32);
HWY_EXPORT(f32_to_f16);

float dot_f32(const float* a, const float* b, int32_t n) {
  return HWY_DYNAMIC_DISPATCH(dot_f32)(a, b, n);
}
void qk_tile_f32(const float* q, std::size_t q_stride, int32_t nq, const float* k,
                 std::size_t k_stride, int32_t nk, int32_t d, float* s, std::size_t s_stride) {
  HWY_DYNAMIC_DISPATCH(qk_tile_f32)(q, q_stride, nq, k, k_stride, nk, d, s, s_stride);
}
float max_f32(const float* x, int32_t n) { return HWY_DYNAMIC_DISPATCH(max_f32)(x, n); }
float exp_sub_sum_f32(float* x, int32_t n, float m) {
  return HWY_DYNAMIC_DISPATCH(exp_sub_sum_f32)(x, n, m);
}
void softmax_f32(float* x, int32_t n) { HWY_DYNAMIC_DISPATCH(softmax_f32)(x, n); }
void pv_tile_f32(const float* p, std::size_t p_stride, int32_t nq, int32_t nk, const float* v,
                 std::size_t v_stride, int32_t dv, float* acc, std::size_t a_stride) {
  HWY_DYNAMIC_DISPATCH(pv_tile_f32)(p, p_stride, nq, nk, v, v_stride, dv, acc, a_stride);
}
void transpose_scale_f32(const float* q, std::size_t q_stride, int32_t nq, int32_t d, float scale,
                         float* qt, int32_t tq) {
  HWY_DYNAMIC_DISPATCH(transpose_scale_f32)(q, q_stride, nq, d, scale, qt, tq);
}
void qk_tile_t_f32(const float* qt, int32_t tq, int32_t d, const float* k, std::size_t k_stride,
                   int32_t nk, float* st) {
  HWY_DYNAMIC_DISPATCH(qk_tile_t_f32)(qt, tq, d, k, k_stride, nk, st);
}
void softmax_t_f32(float* st, int32_t tq, int32_t nk, float* m, float* l, int32_t nq, float* acc,
                   std::size_t a_stride, int32_t dv) {
  HWY_DYNAMIC_DISPATCH(softmax_t_f32)(st, tq, nk, m, l, nq, acc, a_stride, dv);
}
void pv_tile_t_f32(const float* pt, int32_t tq, int32_t nq, int32_t nk, const float* v,
                   std::size_t v_stride, int32_t dv, float* acc, std::size_t a_stride) {
  HWY_DYNAMIC_DISPATCH(pv_tile_t_f32)(pt, tq, nq, nk, v, v_stride, dv, acc, a_stride);
}
void axpy_f32(float* y, const float* x, int32_t n, float a) {
  HWY_DYNAMIC_DISPATCH(axpy_f32)(y, x, n, a);
}
void scale_f32(float* x, int32_t n, float a) { HWY_DYNAMIC_DISPATCH(scale_f32)(x, n, a); }
void add_f32(float* y, const float* a, const float* b, int32_t n) {
  HWY_DYNAMIC_DISPATCH(add_f32)(y, a, b, n);
}
void tanh_f32(float* x, int32_t n) { HWY_DYNAMIC_DISPATCH(tanh_f32)(x, n); }
void linear_f32(const float* x, int32_t rows, int32_t n_in, const float* w, const float* bias,
                int32_t n_out, float* y) {
  HWY_DYNAMIC_DISPATCH(linear_f32)(x, rows, n_in, w, bias, n_out, y);
}
void dense_f32(const float* x, int32_t rows, int32_t n_in, const float* w, const float* bias,
               int32_t n_out, float* y) {
  HWY_DYNAMIC_DISPATCH(dense_f32)(x, rows, n_in, w, bias, n_out, y);
}
void gemm_nt_f32(const float* a, std::size_t a_stride, int32_t m, int32_t k, const float* b,
                 std::size_t b_stride, int32_t n, const float* bias, bool accumulate, float* y,
                 std::size_t y_stride) {
  HWY_DYNAMIC_DISPATCH(gemm_nt_f32)
  (a, a_stride, m, k, b, b_stride, n, bias, accumulate, y, y_stride);
}
void gemm_nt_f16w_f32(const float* a, std::size_t a_stride, int32_t m, int32_t k, const uint16_t* b,
                      std::size_t b_stride, int32_t n, const float* bias, bool accumulate, float* y,
                      std::size_t y_stride) {
  HWY_DYNAMIC_DISPATCH(gemm_nt_f16w_f32)
  (a, a_stride, m, k, b, b_stride, n, bias, accumulate, y, y_stride);
}

void qk_tile_f16k_f32(const float* q, std::size_t q_stride, int32_t nq, const uint16_t* k,
                      std::size_t k_stride, int32_t nk, int32_t d, float* s, std::size_t s_stride) {
  HWY_DYNAMIC_DISPATCH(qk_tile_f16k_f32)(q, q_stride, nq, k, k_stride, nk, d, s, s_stride);
}
void pv_tile_f16v_f32(const float* p, std::size_t p_stride, int32_t nq, int32_t nk,
                      const uint16_t* v, std::size_t v_stride, int32_t dv, float* acc,
                      std::size_t a_stride) {
  HWY_DYNAMIC_DISPATCH(pv_tile_f16v_f32)(p, p_stride, nq, nk, v, v_stride, dv, acc, a_stride);
}
void qk_tile_kt_f32(const float* q, std::size_t q_stride, int32_t nq, const float* kt, int32_t nk,
                    int32_t d, float* s, std::size_t s_stride) {
  HWY_DYNAMIC_DISPATCH(qk_tile_kt_f32)(q, q_stride, nq, kt, nk, d, s, s_stride);
}
void qk_tile_kt_f16_f32(const float* q, std::size_t q_stride, int32_t nq, const uint16_t* kt,
                        int32_t nk, int32_t d, float* s, std::size_t s_stride) {
  HWY_DYNAMIC_DISPATCH(qk_tile_kt_f16_f32)(q, q_stride, nq, kt, nk, d, s, s_stride);
}
void f32_to_f16(const float* f, int32_t n, uint16_t* h) {
  HWY_DYNAMIC_DISPATCH(f32_to_f16)(f, n, h);
}

}  // namespace hwy
}  // namespace attn
#endif  // HWY_ONCE
