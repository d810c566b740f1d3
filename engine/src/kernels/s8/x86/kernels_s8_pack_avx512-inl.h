// The tiled core's packings (kpack_s8, vpack_s8, qtile_s8_pack; layouts in
// kernels/s8/kernels_s8.h) at the AVX-512 VNNI level: whole 64-byte vectors,
// edges by byte-masked loads (zeros past the rows / columns) and stores, so
// no scalar edge code. Included by kernels_s8_x86.cpp inside its anonymous
// namespace (ATTN_T_AVX512, tail_mask64 defined). No include guard: included
// once.

// kpack_s8: per block of 16 keys and 16-column chunk, key r's 16 bytes
// (4 dwords: groups 4 ch .. 4 ch + 3) go to 128-bit lane r % 4 of R[r / 4];
// two rounds of unpacks give U_g (group g) with key 4 j + L at dword 4 L + j,
// one vpermd puts key r at dword r: the 64-byte block of group g. ksum of the
// 16 keys is vpdpbusd of the bytes 1 with every group vector (the 4 signed
// bytes of each lane summed).
ATTN_T_AVX512 inline __m128i kpack_row16(const int8_t* p, __mmask16 cm, bool present) {
  return present ? _mm_maskz_loadu_epi8(cm, p) : _mm_setzero_si128();
}
ATTN_T_AVX512 inline void kpack_avx512(const int8_t* k, std::size_t k_stride, int32_t nkeys,
                                       int32_t n, int8_t* packed, int32_t* ksum) {
  const int32_t groups = (n + 3) / 4;
  const int32_t blocks = (nkeys + 15) / 16;
  const std::size_t bstride = static_cast<std::size_t>(groups) * 64;
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const __m512i ones = _mm512_set1_epi8(1);
  for (int32_t b = 0; b < blocks; ++b) {
    int8_t* pb = packed + static_cast<std::size_t>(b) * bstride;
    const int32_t rows = nkeys - 16 * b < 16 ? nkeys - 16 * b : 16;
    const int8_t* kb = k + static_cast<std::size_t>(16 * b) * k_stride;
    __m512i sum = _mm512_setzero_si512();
    for (int32_t c0 = 0; c0 < n; c0 += 16) {
      const int32_t cl = n - c0 < 16 ? n - c0 : 16;
      const auto cm = static_cast<__mmask16>((1u << cl) - 1u);
      __m512i r4[4];
      for (int i = 0; i < 4; ++i) {
        const int8_t* ki = kb + static_cast<std::size_t>(4 * i) * k_stride +
                           static_cast<std::size_t>(c0);
        const int32_t left = rows - 4 * i;
        r4[i] = _mm512_inserti32x4(
            _mm512_inserti32x4(
                _mm512_inserti32x4(_mm512_castsi128_si512(kpack_row16(ki, cm, left > 0)),
                                   kpack_row16(ki + k_stride, cm, left > 1), 1),
                kpack_row16(ki + 2 * k_stride, cm, left > 2), 2),
            kpack_row16(ki + 3 * k_stride, cm, left > 3), 3);
      }
      const __m512i t0 = _mm512_unpacklo_epi32(r4[0], r4[1]);
      const __m512i t1 = _mm512_unpackhi_epi32(r4[0], r4[1]);
      const __m512i t2 = _mm512_unpacklo_epi32(r4[2], r4[3]);
      const __m512i t3 = _mm512_unpackhi_epi32(r4[2], r4[3]);
      const __m512i u[4] = {_mm512_unpacklo_epi64(t0, t2), _mm512_unpackhi_epi64(t0, t2),
                            _mm512_unpacklo_epi64(t1, t3), _mm512_unpackhi_epi64(t1, t3)};
      const int32_t g0 = c0 / 4;
      for (int g = 0; g < 4 && g0 + g < groups; ++g) {
        const __m512i blk = _mm512_permutexvar_epi32(order, u[g]);
        sum = _mm512_dpbusd_epi32(sum, ones, blk);
        _mm512_storeu_si512(pb + static_cast<std::size_t>(g0 + g) * 64, blk);
      }
    }
    _mm512_storeu_si512(ksum + 16 * b, sum);
  }
}

