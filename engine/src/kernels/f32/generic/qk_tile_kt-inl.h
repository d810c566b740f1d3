// Continuation of kernels_f32-inl.h (same namespace, same policy contract):
// qk_tile_kt_f32 and qk_tile_kt_f16_f32, Q.K^T with K in 16-key transposed
// blocks (a packed float KV cache's K, attn/kv_cache.h).

// s[r * s_stride + j] = sum_x q[r * q_stride + x] * kt[(j / 16) * 16 * d + x * 16 + j % 16],
// r < RQ <= 4, j < nk. A vector holds W = min(Lanes(), 16) keys' element x
// (a whole 16-key block's row on AVX-512; a W-key part of it on narrower
// vectors; the first 16 lanes on longer SVE vectors). Per x: KV key vectors
// loaded, each query row's q[x] broadcast, RQ * KV FMAs into acc<r><c>, the
// scores of row r and keys j + c W .. j + c W + W - 1. No horizontal sums: the
// scores leave as vectors along the keys. RQ * KV = 6 or 8 independent FMA
// chains (KV = 8 / RQ, at least 2) hide the FMA latency. Lanes past nk in
// the last block are computed from whatever the block holds and not stored.
template <class O, int RQ, int KV, class TK>
void QkRowsKt(const float* q, std::size_t q_stride, const TK* kt, std::size_t nk, std::size_t d,
              float* s, std::size_t s_stride) {
  static_assert(RQ >= 1 && RQ <= 4 && KV >= 1 && KV <= 8, "named registers: 4 rows x 8 vectors");
  using V = typename O::V;
  const std::size_t N = O::Lanes();
  const std::size_t W = N < 16 ? N : 16;
  const auto load = [N](const TK* p) { return N <= 16 ? LoadB<O>(p) : LoadBN<O>(p, 16); };
  const auto at = [kt, d](std::size_t j) { return kt + j / 16 * 16 * d + j % 16; };
  const auto store = [N](V v, float* p, std::size_t n) {
    if (n >= N) {
      O::StoreU(v, p);
    } else {
      O::StoreN(v, p, n);
    }
  };
  for (std::size_t j = 0; j < nk; j += KV * W) {
    // Key vector c exists when its first key does (its block holds round16(nk) keys).
    const TK* k0 = at(j);
#define ATTN_KT_PTR(_, c) \
  [[maybe_unused]] const TK* k##c##p = (c) < KV && j + (c)*W < nk ? at(j + (c)*W) : k0;
    ATTN_EACH8(ATTN_KT_PTR, _)
#define ATTN_KT_ZERO(r, c) [[maybe_unused]] V acc##r##c = O::Zero();
    ATTN_EACH4(ATTN_EACH8, ATTN_KT_ZERO)
#define ATTN_KT_KEY(_, c) \
  [[maybe_unused]] const V kv##c = (c) < KV ? load(k##c##p + x * 16) : O::Zero();
#define ATTN_KT_FMA(r, c) \
  if constexpr ((c) < KV) acc##r##c = O::MulAdd(qv, kv##c, acc##r##c);
#define ATTN_KT_ROW(_, r)                         \
  if constexpr ((r) < RQ) {                       \
    const V qv = O::Set(q[Sz(r) * q_stride + x]); \
    ATTN_EACH8(ATTN_KT_FMA, r)                    \
  }
    for (std::size_t x = 0; x < d; ++x) {
      ATTN_EACH8(ATTN_KT_KEY, _)
      ATTN_EACH4(ATTN_KT_ROW, _)
    }
#define ATTN_KT_STORE(r, c)                                                    \
  if constexpr ((r) < RQ && (c) < KV) {                                        \
    if (j + (c)*W < nk) {                                                      \
      const std::size_t left = nk - j - (c)*W;                                 \
      store(acc##r##c, s + Sz(r) * s_stride + j + (c)*W, left < W ? left : W); \
    }                                                                          \
  }
    ATTN_EACH4(ATTN_EACH8, ATTN_KT_STORE)
#undef ATTN_KT_PTR
#undef ATTN_KT_ZERO
#undef ATTN_KT_KEY
#undef ATTN_KT_FMA
#undef ATTN_KT_ROW
#undef ATTN_KT_STORE
  }
}

// Query rows in blocks of 4, then the 1-3 left (TK: float or binary16 bits).
template <class O, class TK>
void QkTileKt(const float* q, std::size_t q_stride, int32_t nq, const TK* kt, int32_t nk, int32_t d,
              float* s, std::size_t s_stride) {
  int32_t i = 0;
  for (; i + 4 <= nq; i += 4) {
    QkRowsKt<O, 4, 2>(q + Sz(i) * q_stride, q_stride, kt, Sz(nk), Sz(d), s + Sz(i) * s_stride,
                      s_stride);
  }
  const float* qi = q + Sz(i) * q_stride;
  float* si = s + Sz(i) * s_stride;
  switch (nq - i) {
    case 3: QkRowsKt<O, 3, 2>(qi, q_stride, kt, Sz(nk), Sz(d), si, s_stride); break;
    case 2: QkRowsKt<O, 2, 4>(qi, q_stride, kt, Sz(nk), Sz(d), si, s_stride); break;
    case 1: QkRowsKt<O, 1, 8>(qi, q_stride, kt, Sz(nk), Sz(d), si, s_stride); break;
    default: break;
  }
}
