// A fragment of kernels_s8_x86.cpp, included by that one translation unit
// only: its definitions cannot be duplicated across units.
// NOLINTBEGIN(misc-definitions-in-headers)
// x86 int8 softmax rows at level 3 with AVX512_VBMI byte tables (vpermi2b),
// from 64 columns on (part of kernels_s8_x86.cpp, inside its anonymous
// namespace).

ATTN_T_AVX512VBMI inline __m512i lut256(const __m512i* t, __m512i d) {
  const __m512i lo = _mm512_permutex2var_epi8(t[0], d, t[1]);
  const __m512i hi = _mm512_permutex2var_epi8(t[2], d, t[3]);
  return _mm512_mask_blend_epi8(_mm512_movepi8_mask(d), lo, hi);
}

// The r(d) planes depend only on the table and diff_min: built once per
// table (per row here, once per call by the tiled core). False when some kept
// table[d] is negative or r(d) >= 2^24 (not a prepared table): the gather
// kernel then.
ATTN_T_AVX512 bool softmax_lut_planes_avx512(const int32_t* table, int32_t diff_min,
                                             uint8_t* planes) {
  const __m512i vdmin = _mm512_set1_epi32(diff_min);
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m128i e12 = _mm_cvtsi32_si128(12);
  const __m512i mask12 = _mm512_set1_epi32(4095), half12 = _mm512_set1_epi32(2047);
  __m512i big = _mm512_setzero_si512(), neg = _mm512_setzero_si512();
  // 64 d at a time, each plane's 64 bytes joined in registers and stored
  // once: vpmovdb to memory is slow on AMD, and the 16-byte stores reloaded
  // as 64 bytes (softmax_lut_stats_avx512) would stall store forwarding.
  for (int32_t d0 = 0; d0 < 256; d0 += 64) {
    __m128i part[3][4];
    for (int k = 0; k < 4; ++k) {
      const int32_t d = d0 + 16 * k;
      const __m512i dv = _mm512_add_epi32(iota, _mm512_set1_epi32(d));
      // Kept when -d >= diff_min.
      const __mmask16 keep =
          _mm512_cmpge_epi32_mask(_mm512_sub_epi32(_mm512_setzero_si512(), dv), vdmin);
      const __m512i x = _mm512_maskz_loadu_epi32(keep, table + d);
      const __m512i r = _mm512_maskz_mov_epi32(keep, rdbp_avx512(x, e12, mask12, half12));
      big = _mm512_or_si512(big, r);
      neg = _mm512_or_si512(neg, x);
      part[0][k] = _mm512_cvtepi32_epi8(r);
      part[1][k] = _mm512_cvtepi32_epi8(_mm512_srli_epi32(r, 8));
      part[2][k] = _mm512_cvtepi32_epi8(_mm512_srli_epi32(r, 16));
    }
    for (int b = 0; b < 3; ++b) {
      const __m512i v = _mm512_inserti32x4(
          _mm512_inserti32x4(_mm512_inserti32x4(_mm512_castsi128_si512(part[b][0]), part[b][1], 1),
                             part[b][2], 2),
          part[b][3], 3);
      _mm512_storeu_si512(planes + 256 * b + d0, v);
    }
  }
  return _mm512_test_epi32_mask(big, _mm512_set1_epi32(static_cast<int32_t>(0xff000000u))) == 0 &&
         _mm512_cmplt_epi32_mask(neg, _mm512_setzero_si512()) == 0;
}

