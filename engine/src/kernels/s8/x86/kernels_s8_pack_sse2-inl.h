// A fragment of kernels_s8_x86.cpp, included by that one translation unit
// only: its definitions cannot be duplicated across units.
// NOLINTBEGIN(misc-definitions-in-headers)
// x86 int8 packing (kpack_s8, vpack_s8, qtile_s8_pack) at levels 1 and 2:
// SSE2 (part of kernels_s8_x86.cpp, inside its anonymous namespace).

// unpacklo (lo) and unpackhi (hi) of a and b in units of kUnit bytes.
template <int kUnit>
inline void unpack_sse2(__m128i a, __m128i b, __m128i* lo, __m128i* hi) {
  static_assert(kUnit == 1 || kUnit == 2 || kUnit == 4 || kUnit == 8, "a unit of 1, 2, 4 or 8");
  if (kUnit == 1) {
    *lo = _mm_unpacklo_epi8(a, b);
    *hi = _mm_unpackhi_epi8(a, b);
  } else if (kUnit == 2) {
    *lo = _mm_unpacklo_epi16(a, b);
    *hi = _mm_unpackhi_epi16(a, b);
  } else if (kUnit == 4) {
    *lo = _mm_unpacklo_epi32(a, b);
    *hi = _mm_unpackhi_epi32(a, b);
  } else {
    *lo = _mm_unpacklo_epi64(a, b);
    *hi = _mm_unpackhi_epi64(a, b);
  }
}

// Four 16-byte rows at p (stride bytes apart) interleaved in units of kUnit
// bytes by two rounds of unpacks (1: bytes, vpack_s8's 4-row groups; 4:
// dwords, a 4x4 transpose of dwords for kpack_s8): o[0..3] are the 64 bytes
// in order.
template <int kUnit>
inline void interleave4_sse2(const int8_t* p, std::size_t stride, __m128i* o) {
  __m128i r[4];
  for (int t = 0; t < 4; ++t) {
    r[t] =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + static_cast<std::size_t>(t) * stride));
  }
  __m128i lo01, hi01, lo23, hi23;
  unpack_sse2<kUnit>(r[0], r[1], &lo01, &hi01);
  unpack_sse2<kUnit>(r[2], r[3], &lo23, &hi23);
  unpack_sse2<2 * kUnit>(lo01, lo23, &o[0], &o[1]);
  unpack_sse2<2 * kUnit>(hi01, hi23, &o[2], &o[3]);
}

// The packings at levels 1 and 2 (level 3 has the AVX-512 ones,
// kernels_s8_pack_avx512-inl.h), in SSE2 (baseline x86-64). vpack_s8: 4 rows
// x 16 columns interleaved by two rounds of unpacks into one 64-byte block;
// edges scalar.
void vpack_sse2(const int8_t* v, std::size_t stride, int32_t nrows, int32_t n, int8_t* packed) {
  const int32_t groups = (nrows + 3) / 4;
  const int32_t cblocks = (n + 15) / 16;
  const int32_t full_g = nrows / 4;
  const int32_t full_cb = n / 16;
  for (int32_t g = 0; g < groups; ++g) {
    const int8_t* r0 = v + static_cast<std::size_t>(4 * g) * stride;
    for (int32_t cb = 0; cb < cblocks; ++cb) {
      const std::size_t block = static_cast<std::size_t>(g) * static_cast<std::size_t>(cblocks) +
                                static_cast<std::size_t>(cb);
      int8_t* d = packed + block * 64;
      if (g < full_g && cb < full_cb) {
        __m128i o[4];
        interleave4_sse2<1>(r0 + 16 * static_cast<std::size_t>(cb), stride, o);
        for (int t = 0; t < 4; ++t) _mm_storeu_si128(reinterpret_cast<__m128i*>(d) + t, o[t]);
        continue;
      }
      vpack_s8_block_ref(v, stride, nrows, n, g, cb, d);
    }
  }
}

// sum_c x[c] of n signed bytes: vpsadbw of x ^ 0x80 (= x + 128) per 16
// bytes, less 128 per byte; the tail scalar.
int32_t sum_s8_sse2(const int8_t* x, int32_t n) {
  const __m128i flip = _mm_set1_epi8(static_cast<char>(0x80));
  __m128i acc = _mm_setzero_si128();
  int32_t c = 0;
  for (; c + 16 <= n; c += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + c));
    acc = _mm_add_epi64(acc, _mm_sad_epu8(_mm_xor_si128(v, flip), _mm_setzero_si128()));
  }
  int32_t s = _mm_cvtsi128_si32(acc) + _mm_cvtsi128_si32(_mm_srli_si128(acc, 8)) - 128 * c;
  for (; c < n; ++c) s += x[c];
  return s;
}

