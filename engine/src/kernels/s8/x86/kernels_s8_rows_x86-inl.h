// The one-row int8 kernels qrow_s8_dot, qk_s8, dot_s8, mac_s8, pv_s8,
// pv_s8_strided and requantize_row_s8's store loop (see
// kernels/s8/kernels_s8.h) for one x86 vector level,
// written once over a small set of vector ops. Included by kernels_s8_x86.cpp
// inside each level's namespace (rows512, rows256, rows_avx2), which first
// defines (each with the level's target attribute ATTN_ROWS_T):
//   V (the level's vector: 16 int32 lanes at level 3, 8 at levels 1 and 2),
//   zero(), sub(a, b) (int32 lanes), set1(x), hsum(v) (sum of the int32
//   lanes), reduce8(r) (r[t], t < 8 -> __m256i whose lane t is the sum of
//   r[t]);
//   dot steps of kStep bytes: qconst(zp) (the per-row constant of the query
//   operand), qop(u, c) / qop_tail(u, len, c) (the query operand of kStep
//   bytes of the packed row u = q ^ 0x80, the tail zero-padded),
//   kdot(a, s, q, c, k) / kdot_tail(..., len): a + s accumulate sum (q - zp)
//   k over the step as a - s (levels 2-3: a = vpdpbusd(u, k), s =
//   vpdpbusd(128 + zp, k); level 1: a alone, int16 pairs by vpmaddwd),
//   a starting at acc0(zp, n),
//   qk_short(...) (a level's own fast path for short rows: the keys done);
//   dstep(acc, sb, a, b) / dstep_tail(..., len) and kDotBias: dot_s8's steps,
//   acc - kDotBias sum b = sum a b, sb -> sum b;
//   mac_step(acc, b, wv) (kMacLanes int32) and mac_tail(acc, b, w, len);
//   pv: kPvRows rows of kPvCols columns per step, pv_load(p) /
//   pv_load_tail(p, len) (a row's columns, zero past len), PvWeights
//   (the weights of the kPvRows rows at r as a broadcast vector: full(r),
//   part(r) for the last, partial group), pv_step(acc, w, x) (acc[4] += the
//   rows x weighted) and pv_store(acc, out) / pv_store_tail(acc, out, len)
//   (the columns in order).
//   store_requantized: kLanes, kRqVecs, load(p), load_i32_tail(p, len),
//   store_packed(out, r) (kRqVecs vectors), store_packed_tail(out, v, len);
//   requant_consts: set1_64(x) (x in every int64 lane).
// Tails: level 3 loads and stores them masked, levels 1-2 through a
// zero-padded copy on the stack.
// No include guard: included once per level.

// sum_i (q_i - zp) k_i over n bytes of one key: out of the packed row u.
ATTN_ROWS_T inline int32_t qrow_dot(const uint8_t* u, int32_t zp, const int8_t* k, int32_t n) {
  const V c = qconst(zp);
  V a = acc0(zp, n), s = zero();
  int32_t i = 0;
  for (; i + kStep <= n; i += kStep) kdot(a, s, qop(u + i, c), c, k + i);
  if (i < n) kdot_tail(a, s, qop_tail(u + i, n - i, c), c, k + i, n - i);
  return hsum(sub(a, s));
}

// out[j] = qrow_dot of key j (stride bytes apart), eight keys per block (a
// partial last block repeats its last key; those lanes are not stored).
ATTN_ROWS_T inline void qk(const uint8_t* u, int32_t zp, const int8_t* k, std::size_t stride,
                           int32_t nkeys, int32_t n, int32_t* out) {
  const int32_t done = qk_short(u, zp, k, stride, nkeys, n, out);
  k += static_cast<std::size_t>(done) * stride;
  out += done;
  nkeys -= done;
  const V c = qconst(zp);
  const int32_t nfull = n / kStep * kStep;
  for (int32_t j = 0; j < nkeys; j += 8) {
    const int32_t nk = nkeys - j < 8 ? nkeys - j : 8;
    const int8_t* kt[8];
    for (int t = 0; t < 8; ++t) {
      const int32_t jt = t < nk ? j + t : j + nk - 1;
      kt[t] = k + static_cast<std::size_t>(jt) * stride;
    }
    V a[8], s[8];
    for (int t = 0; t < 8; ++t) {
      a[t] = acc0(zp, n);
      s[t] = zero();
    }
    int32_t i = 0;
    for (; i < nfull; i += kStep) {
      const V qv = qop(u + i, c);
      for (int t = 0; t < 8; ++t) kdot(a[t], s[t], qv, c, kt[t] + i);
    }
    if (i < n) {
      const V qv = qop_tail(u + i, n - i, c);
      for (int t = 0; t < 8; ++t) kdot_tail(a[t], s[t], qv, c, kt[t] + i, n - i);
    }
    for (int t = 0; t < 8; ++t) a[t] = sub(a[t], s[t]);
    const __m256i r = reduce8(a);
    if (nk == 8) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + j), r);
    } else {
      alignas(32) int32_t tmp[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(tmp), r);
      std::memcpy(out + j, tmp, static_cast<std::size_t>(nk) * sizeof(int32_t));
    }
  }
}