// One row from prepared planes. kWeights: out receives the unsigned weights
// w = o + 128 (0 for n <= c < n_pad) and the result is their sum; else out
// receives the int8 codes and the result is 0. -1: fall back (a reciprocal
// <= 0: srdhm's saturating case, not in practice).
// dcut (optional): dcut[e - 23] for output exponents e in [23, 31] bounds
// the d whose o(d) can exceed -128: |table[d]| < 2^(e-1) for every d >= it,
// and then |srdhm(scale, table[d])| <= |table[d]| rounds (RoundingDivideByPOT
// by e) to 0, the code -128.
ATTN_T_AVX512 void softmax_lut_dcut(const int32_t* table, uint16_t* dcut) {
  // |table[d]| >= 2^(e-1) <=> e <= bits(|table[d]|) (its bit length): dcut
  // = 1 + the largest d reaching e (0 if none). 16 d at a time from the top:
  // the e a vector's largest magnitude reaches and no higher d did take the
  // vector's highest d at or above 2^(e-1) (|INT32_MIN| = 2^31 unsigned).
  int found = 22;  // every e <= found has its cut
  for (int e = 23; e <= 31; ++e) dcut[e - 23] = 0;
  for (int32_t d0 = 240; d0 >= 0 && found < 31; d0 -= 16) {
    const __m512i mag = _mm512_abs_epi32(_mm512_loadu_si512(table + d0));
    const uint32_t mx = _mm512_reduce_max_epu32(mag);
    const int bits = mx == 0 ? 0 : 32 - __builtin_clz(mx);
    const int top = bits > 31 ? 31 : bits;
    for (int e = found + 1; e <= top; ++e) {
      const __mmask16 m =
          _mm512_cmpge_epu32_mask(mag, _mm512_set1_epi32(static_cast<int32_t>(1u << (e - 1))));
      dcut[e - 23] = static_cast<uint16_t>(d0 + 32 - __builtin_clz(static_cast<uint32_t>(m)));
    }
    if (top > found) found = top;
  }
}

// The r(d) plane sums of one row (d = max - x over its n columns), combined
// lane-wise: s0 + s1 2^8 + s2 2^16 per int64 lane (< 2^40 each). A plane
// whose entries from d = 128 on are all 0, or any plane when the row's d
// stay below 128, takes one vpermi2b zero-masked on d's top bit. Whole
// 64-column vectors first (no column mask), then the tail (zero-masked past
// n). kShort: plane b's lookup is the lower half only (low_only or upper
// zero), per plane.
template <bool kShort>
ATTN_T_AVX512VBMI inline __m512i plane_lookup(const __m512i* t, __m512i d, __mmask64 m,
                                              __mmask64 klo) {
  if constexpr (kShort) {
    return _mm512_maskz_permutex2var_epi8(klo, t[0], d, t[1]);
  } else {
    return _mm512_maskz_mov_epi8(m, lut256(t, d));
  }
}

template <bool kShort0, bool kShort1, bool kShort2>
ATTN_T_AVX512VBMI inline void plane_sums_step(const __m512i (*p)[4], __m512i d, __mmask64 m,
                                              __m512i* s) {
  const __m512i zero = _mm512_setzero_si512();
  const __mmask64 klo = m & ~_mm512_movepi8_mask(d);
  s[0] = _mm512_add_epi64(s[0], _mm512_sad_epu8(plane_lookup<kShort0>(p[0], d, m, klo), zero));
  s[1] = _mm512_add_epi64(s[1], _mm512_sad_epu8(plane_lookup<kShort1>(p[1], d, m, klo), zero));
  s[2] = _mm512_add_epi64(s[2], _mm512_sad_epu8(plane_lookup<kShort2>(p[2], d, m, klo), zero));
}

template <bool kShort0, bool kShort1, bool kShort2>
ATTN_T_AVX512VBMI inline __m512i plane_sums_loop(const __m512i (*p)[4], const int8_t* in, int32_t n,
                                                 __m512i vmax8) {
  __m512i s[3] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
  int32_t i = 0;
  for (; i + 64 <= n; i += 64) {
    plane_sums_step<kShort0, kShort1, kShort2>(
        p, _mm512_sub_epi8(vmax8, _mm512_loadu_si512(in + i)), ~__mmask64{0}, s);
  }
  if (i < n) {
    const __mmask64 m = tail_mask64(n - i);
    plane_sums_step<kShort0, kShort1, kShort2>(
        p, _mm512_sub_epi8(vmax8, _mm512_maskz_loadu_epi8(m, in + i)), m, s);
  }
  return _mm512_add_epi64(
      s[0], _mm512_add_epi64(_mm512_slli_epi64(s[1], 8), _mm512_slli_epi64(s[2], 16)));
}

