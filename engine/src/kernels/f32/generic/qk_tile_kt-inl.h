// Continuation of kernels_f32-inl.h (same namespace, same policy contract):
// qk_tile_kt_f32 and qk_tile_kt_f16_f32, Q.K^T with K in transposed blocks of
// B = kKtBlock (32) keys (a packed float KV cache's K, attn/kv_cache.h).

// s[r * s_stride + j] = sum_x q[r * q_stride + x] * kt[(j / B) * B * d + x * B + j % B],
// r < RQ <= 4, j < nk. A vector holds W = min(Lanes(), B) keys' element x; a
// block row is B / W vectors. A pass takes KV of them (KV * W keys) through
// every x: the KV key vectors loaded, each row's q[x] broadcast, RQ * KV FMAs
// into acc<r><c>. No horizontal sums: the scores leave as vectors along the
// keys. The passes of a block read it in order, then the next block's (with
// 16-key blocks, two blocks a pass, 4 KiB apart at d = 64, ran 10% slower
// from L3 on Zen 5 than key rows, and one 16-lane vector a pass was bound by
// its broadcast loads). P partial sums per row over x modulo P, folded at the
// end, keep RQ * KV * P = 6 or 8 FMA chains in flight. Lanes past nk in the
// last block are computed from whatever the block holds and never stored.
template <class O, int RQ, int KV, int P, class TK>
void QkRowsKt(const float* q, std::size_t q_stride, const TK* kt, std::size_t nk, std::size_t d,
              float* s, std::size_t s_stride) {
  static_assert(RQ >= 1 && RQ <= 4 && KV * P <= 8 && (P == 1 || KV <= 4),
                "named registers: 4 rows x 8 vectors; partial sums fold into <= 4 vectors");
  using V = typename O::V;
  constexpr int C = KV * P;
  constexpr auto B = static_cast<std::size_t>(::attn::kKtBlock);
  const std::size_t N = O::Lanes();
  const std::size_t W = N < B ? N : B;
  const auto load = [N](const TK* p) { return N <= B ? LoadB<O>(p) : LoadBN<O>(p, B); };
  const auto store = [N](V v, float* p, std::size_t n) {
    if (n >= N) {
      O::StoreU(v, p);
    } else {
      O::StoreN(v, p, n);
    }
  };
#define ATTN_KT_QROW(_, r) \
  [[maybe_unused]] const float* q##r = q + Sz((r) < RQ ? (r) : 0) * q_stride;
  ATTN_EACH4(ATTN_KT_QROW, _)
  for (std::size_t j = 0; j < nk; j += KV * W) {
    const TK* k0 = kt + j / B * B * d + j % B;
#define ATTN_KT_ZERO(r, c) [[maybe_unused]] V acc##r##c = O::Zero();
    ATTN_EACH4(ATTN_EACH8, ATTN_KT_ZERO)
    // Vector c: key vector c % KV at element x + c / KV.
#define ATTN_KT_KEY(_, c)                                                                         \
  [[maybe_unused]] const V kv##c = (c) < C ? load(k0 + Sz((c) % KV) * W + (x + Sz((c) / KV)) * B) \
                                           : O::Zero();
#define ATTN_KT_FMA(r, c)                                                    \
  if constexpr ((r) < RQ && (c) < C) {                                       \
    acc##r##c = O::MulAdd(O::Set(q##r[x + Sz((c) / KV)]), kv##c, acc##r##c); \
  }
    std::size_t x = 0;
    for (; x + P <= d; x += P) {
      ATTN_EACH8(ATTN_KT_KEY, _)
      ATTN_EACH4(ATTN_EACH8, ATTN_KT_FMA)
    }
    for (; x < d; ++x) {  // d % P elements left: partial sum 0
#define ATTN_KT_TAIL(r, c)                                                           \
  if constexpr ((r) < RQ && (c) < KV) {                                              \
    acc##r##c = O::MulAdd(O::Set(q##r[x]), load(k0 + Sz(c) * W + x * B), acc##r##c); \
  }
      ATTN_EACH4(ATTN_EACH8, ATTN_KT_TAIL)
    }
    // Partial sum c >= KV into vector c % KV (< 4).
#define ATTN_KT_FOLD(r, c)                          \
  if constexpr ((r) < RQ && (c) >= KV && (c) < C) { \
    if constexpr ((c) % KV == 0) {                  \
      acc##r##0 = O::Add(acc##r##0, acc##r##c);     \
    } else if constexpr ((c) % KV == 1) {           \
      acc##r##1 = O::Add(acc##r##1, acc##r##c);     \
    } else if constexpr ((c) % KV == 2) {           \
      acc##r##2 = O::Add(acc##r##2, acc##r##c);     \
    } else {                                        \
      acc##r##3 = O::Add(acc##r##3, acc##r##c);     \
    }                                               \
  }
    ATTN_EACH4(ATTN_EACH8, ATTN_KT_FOLD)
#define ATTN_KT_STORE(r, c)                                                    \
  if constexpr ((r) < RQ && (c) < KV) {                                        \
    if (j + (c)*W < nk) {                                                      \
      const std::size_t left = nk - j - (c)*W;                                 \
      store(acc##r##c, s + Sz(r) * s_stride + j + (c)*W, left < W ? left : W); \
    }                                                                          \
  }
    ATTN_EACH4(ATTN_EACH8, ATTN_KT_STORE)
#undef ATTN_KT_ZERO
#undef ATTN_KT_KEY
#undef ATTN_KT_FMA
#undef ATTN_KT_TAIL
#undef ATTN_KT_FOLD
#undef ATTN_KT_STORE
  }
#undef ATTN_KT_QROW
}

// RQ rows with R vectors per block row: KV = min(R, 8 / RQ rounded down to a
// power of two, at least 2) key vectors a pass, then P = 8 / (RQ * KV)
// partial sums (none past 4 key vectors).
template <class O, int RQ, int R, class TK>
void QkRowsKtR(const float* q, std::size_t q_stride, const TK* kt, int32_t nk, int32_t d, float* s,
               std::size_t s_stride) {
  constexpr int kMaxKv = RQ <= 1 ? 8 : (RQ == 2 ? 4 : 2);
  constexpr int KV = R < kMaxKv ? R : kMaxKv;
  constexpr int kP = 8 / (RQ * KV);
  constexpr int P = KV > 4 || kP < 1 ? 1 : kP;
  QkRowsKt<O, RQ, KV, P>(q, q_stride, kt, Sz(nk), Sz(d), s, s_stride);
}

// RQ rows for this vector length (R = 32 / min(Lanes(), 32) vectors per
// block row).
template <class O, int RQ, class TK>
void QkRowsKtAnyLanes(const float* q, std::size_t q_stride, const TK* kt, int32_t nk, int32_t d,
                      float* s, std::size_t s_stride) {
  static_assert(::attn::kKtBlock == 32, "the vectors per block row below");
  const std::size_t N = O::Lanes();
  if (O::kMaxLanes >= 32 && N >= 32) {
    QkRowsKtR<O, RQ, 1>(q, q_stride, kt, nk, d, s, s_stride);
  } else if (O::kMaxLanes >= 16 && N == 16) {
    QkRowsKtR<O, RQ, 2>(q, q_stride, kt, nk, d, s, s_stride);
  } else if (O::kMaxLanes >= 8 && N == 8) {
    QkRowsKtR<O, RQ, 4>(q, q_stride, kt, nk, d, s, s_stride);
  } else if (O::kMaxLanes >= 4 && N == 4) {
    QkRowsKtR<O, RQ, 8>(q, q_stride, kt, nk, d, s, s_stride);
  } else {
    QkRowsKtR<O, RQ, 32>(q, q_stride, kt, nk, d, s, s_stride);
  }
}

// Query rows in blocks of 4, then the 1-3 left (TK: float or binary16 bits).
template <class O, class TK>
void QkTileKt(const float* q, std::size_t q_stride, int32_t nq, const TK* kt, int32_t nk, int32_t d,
              float* s, std::size_t s_stride) {
  int32_t i = 0;
  for (; i + 4 <= nq; i += 4) {
    QkRowsKtAnyLanes<O, 4>(q + Sz(i) * q_stride, q_stride, kt, nk, d, s + Sz(i) * s_stride,
                           s_stride);
  }
  const float* qi = q + Sz(i) * q_stride;
  float* si = s + Sz(i) * s_stride;
  switch (nq - i) {
    case 3: QkRowsKtAnyLanes<O, 3>(qi, q_stride, kt, nk, d, si, s_stride); break;
    case 2: QkRowsKtAnyLanes<O, 2>(qi, q_stride, kt, nk, d, si, s_stride); break;
    case 1: QkRowsKtAnyLanes<O, 1>(qi, q_stride, kt, nk, d, si, s_stride); break;
    default: break;
  }
}
