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
//
// Not a normal header: an includer opens its backend's per-target namespace
// (and for Highway its HWY_BEFORE_NAMESPACE region), then includes this file
// inside it, once per target. It includes nothing itself: the includer has
// already included <cstddef>, <cstdint>, kernels/exp_poly.h and
// kernels/generic/register_block.h.
//
// Kernel contracts are those of kernels_f32.h; the reference math is in
// kernels/ref/kernels_f32_ref.cpp.

// NOLINTBEGIN(build/include_what_you_use)

namespace generic {

inline std::size_t Sz(int32_t i) { return static_cast<std::size_t>(i); }

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

template <class O>
float Dot(const float* a, const float* b, int32_t n) {
  using V = typename O::V;
  const std::size_t N = O::Lanes();
  const std::size_t len = Sz(n);
  V s0 = O::Zero(), s1 = O::Zero(), s2 = O::Zero(), s3 = O::Zero();
  std::size_t i = 0;
  for (; i + 4 * N <= len; i += 4 * N) {
    s0 = O::MulAdd(O::LoadU(a + i), O::LoadU(b + i), s0);
    s1 = O::MulAdd(O::LoadU(a + i + N), O::LoadU(b + i + N), s1);
    s2 = O::MulAdd(O::LoadU(a + i + 2 * N), O::LoadU(b + i + 2 * N), s2);
    s3 = O::MulAdd(O::LoadU(a + i + 3 * N), O::LoadU(b + i + 3 * N), s3);
  }
  for (; i + N <= len; i += N) s0 = O::MulAdd(O::LoadU(a + i), O::LoadU(b + i), s0);
  if (i < len) s1 = O::MulAdd(O::LoadN(a + i, len - i), O::LoadN(b + i, len - i), s1);
  return O::ReduceSum(O::Add(O::Add(s0, s1), O::Add(s2, s3)));
}

// RQ queries x KB keys (KB a multiple of 4), vector partial sums along d,
// reduced once per score, four scores at a time.
// Registers acc<r><c> (r < RQ <= 4, c < KB <= 8), kv<c>, see ATTN_EACH4.
template <class O, int RQ, int KB>
void QkBlock(const float* q, std::size_t q_stride, const float* k, std::size_t k_stride,
             int32_t nk, std::size_t d, float* s, std::size_t s_stride) {
  static_assert(RQ <= 4 && KB <= 8 && KB % 4 == 0, "named registers: 4 rows x 8 keys");
  using V = typename O::V;
  const std::size_t N = O::Lanes();
  int32_t j = 0;
  for (; j + KB <= nk; j += KB) {
    const float* k0 = k + Sz(j) * k_stride;
#define ATTN_QK_ZERO(r, c) [[maybe_unused]] V acc##r##c = O::Zero();
    ATTN_EACH4(ATTN_EACH8, ATTN_QK_ZERO)
    // One step along d: KB key vectors, then per query row one load and KB FMAs.
#define ATTN_QK_KEY(LD, c) \
  [[maybe_unused]] const V kv##c = (c) < KB ? LD(k0 + Sz(c) * k_stride + x) : O::Zero();
#define ATTN_QK_FMA(r, c) \
  if constexpr ((c) < KB) acc##r##c = O::MulAdd(qv, kv##c, acc##r##c);
#define ATTN_QK_ROW(LD, r)                                                                       \
  if constexpr ((r) < RQ) {                                                                        \
    const V qv = LD(q + Sz(r) * q_stride + x);                                                    \
    ATTN_EACH8(ATTN_QK_FMA, r)                                                                    \
  }
    std::size_t x = 0;
    for (; x + N <= d; x += N) {
      ATTN_EACH8(ATTN_QK_KEY, O::LoadU)
      ATTN_EACH4(ATTN_QK_ROW, O::LoadU)
    }
    if (x < d) {
      const std::size_t t = d - x;
      const auto load_t = [t](const float* p) { return O::LoadN(p, t); };
      ATTN_EACH8(ATTN_QK_KEY, load_t)
      ATTN_EACH4(ATTN_QK_ROW, load_t)
    }
#define ATTN_QK_SUM(_, r)                                                                        \
  if constexpr ((r) < RQ) {                                                                        \
    O::ReduceSum4(acc##r##0, acc##r##1, acc##r##2, acc##r##3, s + Sz(r) * s_stride + Sz(j));      \
    if constexpr (KB > 4) {                                                                       \
      O::ReduceSum4(acc##r##4, acc##r##5, acc##r##6, acc##r##7,                                   \
                    s + Sz(r) * s_stride + Sz(j + 4));                                            \
    }                                                                                             \
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
template <class O>
void QkRow(const float* q, const float* k, std::size_t k_stride, int32_t nk, std::size_t d,
           float* s) {
  using V = typename O::V;
  const std::size_t N = O::Lanes();
  alignas(64) float ring[16 * O::kMaxLanes];
  const bool four = d == 4 * N;
  const V q0 = four ? O::LoadU(q) : O::Zero();
  const V q1 = four ? O::LoadU(q + N) : O::Zero();
  const V q2 = four ? O::LoadU(q + 2 * N) : O::Zero();
  const V q3 = four ? O::LoadU(q + 3 * N) : O::Zero();
  const auto dot = [&](const float* kr) {
    if (four) {
      const V a = O::MulAdd(q1, O::LoadU(kr + N), O::Mul(q0, O::LoadU(kr)));
      const V b = O::MulAdd(q3, O::LoadU(kr + 3 * N), O::Mul(q2, O::LoadU(kr + 2 * N)));
      return O::Add(a, b);
    }
    V a = O::Zero(), b = O::Zero();
    std::size_t x = 0;
    for (; x + 2 * N <= d; x += 2 * N) {
      a = O::MulAdd(O::LoadU(q + x), O::LoadU(kr + x), a);
      b = O::MulAdd(O::LoadU(q + x + N), O::LoadU(kr + x + N), b);
    }
    if (x + N <= d) {
      a = O::MulAdd(O::LoadU(q + x), O::LoadU(kr + x), a);
      x += N;
    }
    if (x < d) b = O::MulAdd(O::LoadN(q + x, d - x), O::LoadN(kr + x, d - x), b);
    return O::Add(a, b);
  };
  const int32_t n16 = nk / 16 * 16;
  const float* kr = k;
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

template <class O>
void QkTile(const float* q, std::size_t q_stride, int32_t nq, const float* k,
            std::size_t k_stride, int32_t nk, int32_t d, float* s, std::size_t s_stride) {
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
      QkBlock<O, 1, 8>(q + Sz(i) * q_stride, q_stride, k, k_stride, nk, Sz(d),
                       s + Sz(i) * s_stride, s_stride);
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

// acc rows i < RQ, RC full vectors of columns; p[i * pi + j * pj] is the
// weight of key j for query i (pi = row stride, pj = 1 for row-major P; pi = 1,
// pj = tq for the transposed tiles).
// Registers a<r><c> (r < RQ <= 4, c < RC <= 4), b<c>, vv<c>, see ATTN_EACH4.
template <class O, int RQ, int RC>
void PvBlock(const float* p, std::size_t pi, std::size_t pj, int32_t nk, const float* v,
             std::size_t v_stride, float* acc, std::size_t a_stride) {
  static_assert(RQ <= 4, "named registers: 4 rows");
  static_assert(RC <= 4, "named registers: 4 column vectors");
  using V = typename O::V;
  const std::size_t N = O::Lanes();
#define ATTN_PV_LOAD(r, c)                                                                       \
  [[maybe_unused]] V a##r##c =                                                                    \
      (r) < RQ && (c) < RC ? O::LoadU(acc + Sz(r) * a_stride + Sz(c) * N) : O::Zero();
  ATTN_EACH4(ATTN_EACH8, ATTN_PV_LOAD)
  int32_t j = 0;
  if (RQ == 1) {
    // One query (decode): a second set of accumulators for odd keys, so that
    // 2 RC chains hide the FMA latency.
#define ATTN_PV_BZERO(_, c) [[maybe_unused]] V b##c = O::Zero();
    ATTN_EACH4(ATTN_PV_BZERO, _)
#define ATTN_PV_PAIR(_, c)                                                                       \
  if constexpr ((c) < RC) {                                                                        \
    a0##c = O::MulAdd(p0, O::LoadU(vr + Sz(c) * N), a0##c);                                       \
    b##c = O::MulAdd(p1, O::LoadU(vr + v_stride + Sz(c) * N), b##c);                              \
  }
    for (; j + 2 <= nk; j += 2) {
      const float* vr = v + Sz(j) * v_stride;
      const V p0 = O::Set(p[Sz(j) * pj]);
      const V p1 = O::Set(p[Sz(j + 1) * pj]);
      ATTN_EACH4(ATTN_PV_PAIR, _)
    }
#define ATTN_PV_FOLD(_, c) if constexpr ((c) < RC) a0##c = O::Add(a0##c, b##c);
    ATTN_EACH4(ATTN_PV_FOLD, _)
  }
  // vv<c> feed RQ FMAs each: LoadReg keeps them in registers (xsimd on
  // AVX-512 otherwise re-read V in every FMA, 40% of the FMA peak).
#define ATTN_PV_V(_, c) \
  [[maybe_unused]] const V vv##c = (c) < RC ? O::LoadReg(vr + Sz(c) * N) : O::Zero();
#define ATTN_PV_FMA(r, c) if constexpr ((c) < RC) a##r##c = O::MulAdd(pr, vv##c, a##r##c);
#define ATTN_PV_ROW(_, r)                                                                        \
  if constexpr ((r) < RQ) {                                                                        \
    const V pr = O::Set(p[Sz(r) * pi + Sz(j) * pj]);                                              \
    ATTN_EACH8(ATTN_PV_FMA, r)                                                                    \
  }
  for (; j < nk; ++j) {
    const float* vr = v + Sz(j) * v_stride;
    ATTN_EACH8(ATTN_PV_V, _)
    ATTN_EACH4(ATTN_PV_ROW, _)
  }
#define ATTN_PV_STORE(r, c) \
  if constexpr ((r) < RQ && (c) < RC) O::StoreU(a##r##c, acc + Sz(r) * a_stride + Sz(c) * N);
  ATTN_EACH4(ATTN_EACH8, ATTN_PV_STORE)
#undef ATTN_PV_LOAD
#undef ATTN_PV_BZERO
#undef ATTN_PV_PAIR
#undef ATTN_PV_FOLD
#undef ATTN_PV_V
#undef ATTN_PV_FMA
#undef ATTN_PV_ROW
#undef ATTN_PV_STORE
}

// The last partial vector of columns (t < Lanes()).
template <class O, int RQ>
void PvTail(const float* p, std::size_t pi, std::size_t pj, int32_t nk, const float* v,
            std::size_t v_stride, std::size_t t, float* acc, std::size_t a_stride) {
  static_assert(RQ <= 4, "named registers a<r>: 4 rows");
  using V = typename O::V;
#define ATTN_PVT_LOAD(_, r) \
  [[maybe_unused]] V a##r = (r) < RQ ? O::LoadN(acc + Sz(r) * a_stride, t) : O::Zero();
#define ATTN_PVT_FMA(_, r) \
  if constexpr ((r) < RQ) a##r = O::MulAdd(O::Set(p[Sz(r) * pi + Sz(j) * pj]), vv, a##r);
#define ATTN_PVT_STORE(_, r) if constexpr ((r) < RQ) O::StoreN(a##r, acc + Sz(r) * a_stride, t);
  ATTN_EACH4(ATTN_PVT_LOAD, _)
  for (int32_t j = 0; j < nk; ++j) {
    const V vv = O::LoadN(v + Sz(j) * v_stride, t);
    ATTN_EACH4(ATTN_PVT_FMA, _)
  }
  ATTN_EACH4(ATTN_PVT_STORE, _)
#undef ATTN_PVT_LOAD
#undef ATTN_PVT_FMA
#undef ATTN_PVT_STORE
}

template <class O, int RQ>
void PvRows(const float* p, std::size_t pi, std::size_t pj, int32_t nk, const float* v,
            std::size_t v_stride, int32_t dv, float* acc, std::size_t a_stride) {
  const std::size_t N = O::Lanes();
  const std::size_t cols = Sz(dv);
  std::size_t c = 0;
  for (; c + 4 * N <= cols; c += 4 * N) {
    PvBlock<O, RQ, 4>(p, pi, pj, nk, v + c, v_stride, acc + c, a_stride);
  }
  for (; c + N <= cols; c += N) PvBlock<O, RQ, 1>(p, pi, pj, nk, v + c, v_stride, acc + c, a_stride);
  if (c < cols) PvTail<O, RQ>(p, pi, pj, nk, v + c, v_stride, cols - c, acc + c, a_stride);
}

template <class O>
void PvTileStrided(const float* p, std::size_t pi, std::size_t pj, int32_t nq, int32_t nk,
                   const float* v, std::size_t v_stride, int32_t dv, float* acc,
                   std::size_t a_stride) {
  int32_t i = 0;
  for (; i + 4 <= nq; i += 4) {
    PvRows<O, 4>(p + Sz(i) * pi, pi, pj, nk, v, v_stride, dv, acc + Sz(i) * a_stride, a_stride);
  }
  for (; i < nq; ++i) {
    PvRows<O, 1>(p + Sz(i) * pi, pi, pj, nk, v, v_stride, dv, acc + Sz(i) * a_stride, a_stride);
  }
}

template <class O>
void PvTile(const float* p, std::size_t p_stride, int32_t nq, int32_t nk, const float* v,
            std::size_t v_stride, int32_t dv, float* acc, std::size_t a_stride) {
  PvTileStrided<O>(p, p_stride, 1, nq, nk, v, v_stride, dv, acc, a_stride);
}

template <class O>
void PvTileT(const float* pt, int32_t tq, int32_t nq, int32_t nk, const float* v,
             std::size_t v_stride, int32_t dv, float* acc, std::size_t a_stride) {
  PvTileStrided<O>(pt, 1, Sz(tq), nq, nk, v, v_stride, dv, acc, a_stride);
}

// The scaled query tile, transposed: 4 rows at a time, a 4 x Lanes() block
// transposed in registers per step.
template <class O>
void TransposeScale(const float* q, std::size_t q_stride, int32_t nq, int32_t d, float scale,
                    float* qt, int32_t tq) {
  using V = typename O::V;
  const std::size_t N = O::Lanes();
  const std::size_t t = Sz(tq), dk = Sz(d);
  const V sc = O::Set(scale);
  for (int32_t i = 0; i < tq; i += 4) {
    const float* rows[4];
    for (int32_t k = 0; k < 4; ++k) rows[k] = i + k < nq ? q + Sz(i + k) * q_stride : nullptr;
    std::size_t x = 0;
    for (; x + N <= dk; x += N) {
      const V v0 = rows[0] != nullptr ? O::Mul(O::LoadU(rows[0] + x), sc) : O::Zero();
      const V v1 = rows[1] != nullptr ? O::Mul(O::LoadU(rows[1] + x), sc) : O::Zero();
      const V v2 = rows[2] != nullptr ? O::Mul(O::LoadU(rows[2] + x), sc) : O::Zero();
      const V v3 = rows[3] != nullptr ? O::Mul(O::LoadU(rows[3] + x), sc) : O::Zero();
      O::Transpose4Store(v0, v1, v2, v3, qt + x * t + Sz(i), t);
    }
    for (; x < dk; ++x) {
      for (int k = 0; k < 4; ++k) qt[x * t + Sz(i + k)] = rows[k] != nullptr ? scale * rows[k][x] : 0.0f;
    }
  }
}

// Transposed scores, G query vectors x KB keys per register block: each step
// loads G vectors of qt and broadcasts one k element per key (a memory operand
// of the FMA on x86), so no horizontal reduction is ever needed. kPart: one
// partial vector of n < Lanes() queries (SVE, when the lanes do not divide tq).
// Registers acc<j>_<g> (j < KB <= 16, g < G <= 4), qv<g>, see ATTN_EACH4.
template <class O, int G, int KB, bool kPart = false>
void QkBlockT(const float* qt, std::size_t tq, std::size_t d, const float* k,
              std::size_t k_stride, float* st, std::size_t n = 0) {
  static_assert(G <= 4 && KB <= 16 && (!kPart || G == 1), "named registers: 16 keys x 4 vectors");
  using V = typename O::V;
  const std::size_t N = O::Lanes();
#define ATTN_QT_ZERO(jj, g) [[maybe_unused]] V acc##jj##_##g = O::Zero();
  ATTN_EACH16(ATTN_EACH4, ATTN_QT_ZERO)
#define ATTN_QT_Q(_, g)                                                                          \
  [[maybe_unused]] const V qv##g =                                                                \
      (g) < G ? (kPart ? O::LoadN(qt + x * tq, n) : O::LoadU(qt + x * tq + Sz(g) * N)) : O::Zero();
#define ATTN_QT_FMA(jj, g) \
  if constexpr ((g) < G) acc##jj##_##g = O::MulAdd(kb, qv##g, acc##jj##_##g);
#define ATTN_QT_KEY(_, jj)                                                                       \
  if constexpr ((jj) < KB) {                                                                       \
    const V kb = O::Set(k[Sz(jj) * k_stride + x]);                                                \
    ATTN_EACH4(ATTN_QT_FMA, jj)                                                                   \
  }
  for (std::size_t x = 0; x < d; ++x) {
    ATTN_EACH4(ATTN_QT_Q, _)
    ATTN_EACH16(ATTN_QT_KEY, _)
  }
#define ATTN_QT_STORE(jj, g)                                                                     \
  if constexpr ((jj) < KB && (g) < G) {                                                            \
    if constexpr (kPart) {                                                                        \
      O::StoreN(acc##jj##_##g, st + Sz(jj) * tq, n);                                              \
    } else {                                                                                      \
      O::StoreU(acc##jj##_##g, st + Sz(jj) * tq + Sz(g) * N);                                     \
    }                                                                                             \
  }
  ATTN_EACH16(ATTN_EACH4, ATTN_QT_STORE)
#undef ATTN_QT_ZERO
#undef ATTN_QT_Q
#undef ATTN_QT_FMA
#undef ATTN_QT_KEY
#undef ATTN_QT_STORE
}

template <class O, int G, int KB, bool kPart = false>
void QkRowsT(const float* qt, std::size_t tq, std::size_t d, const float* k,
             std::size_t k_stride, int32_t nk, float* st, std::size_t n = 0) {
  int32_t j = 0;
  for (; j + KB <= nk; j += KB) {
    QkBlockT<O, G, KB, kPart>(qt, tq, d, k + Sz(j) * k_stride, k_stride, st + Sz(j) * tq, n);
  }
  for (; j + 4 <= nk; j += 4) {
    QkBlockT<O, G, 4, kPart>(qt, tq, d, k + Sz(j) * k_stride, k_stride, st + Sz(j) * tq, n);
  }
  for (; j < nk; ++j) {
    QkBlockT<O, G, 1, kPart>(qt, tq, d, k + Sz(j) * k_stride, k_stride, st + Sz(j) * tq, n);
  }
}

template <class O>
void QkTileT(const float* qt, int32_t tq, int32_t d, const float* k, std::size_t k_stride,
             int32_t nk, float* st) {
  const std::size_t N = O::Lanes();
  const std::size_t t = Sz(tq);
  const std::size_t groups = t / N;
  if (groups == 1) {
    QkRowsT<O, 1, 16>(qt, t, Sz(d), k, k_stride, nk, st);
  } else if (groups == 2) {
    QkRowsT<O, 2, 6>(qt, t, Sz(d), k, k_stride, nk, st);
  } else if (groups == 4) {
    QkRowsT<O, 4, 3>(qt, t, Sz(d), k, k_stride, nk, st);
  } else {
    for (std::size_t g = 0; g < groups; ++g) {
      QkRowsT<O, 1, 8>(qt + g * N, t, Sz(d), k, k_stride, nk, st + g * N);
    }
  }
  // SVE: lanes that do not divide tq (e.g. 12) or exceed it (32, 64) leave a
  // partial vector of queries.
  if (groups * N < t) {
    QkRowsT<O, 1, 8, true>(qt + groups * N, t, Sz(d), k, k_stride, nk, st + groups * N,
                           t - groups * N);
  }
}

// One vector of query columns [g, g + Lanes()) of SoftmaxT; kPart: only the
// first n < Lanes() of them (SVE, when the lanes do not divide tq).
template <class O, bool kPart>
void SoftmaxTGroup(float* st, std::size_t t, std::size_t g, int32_t nk, float* m, float* l,
                   float* alpha, std::size_t n) {
  using V = typename O::V;
  const float kNegInf = -__builtin_inff();
  const auto load = [&](const float* p) { return kPart ? O::LoadN(p, n) : O::LoadU(p); };
  const auto store = [&](V v, float* p) {
    if constexpr (kPart) {
      O::StoreN(v, p, n);
    } else {
      O::StoreU(v, p);
    }
  };
  {  // (SoftmaxT's former loop body, kept as it was)
    const V m_old = load(m + g);
    // Four chains: the max's latency, not the loads, bounded two.
    V b0 = O::Set(kNegInf), b1 = b0, b2 = b0, b3 = b0;
    int32_t j = 0;
    for (; j + 4 <= nk; j += 4) {
      b0 = O::MaxSkipNaN(load(st + Sz(j) * t + g), b0);
      b1 = O::MaxSkipNaN(load(st + Sz(j + 1) * t + g), b1);
      b2 = O::MaxSkipNaN(load(st + Sz(j + 2) * t + g), b2);
      b3 = O::MaxSkipNaN(load(st + Sz(j + 3) * t + g), b3);
    }
    for (; j < nk; ++j) b0 = O::MaxSkipNaN(load(st + Sz(j) * t + g), b0);
    const V m_new =
        O::MaxSkipNaN(O::MaxSkipNaN(O::MaxSkipNaN(b3, b2), O::MaxSkipNaN(b1, b0)), m_old);
    // A column with nothing visible yet subtracts 0: exp(-inf - 0) = 0.
    const V m_use = O::IfLess(m_new, O::Set(-3.0e38f), O::Zero(), m_new);
    V s0 = O::Zero(), s1 = O::Zero();
    j = 0;
    for (; j + 2 <= nk; j += 2) {
      float* r0 = st + Sz(j) * t + g;
      float* r1 = r0 + t;
      const V e0 = ExpPoly<O>(O::Sub(load(r0), m_use));
      const V e1 = ExpPoly<O>(O::Sub(load(r1), m_use));
      store(e0, r0);
      store(e1, r1);
      s0 = O::Add(s0, e0);
      s1 = O::Add(s1, e1);
    }
    if (j < nk) {
      float* r0 = st + Sz(j) * t + g;
      const V e0 = ExpPoly<O>(O::Sub(load(r0), m_use));
      store(e0, r0);
      s0 = O::Add(s0, e0);
    }
    // alpha: 1 for a column with nothing visible (acc, l unchanged), else exp(m_old - m_new).
    const V a = O::IfLess(m_new, O::Set(-3.0e38f), O::Set(1.0f), ExpPoly<O>(O::Sub(m_old, m_use)));
    store(O::MulAdd(load(l + g), a, O::Add(s0, s1)), l + g);
    store(m_new, m + g);
    store(a, alpha + g);
  }
}

// Online-softmax step on transposed scores (see kernels_f32.h), every query
// vector at once: the block max, exp and sum run down the columns.
template <class O>
void SoftmaxT(float* st, int32_t tq, int32_t nk, float* m, float* l, int32_t nq, float* acc,
              std::size_t a_stride, int32_t dv) {
  const std::size_t N = O::Lanes();
  const std::size_t t = Sz(tq);
  float alpha[64];  // tq <= 64
  std::size_t g = 0;
  for (; g + N <= t; g += N) SoftmaxTGroup<O, false>(st, t, g, nk, m, l, alpha, N);
  if (g < t) SoftmaxTGroup<O, true>(st, t, g, nk, m, l, alpha, t - g);
  for (int32_t i = 0; i < nq; ++i) {
    // alpha = 1 when the max did not grow (or nothing is visible yet).
    // alpha[0, ceil(tq / N) * N) was stored above and nq <= tq: the analyzer
    // cannot see that contract.
    // NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult)
    if (alpha[i] != 1.0f) Scale<O>(acc + Sz(i) * a_stride, dv, alpha[i]);
  }
}

template <class O>
void Axpy(float* y, const float* x, int32_t n, float a) {
  using V = typename O::V;
  const std::size_t N = O::Lanes();
  const std::size_t len = Sz(n);
  const V av = O::Set(a);
  std::size_t i = 0;
  for (; i + N <= len; i += N) O::StoreU(O::MulAdd(av, O::LoadU(x + i), O::LoadU(y + i)), y + i);
  if (i < len) {
    const std::size_t t = len - i;
    O::StoreN(O::MulAdd(av, O::LoadN(x + i, t), O::LoadN(y + i, t)), y + i, t);
  }
}

template <class O>
void AddVec(float* y, const float* a, const float* b, int32_t n) {
  const std::size_t N = O::Lanes();
  const std::size_t len = Sz(n);
  std::size_t i = 0;
  for (; i + N <= len; i += N) O::StoreU(O::Add(O::LoadU(a + i), O::LoadU(b + i)), y + i);
  if (i < len) {
    const std::size_t t = len - i;
    O::StoreN(O::Add(O::LoadN(a + i, t), O::LoadN(b + i, t)), y + i, t);
  }
}

template <class O>
void Tanh(float* x, int32_t n) {
  const std::size_t N = O::Lanes();
  const std::size_t len = Sz(n);
  std::size_t i = 0;
  for (; i + N <= len; i += N) O::StoreU(TanhPoly<O>(O::LoadU(x + i)), x + i);
  if (i < len) O::StoreN(TanhPoly<O>(O::LoadN(x + i, len - i)), x + i, len - i);
}

}  // namespace generic

// NOLINTEND(build/include_what_you_use)
