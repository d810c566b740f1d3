// qk_tile_s8_rq / pv_tile_s8_rq at the AVX-512 VNNI level: the Q K^T and
// P V tile GEMMs (kernels_s8_tile_x86-inl.h, qk_tile_emit / pv_tile_emit)
// with the requantization of the scores / outputs in their epilogue.
// Included by kernels_s8_x86.cpp inside namespace tile512 after that body
// (V = __m512i, kLanes = 16, ATTN_TILE_T the AVX-512 target).
// No include guard: included once.
//
// Math, per value: total = dot - offset (int32; the caller guarantees it does
// not overflow, as for requantize_row_s8), then TFLite's
//   clamp(RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(total, m), e) + zp)
// for m > 0 and shift = -e, e in [0, 23]. With P = total m (exact, |P| <= 2^62):
//   srdhm = floor((P + 2^30) / 2^31)   (TFLite's nudge 1 - 2^30 for P < 0 and
//           truncating division give the same floor; m > 0 excludes the one
//           saturating case INT32_MIN x INT32_MIN)
//   RoundingDivideByPOT(y, e) = floor((y + c - s) / 2^e), c = 2^(e-1) and
//           s = [y < 0] for e > 0 (ties away from zero), c = s = 0 for e = 0
// Nested floors by powers of two compose, and y < 0 <=> P < -2^30, so
//   result = floor((P + K - s 2^31) / 2^(31 + e)),  K = 2^30 + c 2^31 + zp 2^(31+e)
//   s = [P < -2^30] (e > 0)
// |P + K - s 2^31| < 2^62 + 2^61 + 2^53 + 2^31 < 2^63: exact in int64. The low
// 32 bits of the shifted lane are the int32 result (the zero point added with
// int32 wrap-around, as requantize), vpmovsdb's saturation the clamp.
//
// The row constant is subtracted by starting the GEMM's accumulators at
// -offset (int32 wrap-around cancels): K and the threshold are then the same
// for every row, so the epilogue holds a handful of constant registers and no
// per-row 64-bit constants. Even lanes multiply in place (vpmuldq reads the
// low dword of each qword), odd lanes after a 32-bit shift; a merge-masked
// vpshufd puts the odd results between the even ones.
struct StoreRq {
  __m512i mult, k, thr, two31;
  __m128i vshift;
  __mmask8 round_neg;  // all ones when e > 0
  const int32_t* offsets;
  int8_t* out;
  std::size_t stride;
  int32_t ncols;  // bytes written per row: up to the 16-lane vector holding column ncols - 1
  ATTN_TILE_T V init(int32_t r) const {
    return _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_set1_epi32(offsets[r]));
  }
  ATTN_TILE_T inline __m512i half(__m512i x) const {
    const __m512i p = _mm512_mul_epi32(x, mult);
    const __m512i t = _mm512_add_epi64(p, k);
    const __mmask8 s = _mm512_mask_cmplt_epi64_mask(round_neg, p, thr);
    return _mm512_sra_epi64(_mm512_mask_sub_epi64(t, s, t, two31), vshift);
  }
  ATTN_TILE_T inline __m512i requant(V v) const {
    const __m512i even = half(v);
    const __m512i odd = half(_mm512_srli_epi64(v, 32));
    return _mm512_mask_shuffle_epi32(even, static_cast<__mmask16>(0xaaaa), odd,
                                     static_cast<_MM_PERM_ENUM>(0xa0));
  }
  // Q K^T blocks (no column limit): with two key vectors, rows in pairs as
  // 64 bytes: the four vectors' saturating packs (int32 -> int16 -> int8:
  // the same clamp as vpmovsdb) interleave 128-bit lanes, one dword permute
  // gives row q's 32 bytes then row q + 1's; the rest one vector at a time.
  //
  // With four key vectors, each row's 64 bytes: the same packs give 128-bit
  // lane L = keys 4 L.. of vectors 0, 1, 2, 3 (a dword each), the same
  // dword permute puts vector v's 16 bytes at 16 v: one 64-byte store.
  template <int NQ, int NV>
  ATTN_TILE_T void block(int32_t row0, int32_t kv0, const V (&res)[NQ][NV]) const {
    int q = 0;
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    if constexpr (NV == 4) {
      for (; q < NQ; ++q) {
        const __m512i a = _mm512_packs_epi32(requant(res[q][0]), requant(res[q][1]));
        const __m512i b = _mm512_packs_epi32(requant(res[q][2]), requant(res[q][3]));
        const __m512i r = _mm512_permutexvar_epi32(order, _mm512_packs_epi16(a, b));
        _mm512_storeu_si512(
            out + static_cast<std::size_t>(row0 + q) * stride + static_cast<std::size_t>(kv0) * 16,
            r);
      }
    }
    if constexpr (NV == 2) {
      for (; q + 2 <= NQ; q += 2) {
        const __m512i a = _mm512_packs_epi32(requant(res[q][0]), requant(res[q][1]));
        const __m512i b = _mm512_packs_epi32(requant(res[q + 1][0]), requant(res[q + 1][1]));
        const __m512i r = _mm512_permutexvar_epi32(order, _mm512_packs_epi16(a, b));
        int8_t* o = out + static_cast<std::size_t>(row0 + q) * stride +
                    static_cast<std::size_t>(kv0) * 16;
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(o), _mm512_castsi512_si256(r));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + stride),
                            _mm512_extracti64x4_epi64(r, 1));
      }
    }
    for (; q < NQ; ++q) {
      for (int v = 0; v < NV; ++v) (*this)(row0 + q, kv0 + v, res[q][v]);
    }
  }
  ATTN_TILE_T void operator()(int32_t r, int32_t kv, V v) const {
    const __m512i res = requant(v);
    int8_t* o = out + static_cast<std::size_t>(r) * stride + static_cast<std::size_t>(kv) * 16;
    const int32_t left = ncols - 16 * kv;
    if (left >= 16) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o), _mm512_cvtsepi32_epi8(res));
    } else {
      _mm_mask_storeu_epi8(o, static_cast<__mmask16>((1u << left) - 1u),
                           _mm512_cvtsepi32_epi8(res));
    }
  }
};

