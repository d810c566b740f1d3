// Register blocks for a policy with an FMA by lane (AArch64 NEON's FMLA by
// element, `fmla v.4s, v.4s, v.s[i]`): the Q.K^T and P.V tiles of the SDPA
// core, where one loaded vector of 4 consecutive floats supplies 4 broadcasts
// (O::Set(p[i]) costs a scalar load per broadcast). The policy `O` is that of
// kernels_f32-inl.h with 4 lanes (O::kMaxLanes == 4) and one more op:
//
//   MulAddLane<i>(a, b, c)   a * b[i] + c, per lane (lane i < 4 of b broadcast)
//
// Not a normal header: kernels/f32/hwy/kernels_f32_hwy.cpp includes it after
// kernels_f32-inl.h, in the same namespace, on the targets with the op, and
// routes that policy's QkTileT, PvTileT and PvTile here. Contracts:
// qk_tile_t_f32, pv_tile_t_f32 and pv_tile_f32 in kernels_f32.h; the
// reference math is in kernels/ref/kernels_f32_ref.cpp.
//
// Inner loops (AArch64, GCC 12.2 -O3): Q.K^T 79 instructions per 64 FMAs (4
// key vectors, 8 LDP of queries, 3 of loop), P.V on transposed weights 83 per
// 64 (4 LDP of weights, 6 loads of V, 5 of loop, 4 register moves GCC adds).

// NOLINTBEGIN(build/include_what_you_use)