ATTN_T_AVX512VBMI inline __m512i plane_sums_row(const __m512i (*p)[4], const bool* upper_zero,
                                                const int8_t* in, int32_t n, int32_t max_in_row,
                                                int32_t range) {
  const __m512i vmax8 = _mm512_set1_epi8(static_cast<char>(max_in_row));
  const bool low_only = range < 128;
  const bool short1 = low_only || upper_zero[1];
  const bool short2 = low_only || upper_zero[2];
  if ((low_only || upper_zero[0]) && short1 && short2) {
    return plane_sums_loop<true, true, true>(p, in, n, vmax8);
  }
  if (short1 && short2) return plane_sums_loop<false, true, true>(p, in, n, vmax8);
  if (short2) return plane_sums_loop<false, false, true>(p, in, n, vmax8);
  return plane_sums_loop<false, false, false>(p, in, n, vmax8);
}

// Row statistics of the LUT softmax: the row max, max - min, and the Q12.19
// sum of exps (wrapping as the reference's int32 sum).
struct LutRowStats {
  int32_t max = 0, range = 0, sum = 0;
};
ATTN_T_AVX512VBMI LutRowStats softmax_lut_stats_avx512(const uint8_t* planes, const int8_t* in,
                                                       int32_t n) {
  // Row max and min (d = max - x never exceeds max - min).
  __m512i mx = _mm512_set1_epi8(-128), mn = _mm512_set1_epi8(127);
  for (int32_t i = 0; i < n; i += 64) {
    const __mmask64 m = tail_mask64(n - i);
    mx = _mm512_max_epi8(mx, _mm512_mask_loadu_epi8(mx, m, in + i));
    mn = _mm512_min_epi8(mn, _mm512_mask_loadu_epi8(mn, m, in + i));
  }
  const __m256i x256 =
      _mm256_max_epi8(_mm512_castsi512_si256(mx), _mm512_extracti64x4_epi64(mx, 1));
  const __m128i x128 =
      _mm_max_epi8(_mm256_castsi256_si128(x256), _mm256_extracti128_si256(x256, 1));
  const int32_t max_in_row = _mm512_reduce_max_epi32(_mm512_cvtepi8_epi32(x128));
  const __m256i n256 =
      _mm256_min_epi8(_mm512_castsi512_si256(mn), _mm512_extracti64x4_epi64(mn, 1));
  const __m128i n128 =
      _mm_min_epi8(_mm256_castsi256_si128(n256), _mm256_extracti128_si256(n256, 1));
  const int32_t range = max_in_row - _mm512_reduce_min_epi32(_mm512_cvtepi8_epi32(n128));
  __m512i p[3][4];
  for (int b = 0; b < 3; ++b) {
    for (int t = 0; t < 4; ++t) p[b][t] = _mm512_loadu_si512(planes + 256 * b + 64 * t);
  }
  // A plane whose entries from d = 128 on are all 0 (the upper planes of
  // fast-decaying tables) takes one vpermi2b instead of two and a blend.
  bool upper_zero[3];
  for (int b = 0; b < 3; ++b) {
    upper_zero[b] = _mm512_test_epi64_mask(_mm512_or_si512(p[b][2], p[b][3]),
                                           _mm512_or_si512(p[b][2], p[b][3])) == 0;
  }
  // The three plane sums combined lane-wise (< 2^40 per lane), one reduction.
  const int64_t sum64 =
      _mm512_reduce_add_epi64(plane_sums_row(p, upper_zero, in, n, max_in_row, range));
  // Below 2^31 for n <= 4095 (each term < 2^24 ... and in practice <= 2^19);
  // the reference sums in int32, so wrap as it would.
  const int32_t sum_of_exps =
      static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(sum64)));
  LutRowStats st;
  st.max = max_in_row;
  st.range = range;
  st.sum = sum_of_exps;
  return st;
}