// vpack_s8: per group of 4 rows and 64-column chunk, byte then word unpacks
// of the 4 rows give X_p with, in 128-bit lane L, columns 4 p .. 4 p + 3 of
// block L (4 rows each); a 4 x 4 transpose of 128-bit lanes gives the blocks.
ATTN_T_AVX512 inline void vpack_avx512(const int8_t* v, std::size_t stride, int32_t nrows,
                                       int32_t n, int8_t* packed) {
  const int32_t groups = (nrows + 3) / 4;
  const int32_t cblocks = (n + 15) / 16;
  for (int32_t g = 0; g < groups; ++g) {
    const int8_t* r0 = v + static_cast<std::size_t>(4 * g) * stride;
    int8_t* pg = packed + static_cast<std::size_t>(g) * static_cast<std::size_t>(cblocks) * 64;
    for (int32_t c0 = 0; c0 < n; c0 += 64) {
      const __mmask64 cm = tail_mask64(n - c0);
      __m512i x[4];
      for (int t = 0; t < 4; ++t) {
        x[t] = 4 * g + t < nrows
                   ? _mm512_maskz_loadu_epi8(cm, r0 + static_cast<std::size_t>(t) * stride +
                                                     static_cast<std::size_t>(c0))
                   : _mm512_setzero_si512();
      }
      const __m512i ab_lo = _mm512_unpacklo_epi8(x[0], x[1]),
                    ab_hi = _mm512_unpackhi_epi8(x[0], x[1]);
      const __m512i ce_lo = _mm512_unpacklo_epi8(x[2], x[3]),
                    ce_hi = _mm512_unpackhi_epi8(x[2], x[3]);
      const __m512i p0 = _mm512_unpacklo_epi16(ab_lo, ce_lo),
                    p1 = _mm512_unpackhi_epi16(ab_lo, ce_lo);
      const __m512i p2 = _mm512_unpacklo_epi16(ab_hi, ce_hi),
                    p3 = _mm512_unpackhi_epi16(ab_hi, ce_hi);
      const __m512i y0 = _mm512_shuffle_i32x4(p0, p1, 0x44),
                    y1 = _mm512_shuffle_i32x4(p2, p3, 0x44);
      const __m512i y2 = _mm512_shuffle_i32x4(p0, p1, 0xee),
                    y3 = _mm512_shuffle_i32x4(p2, p3, 0xee);
      const __m512i o[4] = {_mm512_shuffle_i32x4(y0, y1, 0x88), _mm512_shuffle_i32x4(y0, y1, 0xdd),
                            _mm512_shuffle_i32x4(y2, y3, 0x88), _mm512_shuffle_i32x4(y2, y3, 0xdd)};
      const int32_t cb0 = c0 / 16;
      for (int l = 0; l < 4 && cb0 + l < cblocks; ++l) {
        _mm512_storeu_si512(pg + static_cast<std::size_t>(cb0 + l) * 64, o[l]);
      }
    }
  }
}

// qtile_s8_pack: u = q ^ 0x80 (0 past n, to round4(n)) and sum u (vpsadbw),
// 64 bytes at a time; qsum = sum u - 128 n - zp n.
ATTN_T_AVX512 inline void qtile_pack_avx512(const int8_t* q, std::size_t q_stride, int32_t nq,
                                            int32_t zp, int32_t n, uint8_t* u, int32_t* qsum) {
  const int32_t row = static_cast<int32_t>(round_up_s8(static_cast<std::size_t>(n), 4));
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  for (int32_t i = 0; i < nq; ++i) {
    const int8_t* qi = q + static_cast<std::size_t>(i) * q_stride;
    uint8_t* ui = u + static_cast<std::size_t>(i) * static_cast<std::size_t>(row);
    __m512i acc = _mm512_setzero_si512();
    for (int32_t c = 0; c < row; c += 64) {
      const __mmask64 m = tail_mask64(n - c);
      const __m512i x =
          _mm512_maskz_mov_epi8(m, _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, qi + c), flip));
      _mm512_mask_storeu_epi8(ui + c, tail_mask64(row - c), x);
      acc = _mm512_add_epi64(acc, _mm512_sad_epu8(x, _mm512_setzero_si512()));
    }
    qsum[i] = static_cast<int32_t>(_mm512_reduce_add_epi64(acc)) - (128 + zp) * n;
  }
}