namespace generic {

// Transposed scores st[j * tq + i] = sum_x qt[x * tq + i] * k[j * k_stride + x]
// for 16 queries (4 vectors of qt) x KB keys: per 4 steps of x, one vector
// k[j * k_stride + x .. x + 3] per key, whose lanes are the 4 steps'
// broadcasts, and per step the 4 adjacent vectors of qt (2 LDP; with kTq, the
// tile width as a constant, the 4 steps' offsets are immediates). KB = 4: 16
// sums, 4 key and 4 query vectors; 5 keys spill with GCC 12. A d % 4 tail
// broadcasts one k element per key and step.
// Registers acc<j>_<g> (j < KB, g < 4), kv<j>, qv<g> (register_block.h).
template <class O, int KB, int kTq>
void QkBlockTLane(const float* qt, std::size_t tq_run, std::size_t d, const float* k,
                  std::size_t k_stride, float* st) {
  static_assert(KB <= 4, "4 keys x 4 vectors (16 sums)");
  static_assert(O::kMaxLanes == 4, "FMA by lane: 4-lane vectors");
  using V = typename O::V;
  constexpr std::size_t N = 4;
  const std::size_t tq = kTq > 0 ? Sz(kTq) : tq_run;
#define ATTN_QTL_ZERO(j, g) [[maybe_unused]] V acc##j##_##g = O::Zero();
  ATTN_EACH8(ATTN_EACH4, ATTN_QTL_ZERO)
#define ATTN_QTL_Q(_, g) const V qv##g = O::LoadU(qx + Sz(g) * N);
#define ATTN_QTL_K(_, j) \
  [[maybe_unused]] const V kv##j = (j) < KB ? O::LoadU(k + Sz(j) * k_stride + x) : O::Zero();
#define ATTN_QTL_FMA(j, g) \
  if constexpr ((j) < KB) acc##j##_##g = O::template MulAddLane<kLane>(qv##g, kv##j, acc##j##_##g);
#define ATTN_QTL_STEP(L)                   \
  {                                        \
    constexpr int kLane = (L);             \
    const float* qx = qt + (x + (L)) * tq; \
    ATTN_EACH4(ATTN_QTL_Q, _)              \
    ATTN_EACH8(ATTN_EACH4, ATTN_QTL_FMA)   \
  }
  std::size_t x = 0;
  for (; x + 4 <= d; x += 4) {
    ATTN_EACH8(ATTN_QTL_K, _)
    ATTN_QTL_STEP(0)
    ATTN_QTL_STEP(1)
    ATTN_QTL_STEP(2)
    ATTN_QTL_STEP(3)
  }
#define ATTN_QTL_TAIL_K(_, j) \
  [[maybe_unused]] const V kb##j = (j) < KB ? O::Set(k[Sz(j) * k_stride + x]) : O::Zero();
#define ATTN_QTL_TAIL_FMA(j, g) \
  if constexpr ((j) < KB) acc##j##_##g = O::MulAdd(kb##j, qv##g, acc##j##_##g);
  for (; x < d; ++x) {
    const float* qx = qt + x * tq;
    ATTN_EACH4(ATTN_QTL_Q, _)
    ATTN_EACH8(ATTN_QTL_TAIL_K, _)
    ATTN_EACH8(ATTN_EACH4, ATTN_QTL_TAIL_FMA)
  }
#define ATTN_QTL_STORE(j, g) \
  if constexpr ((j) < KB) O::StoreU(acc##j##_##g, st + Sz(j) * tq + Sz(g) * N);
  ATTN_EACH8(ATTN_EACH4, ATTN_QTL_STORE)
#undef ATTN_QTL_ZERO
#undef ATTN_QTL_Q
#undef ATTN_QTL_K
#undef ATTN_QTL_FMA
#undef ATTN_QTL_STEP
#undef ATTN_QTL_TAIL_K
#undef ATTN_QTL_TAIL_FMA
#undef ATTN_QTL_STORE
}

// Keys [0, nk) of 16 queries: blocks of KB keys, then the rest (< KB) as one
// smaller block.
template <class O, int KB, int kTq>
void QkKeysTLane(const float* qt, std::size_t tq, std::size_t d, const float* k,
                 std::size_t k_stride, int32_t nk, float* st) {
  int32_t j = 0;
  for (; j + KB <= nk; j += KB) {
    QkBlockTLane<O, KB, kTq>(qt, tq, d, k + Sz(j) * k_stride, k_stride, st + Sz(j) * tq);
  }
  if constexpr (KB > 1) {
    if (j < nk) {
      QkKeysTLane<O, KB - 1, kTq>(qt, tq, d, k + Sz(j) * k_stride, k_stride, nk - j,
                                  st + Sz(j) * tq);
    }
  }
}

// tq is a multiple of 16: 16 queries at a time. The core's widths (16, 32)
// as constants, any other at run time.
template <class O>
void QkTileTLane(const float* qt, int32_t tq, int32_t d, const float* k, std::size_t k_stride,
                 int32_t nk, float* st) {
  const std::size_t t = Sz(tq);
  for (std::size_t g = 0; g < t; g += 16) {
    if (tq == 32) {
      QkKeysTLane<O, 4, 32>(qt + g, t, Sz(d), k, k_stride, nk, st + g);
    } else if (tq == 16) {
      QkKeysTLane<O, 4, 16>(qt + g, t, Sz(d), k, k_stride, nk, st + g);
    } else {
      QkKeysTLane<O, 4, 0>(qt + g, t, Sz(d), k, k_stride, nk, st + g);
    }
  }
}

// The accumulators of a P.V block: a<r>_<c> = acc[r * a_stride + c * 4 ..],
// r < RQ, c < RC, loaded at the start and stored at the end.
#define ATTN_PVL_LOAD(r, c)       \
  [[maybe_unused]] V a##r##_##c = \
      (r) < RQ && (c) < RC ? O::LoadU(acc + Sz(r) * a_stride + Sz(c) * N) : O::Zero();
#define ATTN_PVL_STORE(r, c) \
  if constexpr ((r) < RQ && (c) < RC) O::StoreU(a##r##_##c, acc + Sz(r) * a_stride + Sz(c) * N);
#define ATTN_PVL_V(_, c) \
  [[maybe_unused]] const V vv##c = (c) < RC ? LoadB<O>(vr + Sz(c) * N) : O::Zero();

// P.V on transposed weights: acc[r * a_stride + c] += sum_j pt[j * pj + r] *
// v[j * v_stride + c] for RQ <= 8 rows x RC <= 2 column vectors (16 sums).
// One key's weights of rows 0-3 and 4-7 are two adjacent vectors whose lanes
// are the rows' broadcasts; 4 keys an iteration. pj = kTq, or pj_run when
// kTq < 0.
// Registers a<r>_<c>, vv<c> (register_block.h).
template <class O, int RQ, int RC, int kTq, class TV>
void PvBlockTLane(const float* pt, std::size_t pj_run, int32_t nk, const TV* v,
                  std::size_t v_stride, float* acc, std::size_t a_stride) {
  static_assert(RQ <= 8 && RC <= 2, "8 rows x 2 vectors (16 sums)");
  static_assert(O::kMaxLanes == 4, "FMA by lane: 4-lane vectors");
  using V = typename O::V;
  constexpr std::size_t N = 4;
  const std::size_t pj = kTq > 0 ? Sz(kTq) : pj_run;
  ATTN_EACH8(ATTN_EACH16, ATTN_PVL_LOAD)
#define ATTN_PVL_FMA(r, c)                                                              \
  if constexpr ((r) < RQ && (c) < RC) {                                                 \
    a##r##_##c = O::template MulAddLane<(r) % 4>(vv##c, (r) < 4 ? w0 : w1, a##r##_##c); \
  }
// Column by column: with GCC 12, 2% fewer instructions than row by row
// (register allocation of the sums).
#define ATTN_PVL_FMA_C(c, r) ATTN_PVL_FMA(r, c)
#define ATTN_PVL_KEY(jj)                                                               \
  {                                                                                    \
    const TV* vr = v + Sz(jj) * v_stride;                                              \
    const V w0 = O::LoadU(pt + Sz(jj) * pj);                                           \
    [[maybe_unused]] const V w1 = RQ > 4 ? O::LoadU(pt + Sz(jj) * pj + N) : O::Zero(); \
    ATTN_EACH16(ATTN_PVL_V, _)                                                         \
    ATTN_EACH4(ATTN_EACH8, ATTN_PVL_FMA_C)                                             \
  }
  int32_t j = 0;
  for (; j + 4 <= nk; j += 4) {
    ATTN_PVL_KEY(j)
    ATTN_PVL_KEY(j + 1)
    ATTN_PVL_KEY(j + 2)
    ATTN_PVL_KEY(j + 3)
  }
  for (; j < nk; ++j) ATTN_PVL_KEY(j)
  ATTN_EACH8(ATTN_EACH16, ATTN_PVL_STORE)
#undef ATTN_PVL_FMA
#undef ATTN_PVL_FMA_C
#undef ATTN_PVL_KEY
}

// P.V on row-major weights: acc[r * a_stride + c] += sum_j p[r * p_stride + j]
// * v[j * v_stride + c] for RQ <= 4 rows x RC <= 8 column vectors: per 4 keys
// one vector of weights per row, lane L the weight of key j + L; the last
// nk % 4 keys broadcast one weight each.
// Registers a<r>_<c>, vv<c>, pw<r> (register_block.h).
template <class O, int RQ, int RC, class TV>
void PvBlockRLane(const float* p, std::size_t p_stride, int32_t nk, const TV* v,
                  std::size_t v_stride, float* acc, std::size_t a_stride) {
  static_assert(RQ <= 4 && RC <= 8, "4 rows x 8 vectors");
  static_assert(O::kMaxLanes == 4, "FMA by lane: 4-lane vectors");
  using V = typename O::V;
  constexpr std::size_t N = 4;
  ATTN_EACH8(ATTN_EACH16, ATTN_PVL_LOAD)
#define ATTN_PVL_W(_, r) \
  [[maybe_unused]] const V pw##r = (r) < RQ ? O::LoadU(p + Sz(r) * p_stride + Sz(j)) : O::Zero();
#define ATTN_PVL_FMA(r, c)                                                \
  if constexpr ((r) < RQ && (c) < RC) {                                   \
    a##r##_##c = O::template MulAddLane<kLane>(vv##c, pw##r, a##r##_##c); \
  }
#define ATTN_PVL_STEP(L)                       \
  {                                            \
    constexpr int kLane = (L);                 \
    const TV* vr = v + Sz(j + (L)) * v_stride; \
    ATTN_EACH16(ATTN_PVL_V, _)                 \
    ATTN_EACH8(ATTN_EACH16, ATTN_PVL_FMA)      \
  }
  int32_t j = 0;
  for (; j + 4 <= nk; j += 4) {
    ATTN_EACH8(ATTN_PVL_W, _)
    ATTN_PVL_STEP(0)
    ATTN_PVL_STEP(1)
    ATTN_PVL_STEP(2)
    ATTN_PVL_STEP(3)
  }
#define ATTN_PVL_FMA_S(r, c)                                                        \
  if constexpr ((r) < RQ && (c) < RC) {                                             \
    a##r##_##c = O::MulAdd(O::Set(p[Sz(r) * p_stride + Sz(j)]), vv##c, a##r##_##c); \
  }
  for (; j < nk; ++j) {
    const TV* vr = v + Sz(j) * v_stride;
    ATTN_EACH16(ATTN_PVL_V, _)
    ATTN_EACH8(ATTN_EACH16, ATTN_PVL_FMA_S)
  }
  ATTN_EACH8(ATTN_EACH16, ATTN_PVL_STORE)
#undef ATTN_PVL_W
#undef ATTN_PVL_FMA
#undef ATTN_PVL_STEP
#undef ATTN_PVL_FMA_S
}
#undef ATTN_PVL_LOAD
#undef ATTN_PVL_STORE
#undef ATTN_PVL_V

// RQ rows, columns [0, dv): blocks of RC vectors, then of RC / 2, ... 1, then
// the last dv % 4 columns (PvTail: broadcast weights, at most 4 rows a call).
// kTq != 0: transposed weights (pi = 1, pj the tile width); kTq == 0:
// row-major (pi the row stride, pj = 1).
template <class O, int RQ, int RC, int kTq, class TV>
void PvRowsLane(const float* p, std::size_t pi, std::size_t pj, int32_t nk, const TV* v,
                std::size_t v_stride, std::size_t dv, float* acc, std::size_t a_stride) {
  constexpr std::size_t N = 4;
  std::size_t c = 0;
  for (; c + RC * N <= dv; c += RC * N) {
    if constexpr (kTq != 0) {
      PvBlockTLane<O, RQ, RC, kTq>(p, pj, nk, v + c, v_stride, acc + c, a_stride);
    } else {
      PvBlockRLane<O, RQ, RC>(p, pi, nk, v + c, v_stride, acc + c, a_stride);
    }
  }
  if (c == dv) return;
  if constexpr (RC > 1) {
    PvRowsLane<O, RQ, RC / 2, kTq>(p, pi, pj, nk, v + c, v_stride, dv - c, acc + c, a_stride);
  } else {
    PvTail<O, (RQ < 4 ? RQ : 4)>(p, pi, pj, nk, v + c, v_stride, dv - c, acc + c, a_stride);
    if constexpr (RQ > 4) {
      PvTail<O, RQ - 4>(p + 4 * pi, pi, pj, nk, v + c, v_stride, dv - c, acc + 4 * a_stride + c,
                        a_stride);
    }
  }
}

// Transposed weights pt[j * tq + i]: rows 8 at a time, then the last nq % 8
// rows as one block (its weight vectors read columns up to the next multiple
// of 4, inside tq).
template <class O, int kTq, class TV>
void PvTileTLaneTq(const float* pt, std::size_t t, int32_t nq, int32_t nk, const TV* v,
                   std::size_t v_stride, std::size_t dv, float* acc, std::size_t a_stride) {
  int32_t i = 0;
  for (; i + 8 <= nq; i += 8) {
    PvRowsLane<O, 8, 2, kTq>(pt + i, 1, t, nk, v, v_stride, dv, acc + Sz(i) * a_stride, a_stride);
  }
  const float* p = pt + i;
  float* a = acc + Sz(i) * a_stride;
  switch (nq - i) {
    case 7: PvRowsLane<O, 7, 2, kTq>(p, 1, t, nk, v, v_stride, dv, a, a_stride); break;
    case 6: PvRowsLane<O, 6, 2, kTq>(p, 1, t, nk, v, v_stride, dv, a, a_stride); break;
    case 5: PvRowsLane<O, 5, 2, kTq>(p, 1, t, nk, v, v_stride, dv, a, a_stride); break;
    case 4: PvRowsLane<O, 4, 2, kTq>(p, 1, t, nk, v, v_stride, dv, a, a_stride); break;
    case 3: PvRowsLane<O, 3, 2, kTq>(p, 1, t, nk, v, v_stride, dv, a, a_stride); break;
    case 2: PvRowsLane<O, 2, 2, kTq>(p, 1, t, nk, v, v_stride, dv, a, a_stride); break;
    case 1: PvRowsLane<O, 1, 2, kTq>(p, 1, t, nk, v, v_stride, dv, a, a_stride); break;
    default: break;
  }
}

template <class O, class TV>
void PvTileTLane(const float* pt, int32_t tq, int32_t nq, int32_t nk, const TV* v,
                 std::size_t v_stride, int32_t dv, float* acc, std::size_t a_stride) {
  if (tq == 32) {
    PvTileTLaneTq<O, 32>(pt, 32, nq, nk, v, v_stride, Sz(dv), acc, a_stride);
  } else if (tq == 16) {
    PvTileTLaneTq<O, 16>(pt, 16, nq, nk, v, v_stride, Sz(dv), acc, a_stride);
  } else {
    PvTileTLaneTq<O, -1>(pt, Sz(tq), nq, nk, v, v_stride, Sz(dv), acc, a_stride);
  }
}

// Row-major weights p[i * p_stride + j]: 4 rows x 4 column vectors, single
// rows (decode) x 8 (16 spill with GCC 12).
template <class O, class TV>
void PvTileLane(const float* p, std::size_t p_stride, int32_t nq, int32_t nk, const TV* v,
                std::size_t v_stride, int32_t dv, float* acc, std::size_t a_stride) {
  int32_t i = 0;
  for (; i + 4 <= nq; i += 4) {
    PvRowsLane<O, 4, 4, 0>(p + Sz(i) * p_stride, p_stride, 1, nk, v, v_stride, Sz(dv),
                           acc + Sz(i) * a_stride, a_stride);
  }
  for (; i < nq; ++i) {
    PvRowsLane<O, 1, 8, 0>(p + Sz(i) * p_stride, p_stride, 1, nk, v, v_stride, Sz(dv),
                           acc + Sz(i) * a_stride, a_stride);
  }
}

}  // namespace generic

// NOLINTEND(build/include_what_you_use)