// The weight table of a row, w(d) = o(d) + 128 for d in [0, 256) as four
// 64-byte vectors (64 d each), from its reciprocal: shifted_scale > 0 and
// exponent E = num_bits_over_unit + 23 in [23, 31]. With x = table[d] >= 0
// (softmax_lut_planes_avx512 checks) and P = x scale in [0, 2^62), both
// roundings see non-negative values (srdhm's nudge is 2^30, RoundingDivideByPOT
// has no sign correction), so as in requantize64_avx512
//   o(d) + 128 = floor((P + 2^30 + 2^(E-1) 2^31) / 2^(31+E))  in [0, 257]
// (|sum| < 2^63), and the weight min(o(d) + 128, 255) is the unsigned
// saturation of vpackusdw / vpackuswb. d >= dend (past the row's range, cut
// by diff_min, or past the dcut bound) read x = 0 (masked loads), weight 0.
// Even d multiply in place (vpmuludq reads each qword's low dword), odd d
// from the table loaded one entry on (their qwords' low dwords); a
// merge-masked vpshufd interleaves them, two packs and one dword permute
// order 64 d.
ATTN_T_AVX512 inline void softmax_lut_weights(const int32_t* table, int32_t dend,
                                              int32_t shifted_scale, int exponent, __m512i* w) {
  const __m512i scale = _mm512_set1_epi64(shifted_scale);
  const __m512i k = _mm512_set1_epi64((int64_t{1} << 30) + (int64_t{1} << (30 + exponent)));
  const __m128i sh = _mm_cvtsi32_si128(31 + exponent);
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const auto lanes = [](int32_t left) {
    return static_cast<__mmask16>(left >= 16 ? 0xffffu : left <= 0 ? 0u : (1u << left) - 1u);
  };
  for (int t = 0; t < 4; ++t) {
    if (64 * t >= dend) {
      w[t] = _mm512_setzero_si512();
      continue;
    }
    __m512i part[4];
    for (int j = 0; j < 4; ++j) {
      const int32_t d = 64 * t + 16 * j;
      const int32_t left = dend - d;  // lanes d + i < dend of the even / odd loads
      if (left <= 0) {
        part[j] = _mm512_setzero_si512();
        continue;
      }
      // Odd entries d + 1 + 2 i < dend <= 256: never past the table.
      const __m512i xe = _mm512_maskz_loadu_epi32(lanes(left), table + d);
      const __m512i xo = _mm512_maskz_loadu_epi32(lanes(left - 1), table + d + 1);
      const __m512i re = _mm512_srl_epi64(_mm512_add_epi64(_mm512_mul_epu32(xe, scale), k), sh);
      const __m512i ro = _mm512_srl_epi64(_mm512_add_epi64(_mm512_mul_epu32(xo, scale), k), sh);
      part[j] = _mm512_mask_shuffle_epi32(re, static_cast<__mmask16>(0xaaaa), ro,
                                          static_cast<_MM_PERM_ENUM>(0xa0));
    }
    w[t] =
        _mm512_permutexvar_epi32(order, _mm512_packus_epi16(_mm512_packus_epi32(part[0], part[1]),
                                                            _mm512_packus_epi32(part[2], part[3])));
  }
}