// The constants for e = -shift in [0, 23], multiplier > 0 (the dispatchers
// check).
ATTN_TILE_T inline StoreRq make_store_rq(const int32_t* offsets, int32_t multiplier, int e,
                                         int32_t out_zp, int8_t* out, std::size_t out_stride,
                                         int32_t ncols) {
  StoreRq st;
  st.vshift = _mm_cvtsi32_si128(31 + e);
  st.mult = _mm512_set1_epi64(multiplier);
  st.two31 = _mm512_set1_epi64(int64_t{1} << 31);
  st.round_neg = static_cast<__mmask8>(e > 0 ? 0xff : 0);
  const int64_t c = e > 0 ? int64_t{1} << (e - 1) : 0;
  st.k = _mm512_set1_epi64((int64_t{1} << 30) + c * (int64_t{1} << 31) +
                           static_cast<int64_t>(out_zp) * (int64_t{1} << (31 + e)));
  st.thr = _mm512_set1_epi64(-(int64_t{1} << 30));
  st.offsets = offsets;
  st.out = out;
  st.stride = out_stride;
  st.ncols = ncols;
  return st;
}

// Whole 16-key blocks written (the contract of qk_tile_s8_rq).
ATTN_TILE_T inline void qk_tile_rq(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                                   const int32_t* ksum, int32_t nkeys, int32_t n,
                                   const int32_t* offsets, int32_t multiplier, int e,
                                   int32_t out_zp, int8_t* out, std::size_t out_stride) {
  qk_tile_emit(u, nq, zp, kpacked, ksum, nkeys, n,
               make_store_rq(offsets, multiplier, e, out_zp, out, out_stride, INT32_MAX));
}

// Exactly n bytes per row (the last vector's store masked).
ATTN_TILE_T inline void pv_tile_rq(const uint8_t* w, std::size_t w_stride, int32_t nq,
                                   const int8_t* vpacked, int32_t nrows, int32_t n,
                                   const int32_t* offsets, int32_t multiplier, int e,
                                   int32_t out_zp, int8_t* out, std::size_t out_stride) {
  pv_tile_emit(w, w_stride, nq, vpacked, nrows, n,
               make_store_rq(offsets, multiplier, e, out_zp, out, out_stride, n));
}
