// The P.V, transposed-tile and vector-update float kernels of the generic
// backend (continued from kernels_f32-inl.h, which includes this fragment at
// its end, inside namespace generic: same policy `O`, same rules).

// acc rows i < RQ, RC full vectors of columns; p[i * pi + j * pj] is the
// weight of key j for query i (pi = row stride, pj = 1 for row-major P; pi = 1,
// pj = tq for the transposed tiles). TV = uint16_t: binary16 values, widened
// as loaded (pv_tile_f16v_f32).
// Registers a<r><c> (r < RQ <= 4, c < RC <= 4), b<c>, vv<c>, see ATTN_EACH4.
// Not inlined: inside the tile's loops GCC ran out of general registers and
// kept the key loop's counter on the stack and its strides in vector
// registers (three extra p0 ops per 16 FMAs on x86).
template <class O, int RQ, int RC, class TV>
__attribute__((noinline)) void PvBlock(const float* p, std::size_t pi, std::size_t pj, int32_t nk,
                                       const TV* v, std::size_t v_stride, float* acc,
                                       std::size_t a_stride) {
  static_assert(RQ <= 4, "named registers: 4 rows");
  static_assert(RC <= 4, "named registers: 4 column vectors");
  using V = typename O::V;
  const std::size_t N = O::Lanes();
  // One pointer per accumulator row, columns at constant offsets from it
  // (indexing acc + r * a_stride + c * N, GCC kept one register per (r, c)).
  float* const arow[4] = {acc, acc + (RQ > 1 ? a_stride : 0), acc + (RQ > 2 ? 2 * a_stride : 0),
                          acc + (RQ > 3 ? 3 * a_stride : 0)};
#define ATTN_PV_LOAD(r, c) \
  [[maybe_unused]] V a##r##c = (r) < RQ && (c) < RC ? O::LoadU(arow[r] + Sz(c) * N) : O::Zero();
  ATTN_EACH4(ATTN_EACH8, ATTN_PV_LOAD)
  int32_t j = 0;
  if (RQ == 1) {
    // One query (decode): a second set of accumulators for odd keys, so that
    // 2 RC chains hide the FMA latency.
#define ATTN_PV_BZERO(_, c) [[maybe_unused]] V b##c = O::Zero();
    ATTN_EACH4(ATTN_PV_BZERO, _)
#define ATTN_PV_PAIR(_, c)                                           \
  if constexpr ((c) < RC) {                                          \
    a0##c = O::MulAdd(p0, LoadB<O>(vr + Sz(c) * N), a0##c);          \
    b##c = O::MulAdd(p1, LoadB<O>(vr + v_stride + Sz(c) * N), b##c); \
  }
    for (; j + 2 <= nk; j += 2) {
      const TV* vr = v + Sz(j) * v_stride;
      const V p0 = O::Set(p[Sz(j) * pj]);
      const V p1 = O::Set(p[Sz(j + 1) * pj]);
      ATTN_EACH4(ATTN_PV_PAIR, _)
    }
#define ATTN_PV_FOLD(_, c) \
  if constexpr ((c) < RC) a0##c = O::Add(a0##c, b##c);
    ATTN_EACH4(ATTN_PV_FOLD, _)
  }
  // vv<c> feed RQ FMAs each: LoadReg keeps them in registers (xsimd on
  // AVX-512 otherwise re-read V in every FMA, 40% of the FMA peak).
#define ATTN_PV_V(_, c) \
  [[maybe_unused]] const V vv##c = (c) < RC ? LoadB<O, true>(vr + Sz(c) * N) : O::Zero();
#define ATTN_PV_FMA(r, c) \
  if constexpr ((c) < RC) a##r##c = O::MulAdd(pr, vv##c, a##r##c);
#define ATTN_PV_ROW(_, r)                 \
  if constexpr ((r) < RQ) {               \
    const V pr = O::Set(pj0[Sz(r) * pi]); \
    ATTN_EACH8(ATTN_PV_FMA, r)            \
  }
  // Pointer bumps, not index products: the loop keeps two pointers, two
  // strides and its end in registers.
  const float* pj0 = p + Sz(j) * pj;
  const TV* const v_end = v + Sz(nk) * v_stride;
  for (const TV* vr = v + Sz(j) * v_stride; vr != v_end; vr += v_stride, pj0 += pj) {
    ATTN_EACH8(ATTN_PV_V, _)
    ATTN_EACH4(ATTN_PV_ROW, _)
  }
#define ATTN_PV_STORE(r, c) \
  if constexpr ((r) < RQ && (c) < RC) O::StoreU(a##r##c, arow[r] + Sz(c) * N);
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
template <class O, int RQ, class TV>
void PvTail(const float* p, std::size_t pi, std::size_t pj, int32_t nk, const TV* v,
            std::size_t v_stride, std::size_t t, float* acc, std::size_t a_stride) {
  static_assert(RQ <= 4, "named registers a<r>: 4 rows");
  using V = typename O::V;
#define ATTN_PVT_LOAD(_, r) \
  [[maybe_unused]] V a##r = (r) < RQ ? O::LoadN(acc + Sz(r) * a_stride, t) : O::Zero();
#define ATTN_PVT_FMA(_, r) \
  if constexpr ((r) < RQ) a##r = O::MulAdd(O::Set(p[Sz(r) * pi + Sz(j) * pj]), vv, a##r);
#define ATTN_PVT_STORE(_, r) \
  if constexpr ((r) < RQ) O::StoreN(a##r, acc + Sz(r) * a_stride, t);
  ATTN_EACH4(ATTN_PVT_LOAD, _)
  for (int32_t j = 0; j < nk; ++j) {
    const V vv = LoadBN<O>(v + Sz(j) * v_stride, t);
    ATTN_EACH4(ATTN_PVT_FMA, _)
  }
  ATTN_EACH4(ATTN_PVT_STORE, _)
#undef ATTN_PVT_LOAD
#undef ATTN_PVT_FMA
#undef ATTN_PVT_STORE
}

// Column vectors per P.V register block: RQ x RC accumulators, RC vectors of
// V and one broadcast weight must fit the vector registers. With 16 (AVX2,
// SSE4) 4 x 4 does not: two accumulators spill and every FMA re-reads V from
// memory (22 loads per 16 FMAs, load-port bound), so 4 rows take 4 x 2.
template <class O, int RQ>
constexpr int PvBlockColumns() {
  return RQ * 4 + 4 + 1 <= VectorRegs<O>::kValue ? 4 : 2;
}

template <class O, int RQ, class TV>
void PvRows(const float* p, std::size_t pi, std::size_t pj, int32_t nk, const TV* v,
            std::size_t v_stride, int32_t dv, float* acc, std::size_t a_stride) {
  constexpr int RC = PvBlockColumns<O, RQ>();
  const std::size_t N = O::Lanes();
  const std::size_t cols = Sz(dv);
  std::size_t c = 0;
  for (; c + RC * N <= cols; c += RC * N) {
    PvBlock<O, RQ, RC>(p, pi, pj, nk, v + c, v_stride, acc + c, a_stride);
  }
  // Two vectors at once where RC = 4 leaves them (a 32-float head on AVX-512).
  for (; RC > 2 && c + 2 * N <= cols; c += 2 * N) {
    PvBlock<O, RQ, 2>(p, pi, pj, nk, v + c, v_stride, acc + c, a_stride);
  }
  for (; c + N <= cols; c += N)
    PvBlock<O, RQ, 1>(p, pi, pj, nk, v + c, v_stride, acc + c, a_stride);
  if (c < cols) PvTail<O, RQ>(p, pi, pj, nk, v + c, v_stride, cols - c, acc + c, a_stride);
}

template <class O, class TV>
void PvTileStrided(const float* p, std::size_t pi, std::size_t pj, int32_t nq, int32_t nk,
                   const TV* v, std::size_t v_stride, int32_t dv, float* acc,
                   std::size_t a_stride) {
  int32_t i = 0;
  for (; i + 4 <= nq; i += 4) {
    PvRows<O, 4>(p + Sz(i) * pi, pi, pj, nk, v, v_stride, dv, acc + Sz(i) * a_stride, a_stride);
  }
  for (; i < nq; ++i) {
    PvRows<O, 1>(p + Sz(i) * pi, pi, pj, nk, v, v_stride, dv, acc + Sz(i) * a_stride, a_stride);
  }
}

// TV = uint16_t: binary16 values (pv_tile_f16v_f32), the same blocks and order.
template <class O, class TV>
void PvTile(const float* p, std::size_t p_stride, int32_t nq, int32_t nk, const TV* v,
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
      for (int k = 0; k < 4; ++k)
        qt[x * t + Sz(i + k)] = rows[k] != nullptr ? scale * rows[k][x] : 0.0f;
    }
  }
}

// Transposed scores, G query vectors x KB keys per register block: each step
// loads G vectors of qt and broadcasts one k element per key (a memory operand
// of the FMA on x86), so no horizontal reduction is ever needed. kPart: one
// partial vector of n < Lanes() queries (SVE, when the lanes do not divide tq).
// Registers acc<j>_<g> (j < KB <= 16, g < G <= 4), qv<g>, see ATTN_EACH4.
template <class O, int G, int KB, bool kPart = false>
void QkBlockT(const float* qt, std::size_t tq, std::size_t d, const float* k, std::size_t k_stride,
              float* st, std::size_t n = 0) {
  static_assert(G <= 4 && KB <= 16 && (!kPart || G == 1), "named registers: 16 keys x 4 vectors");
  using V = typename O::V;
  const std::size_t N = O::Lanes();
#define ATTN_QT_ZERO(jj, g) [[maybe_unused]] V acc##jj##_##g = O::Zero();
  ATTN_EACH16(ATTN_EACH4, ATTN_QT_ZERO)
#define ATTN_QT_Q(_, g)                                                                \
  [[maybe_unused]] const V qv##g =                                                     \
      (g) < G ? (kPart ? O::LoadN(qt + x * tq, n) : O::LoadU(qt + x * tq + Sz(g) * N)) \
              : O::Zero();
#define ATTN_QT_FMA(jj, g) \
  if constexpr ((g) < G) acc##jj##_##g = O::MulAdd(kb, qv##g, acc##jj##_##g);
#define ATTN_QT_KEY(_, jj)                         \
  if constexpr ((jj) < KB) {                       \
    const V kb = O::Set(k[Sz(jj) * k_stride + x]); \
    ATTN_EACH4(ATTN_QT_FMA, jj)                    \
  }
  for (std::size_t x = 0; x < d; ++x) {
    ATTN_EACH4(ATTN_QT_Q, _)
    ATTN_EACH16(ATTN_QT_KEY, _)
  }
#define ATTN_QT_STORE(jj, g)                                  \
  if constexpr ((jj) < KB && (g) < G) {                       \
    if constexpr (kPart) {                                    \
      O::StoreN(acc##jj##_##g, st + Sz(jj) * tq, n);          \
    } else {                                                  \
      O::StoreU(acc##jj##_##g, st + Sz(jj) * tq + Sz(g) * N); \
    }                                                         \
  }
  ATTN_EACH16(ATTN_EACH4, ATTN_QT_STORE)
#undef ATTN_QT_ZERO
#undef ATTN_QT_Q
#undef ATTN_QT_FMA
#undef ATTN_QT_KEY
#undef ATTN_QT_STORE
}

template <class O, int G, int KB, bool kPart = false>
void QkRowsT(const float* qt, std::size_t tq, std::size_t d, const float* k, std::size_t k_stride,
             int32_t nk, float* st, std::size_t n = 0) {
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
    QkRowsT<O, 2, 8>(qt, t, Sz(d), k, k_stride, nk, st);
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