// The weights w(d) of a row's columns looked up (plane_lookup<kLow>: the
// lower half of w only, or all of it) into out, zero to n_pad, and their
// sums per int64 lane: whole 64-column vectors first (no column mask), then
// the rest zero-masked past n.
template <bool kLow>
ATTN_T_AVX512VBMI inline __m512i weights_out_loop(const __m512i* w, __m512i vmax8, const int8_t* in,
                                                  int8_t* out, int32_t n, int32_t n_pad) {
  const __m512i zero = _mm512_setzero_si512();
  __m512i sw = zero;
  int32_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i d = _mm512_sub_epi8(vmax8, _mm512_loadu_si512(in + i));
    const __m512i v = plane_lookup<kLow>(w, d, ~__mmask64{0}, ~_mm512_movepi8_mask(d));
    sw = _mm512_add_epi64(sw, _mm512_sad_epu8(v, zero));
    _mm512_storeu_si512(out + i, v);
  }
  for (; i < n_pad; i += 64) {
    const __mmask64 m = tail_mask64(n - i);  // all-zero past n
    const __m512i d = _mm512_sub_epi8(vmax8, _mm512_maskz_loadu_epi8(m, in + i));
    const __m512i v = plane_lookup<kLow>(w, d, m, m & ~_mm512_movepi8_mask(d));
    sw = _mm512_add_epi64(sw, _mm512_sad_epu8(v, zero));
    _mm512_mask_storeu_epi8(out + i, tail_mask64(n_pad - i), v);
  }
  return sw;
}

// The outputs of a row from its statistics and reciprocal (shifted_scale >
// 0, exponent = num_bits_over_unit + 23). See softmax_lut_row_avx512.
// kWeights: returns the weights' sums per int64 lane (the caller reduces).
template <bool kWeights>
ATTN_T_AVX512VBMI __m512i softmax_lut_out_avx512(const uint16_t* dcut, const int32_t* table,
                                                 int32_t diff_min, const int8_t* in, int8_t* out,
                                                 int32_t n, int32_t n_pad, LutRowStats st,
                                                 int32_t shifted_scale, int exponent) {
  const __m512i vmax8 = _mm512_set1_epi8(static_cast<char>(st.max));
  const __m512i zero = _mm512_setzero_si512();
  if (exponent > 31) {
    // Every code -128: every weight 0.
    std::memset(out, kWeights ? 0 : 0x80, static_cast<std::size_t>(kWeights ? n_pad : n));
    return zero;
  }
  // w(d) for the d this row has (d <= range; the rest are never looked up),
  // kept (-d >= diff_min) and below the cut; the rest weigh 0.
  int32_t dend = st.range + 1;
  if (diff_min > 1 - dend) dend = 1 - diff_min;
  if (dcut != nullptr && dcut[exponent - 23] < dend) dend = dcut[exponent - 23];
  __m512i w[4];
  softmax_lut_weights(table, dend, shifted_scale, exponent, w);
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  if (!kWeights) {
    for (int32_t i = 0; i < n; i += 64) {
      const __mmask64 m = tail_mask64(n - i);
      const __m512i d = _mm512_sub_epi8(vmax8, _mm512_maskz_loadu_epi8(m, in + i));
      _mm512_mask_storeu_epi8(out + i, m, _mm512_xor_si512(lut256(w, d), flip));
    }
    return zero;
  }
  // dend <= 128: w(d) = 0 from d = 128 on, the lower half serves (one
  // vpermi2b zero-masked on d's top bit).
  if (dend <= 128) return weights_out_loop<true>(w, vmax8, in, out, n, n_pad);
  return weights_out_loop<false>(w, vmax8, in, out, n, n_pad);
}

template <bool kWeights>
ATTN_T_AVX512VBMI int32_t softmax_lut_row_avx512(const uint8_t* planes, const uint16_t* dcut,
                                                 const int32_t* table, int32_t diff_min,
                                                 const int8_t* in, int8_t* out, int32_t n,
                                                 int32_t n_pad) {
  const LutRowStats st = softmax_lut_stats_avx512(planes, in, n);
  int num_bits_over_unit = 0;
  const int32_t shifted_scale = q::get_reciprocal(st.sum, 12, &num_bits_over_unit);
  if (shifted_scale <= 0) return -1;  // srdhm's saturating case (not in practice)
  const __m512i sw = softmax_lut_out_avx512<kWeights>(dcut, table, diff_min, in, out, n, n_pad, st,
                                                      shifted_scale, num_bits_over_unit + 31 - 8);
  return static_cast<int32_t>(_mm512_reduce_add_epi64(sw));
}

