// Float kernels written once for every SIMD backend (hwy, xsimd), as templates
// over a small policy `O` that wraps the library's vector type:
//
//   using V;                      a vector of O::Lanes() floats
//   Lanes()                       lanes per vector (>= 1; may be a runtime value)
//   Zero() Set(f)                 splat
//   LoadU(p) StoreU(v, p)         unaligned full-vector access
//   LoadN(p, n) StoreN(v, p, n)   first n < Lanes() lanes (rest read as 0 / untouched)
//   LoadReg(p)                    LoadU kept in a register (not folded into each use)
//   Add Sub Mul Div MulAdd(a, b, c) = a * b + c   Abs   CopySign(mag, sign)
//   MaxSkipNaN(x, m)              x > m ? x : m   (a NaN x leaves m)
//   ClampBelow(x, lo)             x < lo ? lo : x (a NaN x passes through)
//   IfLess(a, b, yes, no)         a < b ? yes : no, per lane
//   Pow2FromMagic(t)              2^n from t = x * log2e + 1.5 * 2^23 (exp_poly.h)
//   kExpTable32                   true: the policy has the AVX-512 exp ops (exp_poly.h)
//     Pow2Table32(t)              per lane, bits kExp2Table32Bits[bits(t) & 31] + (bits(t) << 18)
//                                 (vpermt2ps, vpslld, vpaddd): 2^(k / 32)
//     MulAddOrZeroBelow(a, b, c, x, lo)   x < lo ? 0 : a * b + c (a NaN x computes)
//   ReduceSum(v) ReduceMax(v)     horizontal, to a float
//   ReduceSum4(v0..v3, out)       out[i] = ReduceSum(vi), i < 4 (may be fused)
//   ReduceSum16(v0..v15, out)     out[i] = ReduceSum(vi), i < 16 (may be fused)
//   kMaxLanes                     compile-time upper bound of Lanes()
//   Transpose4Store(r0..r3, p, s) p[x * s + k] = rk[x] for every lane x, k < 4
//   kVectorRegs (optional)        architectural vector registers (16 on AVX2 and
//                                 SSE4); 32 when the policy does not say
//
// Not a normal header: an includer opens its backend's per-target namespace
// (and for Highway its HWY_BEFORE_NAMESPACE region), then includes this file
// inside it, once per target. It includes only its continuation,
// kernels_f32_tile-inl.h (P.V and the transposed tiles); the includer has
// already included <cstddef>, <cstdint>, kernels/exp_poly.h,
// kernels/generic/register_block.h and kernels/f32/f16.h.
//
// Kernel contracts are those of kernels_f32.h; the reference math is in
// kernels/ref/kernels_f32_ref.cpp.

// NOLINTBEGIN(build/include_what_you_use)