// sum a b and *sum_b = sum b (int32 lanes wrap; the results are exact).
ATTN_ROWS_T inline int32_t dot(const int8_t* a, const int8_t* b, int32_t n, int32_t* sum_b) {
  V acc = zero(), sb = zero();
  int32_t i = 0;
  for (; i + kStep <= n; i += kStep) dstep(acc, sb, a + i, b + i);
  if (i < n) dstep_tail(acc, sb, a + i, b + i, n - i);
  const int32_t s = hsum(sb);
  *sum_b = s;
  return wrap_sub32(hsum(acc), wrap_mul32(kDotBias, s));
}

// acc[i] += w b[i].
ATTN_ROWS_T inline void mac(int32_t* acc, const int8_t* b, int32_t w, int32_t n) {
  const V wv = set1(w);
  int32_t i = 0;
  for (; i + kMacLanes <= n; i += kMacLanes) mac_step(acc + i, b + i, wv);
  if (i < n) mac_tail(acc + i, b + i, w, wv, n - i);
}

// One block of kPvCols columns at column c (kTail: the last len < kPvCols
// of them, loaded zero-padded).
template <bool kTail, typename RowAt>
ATTN_ROWS_T inline void pv_block(RowAt row_at, const int16_t* w, int32_t nrows, int32_t c,
                                 int32_t len, V* a) {
  for (int t = 0; t < 4; ++t) a[t] = zero();
  PvWeights wg(w, nrows);
  int32_t r = 0;
  for (; r + kPvRows <= nrows; r += kPvRows) {
    V x[kPvRows];
    for (int t = 0; t < kPvRows; ++t) {
      x[t] = kTail ? pv_load_tail(row_at(r + t) + c, len) : pv_load(row_at(r + t) + c);
    }
    pv_step(a, wg.full(r), x);
  }
  if (r < nrows) {
    V x[kPvRows];
    for (int t = 0; t < kPvRows; ++t) {
      if (r + t >= nrows) {
        x[t] = zero();
      } else {
        x[t] = kTail ? pv_load_tail(row_at(r + t) + c, len) : pv_load(row_at(r + t) + c);
      }
    }
    pv_step(a, wg.part(r), x);
  }
}

// acc[c] = sum_r w[r] row_r[c] (w in [0, 255] at levels 2-3, int16 at level
// 1): kPvRows rows interleaved per column against their weights, kPvCols
// columns per pass, the last ones in one zero-padded pass.
template <typename RowAt>
ATTN_ROWS_T inline void pv(RowAt row_at, const int16_t* w, int32_t nrows, int32_t n, int32_t* acc) {
  int32_t c = 0;
  V a[4];
  for (; c + kPvCols <= n; c += kPvCols) {
    pv_block<false>(row_at, w, nrows, c, kPvCols, a);
    pv_store(a, acc + c);
  }
  if (c < n) {
    pv_block<true>(row_at, w, nrows, c, n - c, a);
    pv_store_tail(a, acc + c, n - c);
  }
}

// The constants of TFLite's requantization (see q::requantize) of x -
// offset by multiplier > 0 and shift, plus the zero point, for the level's
// requant function: left = max(shift, 0), right = max(-shift, 0), the
// multiplier and srdhm's nudge 2^30 per int64 lane, RoundingDivideByPOT's
// remainder mask and half.
struct Requant {
  __m128i vleft, vright;
  V mult, nudge, mask, half, zp, off;
};
ATTN_ROWS_T inline Requant requant_consts(int32_t offset, int32_t multiplier, int32_t shift,
                                          int32_t zero_point) {
  const int left = shift > 0 ? shift : 0;
  const int right = shift > 0 ? 0 : -shift;
  Requant c;
  c.vleft = _mm_cvtsi32_si128(left);
  c.vright = _mm_cvtsi32_si128(right);
  c.mult = set1_64(multiplier);
  c.nudge = set1_64(int64_t{1} << 30);
  const int32_t m = static_cast<int32_t>((uint64_t{1} << right) - 1u);
  c.mask = set1(m);
  c.half = set1(m >> 1);
  c.zp = set1(zero_point);
  c.off = set1(offset);
  return c;
}

// out[i] = the int8 of requant(c, acc[i]) for i < n, requant one of the
// level's requantizations of kLanes int32 before the clamp: kRqVecs vectors
// per step packed and stored together (store_packed: saturating packs are
// the clamp), the rest one vector at a time (load_i32_tail /
// store_packed_tail).
template <class C, V (*requant)(const C&, V)>
ATTN_ROWS_T inline void store_requantized(const C& c, const int32_t* acc, int32_t n, int8_t* out) {
  int32_t i = 0;
  for (; i + kRqVecs * kLanes <= n; i += kRqVecs * kLanes) {
    V r[kRqVecs];
    for (int t = 0; t < kRqVecs; ++t) r[t] = requant(c, load(acc + i + t * kLanes));
    store_packed(out + i, r);
  }
  for (; i < n; i += kLanes) {
    const int32_t len = n - i < kLanes ? n - i : kLanes;
    store_packed_tail(out + i, requant(c, load_i32_tail(acc + i, len)), len);
  }
}