// gemmlowp's one_over_one_plus_x_for_x_in_0_1 (see q::) on 16 lanes, for
// a in [0, 2^31): the Newton steps of 16 rows' reciprocals at once.
ATTN_T_AVX512 inline __m512i srdhm_vv_avx512(__m512i a, __m512i b) {
  const __m512i nudge = _mm512_set1_epi64(int64_t{1} << 30);
  const __m512i pe = _mm512_add_epi64(_mm512_mul_epi32(a, b), nudge);
  const __m512i po =
      _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(b, 32)), nudge);
  const __m512i r = _mm512_mask_blend_epi32(static_cast<__mmask16>(0xaaaa),
                                            _mm512_srli_epi64(pe, 31),
                                            _mm512_slli_epi64(_mm512_srli_epi64(po, 31), 32));
  const __m512i vmin = _mm512_set1_epi32(INT32_MIN);
  const __mmask16 both = _mm512_cmpeq_epi32_mask(a, vmin) & _mm512_cmpeq_epi32_mask(b, vmin);
  return _mm512_mask_mov_epi32(r, both, _mm512_set1_epi32(INT32_MAX));
}

template <int kExp>
ATTN_T_AVX512 inline __m512i saturating_shl_avx512(__m512i x) {
  const __m512i thr = _mm512_set1_epi32(static_cast<int32_t>((int64_t{1} << (31 - kExp)) - 1));
  const __mmask16 hi = _mm512_cmpgt_epi32_mask(x, thr);
  const __mmask16 lo = _mm512_cmplt_epi32_mask(x, _mm512_sub_epi32(_mm512_setzero_si512(), thr));
  __m512i r = _mm512_slli_epi32(x, kExp);
  r = _mm512_mask_mov_epi32(r, hi, _mm512_set1_epi32(INT32_MAX));
  return _mm512_mask_mov_epi32(r, lo, _mm512_set1_epi32(INT32_MIN));
}

ATTN_T_AVX512 __m512i one_over_one_plus_x_avx512(__m512i a) {
  // rounding_half_sum(a, INT32_MAX) for a >= 0: (a + 2^31) / 2 = (a >> 1) + 2^30.
  const __m512i half_denominator =
      _mm512_add_epi32(_mm512_srli_epi32(a, 1), _mm512_set1_epi32(int32_t{1} << 30));
  const __m512i k48over17 = _mm512_set1_epi32(1515870810);
  const __m512i kneg32over17 = _mm512_set1_epi32(-1010580540);
  const __m512i one_q2 = _mm512_set1_epi32(int32_t{1} << 29);
  __m512i x = _mm512_add_epi32(k48over17, srdhm_vv_avx512(half_denominator, kneg32over17));
  for (int i = 0; i < 3; ++i) {
    const __m512i one_minus = _mm512_sub_epi32(one_q2, srdhm_vv_avx512(half_denominator, x));
    x = _mm512_add_epi32(x, saturating_shl_avx512<2>(srdhm_vv_avx512(x, one_minus)));
  }
  return saturating_shl_avx512<1>(x);
}

ATTN_T_AVX512VBMI bool softmax_lut_avx512(const int32_t* table, int32_t diff_min, const int8_t* in,
                                          int8_t* out, int32_t n) {
  alignas(64) uint8_t planes[768];
  if (!softmax_lut_planes_avx512(table, diff_min, planes)) return false;
  return softmax_lut_row_avx512<false>(planes, nullptr, table, diff_min, in, out, n, n) >= 0;
}
// NOLINTEND(misc-definitions-in-headers)