namespace generic {

inline std::size_t Sz(int32_t i) { return static_cast<std::size_t>(i); }

// O::kVectorRegs, or 32 for a policy without it (register blocks sized for
// AVX-512, NEON and SVE).
template <class...>
using VoidT = void;
template <class O, class = void>
struct VectorRegs {
  static constexpr int kValue = 32;
};
template <class O>
struct VectorRegs<O, VoidT<decltype(O::kVectorRegs)>> {
  static constexpr int kValue = O::kVectorRegs;
};

// Elements of a K, V or weight operand b (float32 or binary16 bits) as
// floats, for the kernels templated on b's element type (gemm_nt_f16w_f32,
// qk_tile_f16k_f32, pv_tile_f16v_f32). One element of b as a float: float32 as is, binary16 widened (exact).
inline float WidenB(float v) { return v; }
inline float WidenB(uint16_t h) { return ::attn::f16::to_f32(h); }

// The first n <= Lanes() elements of b at p as a float vector, the rest 0.
template <class O>
typename O::V LoadBN(const float* p, std::size_t n) {
  return O::LoadN(p, n);
}
template <class O>
typename O::V LoadBN(const uint16_t* p, std::size_t n) {
  alignas(64) float buf[O::kMaxLanes] = {};
  for (std::size_t i = 0; i < n; ++i) buf[i] = WidenB(p[i]);
  return O::LoadU(buf);
}

// Lanes() elements of b at p as a float vector: float32 loaded (kReg: kept
// in a register, LoadReg), binary16 widened by the policy's hardware
// conversion (f16_f32-inl.h's kF16: F16C, NEON FCVTL, SVE FCVT) or, on a
// target without one, element by element.
template <class O, bool kReg = false>
typename O::V LoadB(const float* p) {
  return kReg ? O::LoadReg(p) : O::LoadU(p);
}
template <class O, bool kReg = false>
typename O::V LoadB(const uint16_t* p) {
  if constexpr (O::kF16) {
    return O::LoadF16(p);
  } else {
    return LoadBN<O>(p, O::Lanes());
  }
}

// Register blocks are named variables (register_block.h: SVE vectors cannot
// be array elements).

// exp(x) for x <= 0 on AVX-512: 2^(k/32) (1 + r (q1 + q2 r)), k = round(32 x
// log2e), u = k / 32, r = x - u ln2, 2^(k/32) from the table and t's bits in
// the integer unit, 0 below ln(2^-126); see exp_poly.h for the steps and the
// error bound.
template <class O>
typename O::V ExpPolyTable32(typename O::V x) {
  using V = typename O::V;
  namespace ep = ::attn::exp_poly;
  const V t = O::MulAdd(x, O::Set(ep::kLog2e), O::Set(ep::kMagic32));
  const V u = O::Sub(t, O::Set(ep::kMagic32));
  V r = O::MulAdd(u, O::Set(-ep::kLn2Hi), x);
  r = O::MulAdd(u, O::Set(-ep::kLn2Lo), r);
  const V s = O::Pow2Table32(t);
  const V q = O::MulAdd(O::Set(ep::kQ2), r, O::Set(ep::kQ1));
  // s + s (r q): r q first, so that no product of s rounds as a subnormal.
  return O::MulAddOrZeroBelow(s, O::Mul(r, q), s, x, ep::kLoTable32);
}

// exp(x) for x in [-88, 0], see exp_poly.h for the error bound.
template <class O>
typename O::V ExpPoly(typename O::V x) {
  using V = typename O::V;
  namespace ep = ::attn::exp_poly;
  if constexpr (O::kExpTable32) return ExpPolyTable32<O>(x);
  x = O::ClampBelow(x, ep::kLo);
  const V t = O::MulAdd(x, O::Set(ep::kLog2e), O::Set(ep::kMagic));
  const V n = O::Sub(t, O::Set(ep::kMagic));
  V r = O::MulAdd(n, O::Set(-ep::kLn2Hi), x);
  r = O::MulAdd(n, O::Set(-ep::kLn2Lo), r);
  V p = O::MulAdd(O::Set(ep::kP2), r, O::Set(ep::kP3));
  p = O::MulAdd(p, r, O::Set(ep::kP4));
  p = O::MulAdd(p, r, O::Set(ep::kP5));
  const V e = O::Add(O::MulAdd(p, O::Mul(r, r), r), O::Set(1.0f));
  return O::Mul(e, O::Pow2FromMagic(t));
}

// tanh: odd polynomial (Cephes tanhf) for |x| < 0.625, else
// (1 - e) / (1 + e) with e = exp(-2|x|); sign restored. Error <= 3 ulp.
template <class O>
typename O::V TanhPoly(typename O::V x) {
  using V = typename O::V;
  const V ax = O::Abs(x);
  const V z = O::Mul(x, x);
  V p = O::MulAdd(O::Set(-5.70498872745e-3f), z, O::Set(2.06390887954e-2f));
  p = O::MulAdd(p, z, O::Set(-5.37397155531e-2f));
  p = O::MulAdd(p, z, O::Set(1.33314422036e-1f));
  p = O::MulAdd(p, z, O::Set(-3.33332819422e-1f));
  const V small = O::MulAdd(O::Mul(p, z), x, x);
  const V e = ExpPoly<O>(O::Mul(ax, O::Set(-2.0f)));
  const V one = O::Set(1.0f);
  const V large = O::CopySign(O::Div(O::Sub(one, e), O::Add(one, e)), x);
  return O::IfLess(ax, O::Set(0.625f), small, large);
}

// sum_i a[i] * b[i] (TB = uint16_t: b's binary16 elements widened).
template <class O, class TB>
float Dot(const float* a, const TB* b, int32_t n) {
  using V = typename O::V;
  const std::size_t N = O::Lanes();
  const std::size_t len = Sz(n);
  V s0 = O::Zero(), s1 = O::Zero(), s2 = O::Zero(), s3 = O::Zero();
  std::size_t i = 0;
  for (; i + 4 * N <= len; i += 4 * N) {
    s0 = O::MulAdd(O::LoadU(a + i), LoadB<O>(b + i), s0);
    s1 = O::MulAdd(O::LoadU(a + i + N), LoadB<O>(b + i + N), s1);
    s2 = O::MulAdd(O::LoadU(a + i + 2 * N), LoadB<O>(b + i + 2 * N), s2);
    s3 = O::MulAdd(O::LoadU(a + i + 3 * N), LoadB<O>(b + i + 3 * N), s3);
  }
  for (; i + N <= len; i += N) s0 = O::MulAdd(O::LoadU(a + i), LoadB<O>(b + i), s0);
  if (i < len) s1 = O::MulAdd(O::LoadN(a + i, len - i), LoadBN<O>(b + i, len - i), s1);
  return O::ReduceSum(O::Add(O::Add(s0, s1), O::Add(s2, s3)));
}

// RQ queries x KB keys (KB a multiple of 4), vector partial sums along d,
// reduced once per score, four scores at a time (TK = uint16_t: binary16
// keys, widened as loaded).
// Registers acc<r><c> (r < RQ <= 4, c < KB <= 8), kv<c>, see ATTN_EACH4.
template <class O, int RQ, int KB, class TK>
void QkBlock(const float* q, std::size_t q_stride, const TK* k, std::size_t k_stride, int32_t nk,
             std::size_t d, float* s, std::size_t s_stride) {
  static_assert(RQ <= 4 && KB <= 8 && KB % 4 == 0, "named registers: 4 rows x 8 keys");
  using V = typename O::V;
  const std::size_t N = O::Lanes();
  int32_t j = 0;
  for (; j + KB <= nk; j += KB) {
    const TK* k0 = k + Sz(j) * k_stride;
#define ATTN_QK_ZERO(r, c) [[maybe_unused]] V acc##r##c = O::Zero();
    ATTN_EACH4(ATTN_EACH8, ATTN_QK_ZERO)
    // One step along d: KB key vectors, then per query row one load and KB FMAs.
#define ATTN_QK_KEY(LD, c) \
  [[maybe_unused]] const V kv##c = (c) < KB ? LD(k0 + Sz(c) * k_stride + x) : O::Zero();
#define ATTN_QK_FMA(r, c) \
  if constexpr ((c) < KB) acc##r##c = O::MulAdd(qv, kv##c, acc##r##c);
#define ATTN_QK_ROW(LD, r)                     \
  if constexpr ((r) < RQ) {                    \
    const V qv = LD(q + Sz(r) * q_stride + x); \
    ATTN_EACH8(ATTN_QK_FMA, r)                 \
  }
    std::size_t x = 0;
    for (; x + N <= d; x += N) {
      ATTN_EACH8(ATTN_QK_KEY, LoadB<O>)
      ATTN_EACH4(ATTN_QK_ROW, O::LoadU)
    }
    if (x < d) {
      const std::size_t t = d - x;
      const auto load_t = [t](const auto* p) { return LoadBN<O>(p, t); };
      const auto load_qt = [t](const float* p) { return O::LoadN(p, t); };
      ATTN_EACH8(ATTN_QK_KEY, load_t)
      ATTN_EACH4(ATTN_QK_ROW, load_qt)
    }
#define ATTN_QK_SUM(_, r)                                                                          \
  if constexpr ((r) < RQ) {                                                                        \
    O::ReduceSum4(acc##r##0, acc##r##1, acc##r##2, acc##r##3, s + Sz(r) * s_stride + Sz(j));       \
    if constexpr (KB > 4) {                                                                        \
      O::ReduceSum4(acc##r##4, acc##r##5, acc##r##6, acc##r##7, s + Sz(r) * s_stride + Sz(j + 4)); \
    }                                                                                              \
  }
    ATTN_EACH4(ATTN_QK_SUM, _)
#undef ATTN_QK_ZERO
#undef ATTN_QK_KEY
#undef ATTN_QK_FMA
#undef ATTN_QK_ROW
#undef ATTN_QK_SUM
  }
  if constexpr (KB > 4) {
    QkBlock<O, RQ, 4>(q, q_stride, k + Sz(j) * k_stride, k_stride, nk - j, d, s + Sz(j), s_stride);
    return;
  }
  for (; j < nk; ++j) {
    for (int r = 0; r < RQ; ++r) {
      s[Sz(r) * s_stride + Sz(j)] =
          Dot<O>(q + Sz(r) * q_stride, k + Sz(j) * k_stride, static_cast<int32_t>(d));
    }
  }
}

// One query row against nk keys (decode's score row): s[j] = q . k_j.
// A loop over single keys: each key's row is read whole (d = 4 Lanes(), e.g.
// 64 on AVX-512: q in four registers, two partial sums), so every load
// instruction walks K one row per iteration, a stride the hardware prefetcher
// follows (the register blocks of QkBlock, one instruction per key of a block,
// stream K from L2 about 1.5x slower). Each key's vector of partial sums goes
// to a ring of 16 in scratch on the stack; every 16 keys O::ReduceSum16 turns
// the ring into 16 scores at once (a transposing reduction, shuffles and adds)
// instead of a horizontal sum per key; the last nk % 16 keys are summed one by
// one.
template <class O, class TK>
void QkRow(const float* q, const TK* k, std::size_t k_stride, int32_t nk, std::size_t d, float* s) {
  using V = typename O::V;
  const std::size_t N = O::Lanes();
  alignas(64) float ring[16 * O::kMaxLanes];
  const bool four = d == 4 * N;
  const V q0 = four ? O::LoadU(q) : O::Zero();
  const V q1 = four ? O::LoadU(q + N) : O::Zero();
  const V q2 = four ? O::LoadU(q + 2 * N) : O::Zero();
  const V q3 = four ? O::LoadU(q + 3 * N) : O::Zero();
  const auto dot = [&](const TK* kr) {
    if (four) {
      const V a = O::MulAdd(q1, LoadB<O>(kr + N), O::Mul(q0, LoadB<O>(kr)));
      const V b = O::MulAdd(q3, LoadB<O>(kr + 3 * N), O::Mul(q2, LoadB<O>(kr + 2 * N)));
      return O::Add(a, b);
    }
    V a = O::Zero(), b = O::Zero();
    std::size_t x = 0;
    for (; x + 2 * N <= d; x += 2 * N) {
      a = O::MulAdd(O::LoadU(q + x), LoadB<O>(kr + x), a);
      b = O::MulAdd(O::LoadU(q + x + N), LoadB<O>(kr + x + N), b);
    }
    if (x + N <= d) {
      a = O::MulAdd(O::LoadU(q + x), LoadB<O>(kr + x), a);
      x += N;
    }
    if (x < d) b = O::MulAdd(O::LoadN(q + x, d - x), LoadBN<O>(kr + x, d - x), b);
    return O::Add(a, b);
  };
  const int32_t n16 = nk / 16 * 16;
  const TK* kr = k;
  int32_t j = 0;
  for (; j < n16; ++j, kr += k_stride) {
    O::StoreU(dot(kr), ring + Sz(j & 15) * N);
    if ((j & 15) == 15) {
#define ATTN_QR_RING(_, c) const V r##c = O::LoadU(ring + Sz(c) * N);
      ATTN_EACH16(ATTN_QR_RING, _)
#undef ATTN_QR_RING
      O::ReduceSum16(r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11, r12, r13, r14, r15,
                     s + Sz(j - 15));
    }
  }
  for (; j < nk; ++j, kr += k_stride) s[j] = O::ReduceSum(dot(kr));
}

// TK = uint16_t: binary16 keys (qk_tile_f16k_f32), the same blocks and order.
template <class O, class TK>
void QkTile(const float* q, std::size_t q_stride, int32_t nq, const TK* k, std::size_t k_stride,
            int32_t nk, int32_t d, float* s, std::size_t s_stride) {
  int32_t i = 0;
  for (; i + 4 <= nq; i += 4) {
    QkBlock<O, 4, 4>(q + Sz(i) * q_stride, q_stride, k, k_stride, nk, Sz(d), s + Sz(i) * s_stride,
                     s_stride);
  }
  // Single rows: key by key when K streams from L2 (from 32 KB of keys on)
  // and a key fits 4 vectors, else the register block (faster while K sits in
  // L1, and for longer keys: Luong's d = 128 measured 10% slower key by key).
  const bool stream = Sz(d) <= 4 * O::Lanes() && Sz(nk) * Sz(d) >= 8192;
  for (; i < nq; ++i) {
    if (stream) {
      QkRow<O>(q + Sz(i) * q_stride, k, k_stride, nk, Sz(d), s + Sz(i) * s_stride);
    } else {
      QkBlock<O, 1, 8>(q + Sz(i) * q_stride, q_stride, k, k_stride, nk, Sz(d), s + Sz(i) * s_stride,
                       s_stride);
    }
  }
}

template <class O>
float Max(const float* x, int32_t n) {
  using V = typename O::V;
  const std::size_t N = O::Lanes();
  const std::size_t len = Sz(n);
  const float kNegInf = -__builtin_inff();
  // Four chains: the max's latency, not the loads, bounded two.
  V m0 = O::Set(kNegInf), m1 = m0, m2 = m0, m3 = m0;
  std::size_t i = 0;
  for (; i + 4 * N <= len; i += 4 * N) {
    m0 = O::MaxSkipNaN(O::LoadU(x + i), m0);
    m1 = O::MaxSkipNaN(O::LoadU(x + i + N), m1);
    m2 = O::MaxSkipNaN(O::LoadU(x + i + 2 * N), m2);
    m3 = O::MaxSkipNaN(O::LoadU(x + i + 3 * N), m3);
  }
  for (; i + N <= len; i += N) m0 = O::MaxSkipNaN(O::LoadU(x + i), m0);
  float m = O::ReduceMax(O::MaxSkipNaN(O::MaxSkipNaN(m3, m2), O::MaxSkipNaN(m1, m0)));
  for (; i < len; ++i) m = x[i] > m ? x[i] : m;
  if (m == kNegInf) {  // all -inf (masked) or all NaN: the reference's answer
    m = x[0];
    for (std::size_t t = 1; t < len; ++t) {
      if (x[t] > m || m != m) m = x[t];
    }
  }
  return m;
}

template <class O>
float ExpSubSum(float* x, int32_t n, float m) {
  using V = typename O::V;
  const std::size_t N = O::Lanes();
  const std::size_t len = Sz(n);
  const V mv = O::Set(m);
  V s0 = O::Zero(), s1 = O::Zero();
  std::size_t i = 0;
  for (; i + 2 * N <= len; i += 2 * N) {
    const V e0 = ExpPoly<O>(O::Sub(O::LoadU(x + i), mv));
    const V e1 = ExpPoly<O>(O::Sub(O::LoadU(x + i + N), mv));
    O::StoreU(e0, x + i);
    O::StoreU(e1, x + i + N);
    s0 = O::Add(s0, e0);
    s1 = O::Add(s1, e1);
  }
  for (; i + N <= len; i += N) {
    const V e0 = ExpPoly<O>(O::Sub(O::LoadU(x + i), mv));
    O::StoreU(e0, x + i);
    s0 = O::Add(s0, e0);
  }
  if (i < len) {
    // Lanes past the tail read 0: exp(0 - m) must not count, so mask the sum.
    const V e0 = ExpPoly<O>(O::Sub(O::LoadN(x + i, len - i), mv));
    O::StoreN(e0, x + i, len - i);
    s1 = O::Add(s1, O::LoadN(x + i, len - i));
  }
  return O::ReduceSum(O::Add(s0, s1));
}

template <class O>
void Scale(float* x, int32_t n, float a) {
  using V = typename O::V;
  const std::size_t N = O::Lanes();
  const std::size_t len = Sz(n);
  const V av = O::Set(a);
  std::size_t i = 0;
  for (; i + 2 * N <= len; i += 2 * N) {
    const V v0 = O::LoadU(x + i), v1 = O::LoadU(x + i + N);
    O::StoreU(O::Mul(av, v0), x + i);
    O::StoreU(O::Mul(av, v1), x + i + N);
  }
  for (; i + N <= len; i += N) O::StoreU(O::Mul(av, O::LoadU(x + i)), x + i);
  if (i < len) O::StoreN(O::Mul(av, O::LoadN(x + i, len - i)), x + i, len - i);
}

// Row softmax in place (kernels_f32.h): the max pass (which reads the row
// from wherever it is) leaves it in L1 for the exp-and-sum pass and the scale.
template <class O>
void Softmax(float* x, int32_t n) {
  if (n <= 0) return;
  const float m = Max<O>(x, n);
  if (m == -__builtin_inff()) {  // every entry masked: all 0
    for (int32_t i = 0; i < n; ++i) x[i] = 0.0f;
    return;
  }
  const float sum = ExpSubSum<O>(x, n, m);
  Scale<O>(x, n, 1.0f / sum);
}

#include "kernels/f32/generic/kernels_f32_tile-inl.h"
#include "kernels/f32/generic/qk_tile_kt-inl.h"

}  // namespace generic

// NOLINTEND(build/include_what_you_use)