// kpack_s8 with SSE2: in a full block of 16 keys, 4 keys x 16 columns (4
// groups) at a time are a 4x4 transpose of dwords, one 16-byte store per
// group; the groups past the last 16 columns, and a partial last block,
// as kpack_s8_ref.
void kpack_sse2(const int8_t* k, std::size_t k_stride, int32_t nkeys, int32_t n, int8_t* packed,
                int32_t* ksum) {
  const int32_t groups = (n + 3) / 4;
  const int32_t full_blocks = nkeys / 16;
  const int32_t chunks = n / 16;  // 16-column chunks: groups 4 ch .. 4 ch + 3
  const std::size_t bstride = static_cast<std::size_t>(groups) * 64;
  for (int32_t b = 0; b < full_blocks; ++b) {
    int8_t* pb = packed + static_cast<std::size_t>(b) * bstride;
    const int8_t* kb = k + static_cast<std::size_t>(16 * b) * k_stride;
    for (int32_t r0 = 0; r0 < 16; r0 += 4) {
      const int8_t* k0 = kb + static_cast<std::size_t>(r0) * k_stride;
      for (int32_t ch = 0; ch < chunks; ++ch) {
        __m128i o[4];
        interleave4_sse2<4>(k0 + 16 * static_cast<std::size_t>(ch), k_stride, o);
        // Group 4 ch + t gets keys r0 .. r0 + 3 of its 4 columns.
        int8_t* d = pb + static_cast<std::size_t>(4 * ch) * 64 + static_cast<std::size_t>(r0) * 4;
        for (int t = 0; t < 4; ++t) _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 64 * t), o[t]);
      }
    }
    for (int32_t r = 0; r < 16; ++r) {
      const int8_t* kj = kb + static_cast<std::size_t>(r) * k_stride;
      ksum[16 * b + r] = sum_s8_sse2(kj, n);
      for (int32_t g = 4 * chunks; g < groups; ++g) {
        int8_t* d = pb + static_cast<std::size_t>(g) * 64 + static_cast<std::size_t>(r) * 4;
        for (int32_t t = 0; t < 4; ++t) d[t] = 4 * g + t < n ? kj[4 * g + t] : int8_t{0};
      }
    }
  }
  if (full_blocks * 16 < nkeys) {
    const auto done = static_cast<std::size_t>(full_blocks);
    kpack_s8_ref(k + done * 16 * k_stride, k_stride, nkeys - full_blocks * 16, n,
                 packed + done * bstride, ksum + done * 16);
  }
}

// qtile_s8_pack with SSE2: u = q ^ 0x80 and its sum (vpsadbw) 16 bytes at a
// time; the tail scalar.
void qtile_pack_sse2(const int8_t* q, std::size_t q_stride, int32_t nq, int32_t zp, int32_t n,
                     uint8_t* u, int32_t* qsum) {
  const std::size_t row = round_up_s8(static_cast<std::size_t>(n), 4);
  const __m128i flip = _mm_set1_epi8(static_cast<char>(0x80));
  for (int32_t i = 0; i < nq; ++i) {
    const int8_t* qi = q + static_cast<std::size_t>(i) * q_stride;
    uint8_t* ui = u + static_cast<std::size_t>(i) * row;
    __m128i acc = _mm_setzero_si128();
    int32_t c = 0;
    for (; c + 16 <= n; c += 16) {
      const __m128i x =
          _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(qi + c)), flip);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(ui + c), x);
      acc = _mm_add_epi64(acc, _mm_sad_epu8(x, _mm_setzero_si128()));
    }
    int32_t s = _mm_cvtsi128_si32(acc) + _mm_cvtsi128_si32(_mm_srli_si128(acc, 8)) - 128 * c;
    for (; c < n; ++c) {
      ui[c] = static_cast<uint8_t>(static_cast<uint8_t>(qi[c]) ^ 0x80u);
      s += qi[c];
    }
    for (std::size_t e = static_cast<std::size_t>(n); e < row; ++e) ui[e] = 0;
    qsum[i] = s - zp * n;
  }
}
// NOLINTEND(misc-definitions-in-headers)
