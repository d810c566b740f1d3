// softmax_s8_tile_w at level 3 with the AVX512_VBMI byte tables (see
// softmax_lut_stats_avx512 / softmax_lut_out_avx512 in kernels_s8_x86.cpp):
// the statistics of 16 rows at a time, their horizontal reductions batched.
// Included by kernels_s8_x86.cpp inside its anonymous namespace after those
// kernels. No include guard: included once.
//
// Per block of 16 rows:
//   1. each row's byte max and min over 64-column vectors (one vector per
//      row), then the 16 horizontal max / min reductions at once
//      (reduce16_*: pairs of rows share each shuffle step, 64 -> 32 -> 16
//      -> 8 -> 4 -> 1 bytes per row);
//   2. each row's Q12.19 sum of exps from the r(d) byte planes, d = max - x
//      (three vpsadbw sums per row as softmax_lut_stats_avx512, combined
//      lane-wise), then the 16 sums reduced at once (int32 wrap-around, as
//      the reference's int32 sum);
//   3. the reciprocals of the 16 sums in one vector pass
//      (one_over_one_plus_x_avx512), then each row's outputs
//      (softmax_lut_out_avx512).
// Row max, range and sum are those of softmax_lut_stats_avx512, so the bits
// are the row path's; 4. the 16 rows' weight sums reduced at once. Rows
// below 64 columns, with sum <= 0, or whose reciprocal is <= 0 (srdhm's
// saturating case) take softmax_s8_row_w.

// Pairwise steps shared by the reductions: v[16] (row t in v[t]) -> x[4],
// 128-bit lane L of x[i] holding row 4 i + L's partial (16 bytes).
template <class Op>
ATTN_T_AVX512 inline void reduce16_to_lanes(const __m512i* v, __m512i* x) {
  __m512i w[8];
  for (int i = 0; i < 8; ++i) {
    // low 256 bits: row 2i's halves combined, high: row 2i + 1's.
    w[i] = Op::apply(_mm512_shuffle_i64x2(v[2 * i], v[2 * i + 1], 0x44),
                     _mm512_shuffle_i64x2(v[2 * i], v[2 * i + 1], 0xee));
  }
  for (int i = 0; i < 4; ++i) {
    x[i] = Op::apply(_mm512_shuffle_i32x4(w[2 * i], w[2 * i + 1], 0x88),
                     _mm512_shuffle_i32x4(w[2 * i], w[2 * i + 1], 0xdd));
  }
}

// The next step, 16 -> 8 bytes: lane L of y[i] holds rows 8 i + L and
// 8 i + 4 + L.
template <class Op>
ATTN_T_AVX512 inline void reduce16_to_qwords(const __m512i* v, __m512i* y) {
  __m512i x[4];
  reduce16_to_lanes<Op>(v, x);
  y[0] = Op::apply(_mm512_unpacklo_epi64(x[0], x[1]), _mm512_unpackhi_epi64(x[0], x[1]));
  y[1] = Op::apply(_mm512_unpacklo_epi64(x[2], x[3]), _mm512_unpackhi_epi64(x[2], x[3]));
}

// 8 -> 4 bytes: each qword's two dwords combined (in both).
template <class Op>
ATTN_T_AVX512 inline __m512i fold_dwords(__m512i y) {
  return Op::apply(y, _mm512_shuffle_epi32(y, static_cast<_MM_PERM_ENUM>(0xb1)));
}

// Dwords 0 and 2 of each 128-bit lane of y0, then of y1: the four rows of
// a lane side by side, lane L = rows L, 4 + L, 8 + L, 12 + L.
ATTN_T_AVX512 inline __m512i even_dwords(__m512i y0, __m512i y1) {
  return _mm512_castps_si512(
      _mm512_shuffle_ps(_mm512_castsi512_ps(y0), _mm512_castsi512_ps(y1), 0x88));
}

// Lane L, dword j of z holds row 4 j + L: back to row order.
ATTN_T_AVX512 inline __m512i rows_in_order(__m512i z) {
  return _mm512_permutexvar_epi32(
      _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), z);
}

struct MaxI8 {
  ATTN_T_AVX512 static __m512i apply(__m512i a, __m512i b) { return _mm512_max_epi8(a, b); }
};
struct MinI8 {
  ATTN_T_AVX512 static __m512i apply(__m512i a, __m512i b) { return _mm512_min_epi8(a, b); }
};
struct AddI64 {
  ATTN_T_AVX512 static __m512i apply(__m512i a, __m512i b) { return _mm512_add_epi64(a, b); }
};
struct AddI32 {
  ATTN_T_AVX512 static __m512i apply(__m512i a, __m512i b) { return _mm512_add_epi32(a, b); }
};

// Lane t = the max (Op = MaxI8) or min (MinI8) of the 64 signed bytes of v[t].
template <class Op>
ATTN_T_AVX512 inline __m512i reduce16_i8(const __m512i* v) {
  __m512i y[2];
  reduce16_to_qwords<Op>(v, y);
  __m512i z = even_dwords(fold_dwords<Op>(y[0]), fold_dwords<Op>(y[1]));
  // 4 -> 1 byte (byte 0 of each dword), sign-extended.
  z = Op::apply(z, _mm512_srli_epi32(z, 16));
  z = Op::apply(z, _mm512_srli_epi32(z, 8));
  return rows_in_order(_mm512_srai_epi32(_mm512_slli_epi32(z, 24), 24));
}

// Lane t = the low 32 bits of the sum of the 8 int64 lanes of v[t].
ATTN_T_AVX512 inline __m512i reduce16_sum64_lo32(const __m512i* v) {
  __m512i y[2];
  reduce16_to_qwords<AddI64>(v, y);
  return rows_in_order(even_dwords(y[0], y[1]));  // the low dwords of the qwords
}

// Lane t = the sum of the 16 int32 lanes of v[t].
ATTN_T_AVX512 inline __m512i reduce16_sum32(const __m512i* v) {
  __m512i y[2];
  reduce16_to_qwords<AddI32>(v, y);
  return rows_in_order(even_dwords(fold_dwords<AddI32>(y[0]), fold_dwords<AddI32>(y[1])));
}

// The reciprocals of 16 rows' sums of exps at once, as q::get_reciprocal
// (12 integer bits): a row with ok[t] and sums[t] > 0 gets hp1[t] (clz plus
// one) and scale[t] = one_over_one_plus_x of a = (sums[t] << hp1[t]) - 2^31
// in [0, 2^31); the others get ok[t] = false, hp1[t] = 0 and the scale of
// a = 0.
ATTN_T_AVX512 inline void reciprocals16(const int32_t* sums, bool* ok, int* hp1, int32_t* scale) {
  alignas(64) int32_t a[16];
  for (int32_t t = 0; t < 16; ++t) {
    a[t] = 0;
    hp1[t] = 0;
    if (!ok[t] || sums[t] <= 0) {
      ok[t] = false;
      continue;
    }
    hp1[t] = q::clz32(static_cast<uint32_t>(sums[t]));
    a[t] = static_cast<int32_t>((static_cast<uint32_t>(sums[t]) << hp1[t]) - 0x80000000u);
  }
  _mm512_store_si512(scale, one_over_one_plus_x_avx512(_mm512_load_si512(a)));
}

// The arguments of softmax_s8_tile_w (see kernels/s8/kernels_s8.h): both
// tile kernels below and their steps read them from here.
struct TileRows {
  const void* lut;
  const int32_t* table;
  int32_t diff_min;
  int8_t* rows;
  std::size_t stride;
  int32_t nq;
  const int32_t* n;
  int32_t n_pad;
  int32_t* sum_w;
  ATTN_T_AVX512 int8_t* row(int32_t r) const { return rows + static_cast<std::size_t>(r) * stride; }
  // Row r through the one-row kernel: its weights in place, their sum.
  ATTN_T_AVX512 int32_t by_row(int32_t r) const {
    int8_t* p = row(r);
    return softmax_s8_row_w(lut, table, diff_min, p, reinterpret_cast<uint8_t*>(p), n[r], n_pad);
  }
};

// The byte tables' r(d) planes in registers, and which of them are all 0
// from d = 128 on.
struct LutPlanes {
  __m512i p[3][4];
  bool upper_zero[3];
};

ATTN_T_AVX512 inline void load_planes(const uint8_t* lut, LutPlanes* pl) {
  for (int b = 0; b < 3; ++b) {
    for (int t = 0; t < 4; ++t) pl->p[b][t] = _mm512_loadu_si512(lut + 256 * b + 64 * t);
    const __m512i up = _mm512_or_si512(pl->p[b][2], pl->p[b][3]);
    pl->upper_zero[b] = _mm512_test_epi64_mask(up, up) == 0;
  }
}

// One row's byte max and min vectors over its nr >= 64 columns, from the
// neutral vectors in *mx, *mn.
ATTN_T_AVX512 inline void row_max_min64(const int8_t* row, int32_t nr, __m512i* mx, __m512i* mn) {
  __m512i xmax = *mx, xmin = *mn;
  int32_t i = 0;
  for (; i + 64 <= nr; i += 64) {
    const __m512i x = _mm512_loadu_si512(row + i);
    xmax = _mm512_max_epi8(xmax, x);
    xmin = _mm512_min_epi8(xmin, x);
  }
  if (i < nr) {
    const __mmask64 m = tail_mask64(nr - i);
    const __m512i x = _mm512_maskz_loadu_epi8(m, row + i);
    xmax = _mm512_mask_max_epi8(xmax, m, xmax, x);
    xmin = _mm512_mask_min_epi8(xmin, m, xmin, x);
  }
  *mx = xmax;
  *mn = xmin;
}

// The statistics of a block of 16 rows (lane t: row r0 + t).
struct Tile16Stats {
  alignas(64) int32_t maxv[16];
  alignas(64) int32_t minv[16];
  alignas(64) int32_t sums[16];
  alignas(64) int32_t scale[16];
  int hp1[16];
  bool lut_row[16];  // on the table path
};

// Steps 1 to 3 of softmax_tile16_avx512 for rows r0 .. r0 + cnt - 1.
ATTN_T_AVX512VBMI inline void tile16_stats(const LutPlanes& pl, const TileRows& a, int32_t r0,
                                           int32_t cnt, Tile16Stats* s) {
  // 1. Row max and min (rows not on the table path: neutral vectors).
  __m512i mx[16], mn[16];
  for (int32_t t = 0; t < 16; ++t) {
    mx[t] = _mm512_set1_epi8(-128);
    mn[t] = _mm512_set1_epi8(127);
    s->lut_row[t] = t < cnt && a.n[r0 + t] >= 64;
    if (s->lut_row[t]) row_max_min64(a.row(r0 + t), a.n[r0 + t], &mx[t], &mn[t]);
  }
  _mm512_store_si512(s->maxv, reduce16_i8<MaxI8>(mx));
  _mm512_store_si512(s->minv, reduce16_i8<MinI8>(mn));
  // 2. Sums of exps.
  __m512i sv[16];
  for (int32_t t = 0; t < 16; ++t) {
    sv[t] = _mm512_setzero_si512();
    if (!s->lut_row[t]) continue;
    sv[t] = plane_sums_row(pl.p, pl.upper_zero, a.row(r0 + t), a.n[r0 + t], s->maxv[t],
                           s->maxv[t] - s->minv[t]);
  }
  _mm512_store_si512(s->sums, reduce16_sum64_lo32(sv));
  // 3. Reciprocals (16 at once).
  reciprocals16(s->sums, s->lut_row, s->hp1, s->scale);
}

// Step 3's outputs and step 4 of softmax_tile16_avx512: each row's weights
// (the table path, or softmax_s8_row_w), and their sums into sum_w.
ATTN_T_AVX512VBMI inline void tile16_outputs(const TileRows& a, int32_t r0, int32_t cnt,
                                             Tile16Stats* s) {
  const auto* dcut = reinterpret_cast<const uint16_t*>(static_cast<const uint8_t*>(a.lut) + 772);
  // The weights' sums: 16 reduced at once (int32: <= 255 n_pad).
  __m512i swv[16];
  int32_t other[16];
  for (int32_t t = 0; t < 16; ++t) {
    swv[t] = _mm512_setzero_si512();
    other[t] = 0;
    if (t >= cnt) continue;
    const int32_t r = r0 + t;
    if (s->lut_row[t] && s->scale[t] > 0) {
      LutRowStats st;
      st.max = s->maxv[t];
      st.range = s->maxv[t] - s->minv[t];
      st.sum = s->sums[t];
      swv[t] = softmax_lut_out_avx512<true>(dcut, a.table, a.diff_min, a.row(r), a.row(r), a.n[r],
                                            a.n_pad, st, s->scale[t], (12 - s->hp1[t]) + 31 - 8);
    } else {
      s->lut_row[t] = false;
      other[t] = a.by_row(r);
    }
  }
  alignas(64) int32_t wsum[16];
  _mm512_store_si512(wsum, reduce16_sum64_lo32(swv));
  for (int32_t t = 0; t < cnt; ++t) a.sum_w[r0 + t] = s->lut_row[t] ? wsum[t] : other[t];
}

ATTN_T_AVX512VBMI inline void softmax_tile16_avx512(const TileRows& a) {
  LutPlanes pl;
  load_planes(static_cast<const uint8_t*>(a.lut), &pl);
  for (int32_t r0 = 0; r0 < a.nq; r0 += 16) {
    const int32_t cnt = a.nq - r0 < 16 ? a.nq - r0 : 16;
    Tile16Stats s;
    tile16_stats(pl, a, r0, cnt, &s);
    tile16_outputs(a, r0, cnt, &s);
  }
}

// Tiles whose rows all have at most 16 columns (short sequences), at level 3
// with or without the byte tables: one 16-lane vector per row, the
// arithmetic of softmax_avx512 (table exp by gather, Q12.19 sum, srdhm by
// the reciprocal, RoundingDivideByPOT by the exponent) with each row's exps
// gathered once, and the horizontal max / sum reductions and the
// reciprocals of 16 rows batched. Lane t of rows_i32 / the reductions is row
// t. Rows whose reciprocal hits srdhm's saturating case (or sum <= 0) take
// softmax_s8_row_w.
//
// The exps of rows r0 .. r0 + 15 (kept lanes: keep[t]; rows past cnt have
// no columns) and their Q12.19 sums.
ATTN_T_AVX512 inline void short_exps16(const TileRows& a, int32_t r0, int32_t cnt, __m512i* ex,
                                       __mmask16* keep, int32_t* sums) {
  const __m512i vdmin = _mm512_set1_epi32(a.diff_min);
  const __m128i e12 = _mm_cvtsi32_si128(12);
  const __m512i mask12 = _mm512_set1_epi32(4095), half12 = _mm512_set1_epi32(2047);
  // Row max: each row's bytes (-128 past n) repeated over the 64 bytes.
  __m512i v8[16];
  for (int32_t t = 0; t < 16; ++t) {
    const int32_t nr = t < cnt ? a.n[r0 + t] : 0;
    const auto m = static_cast<__mmask16>((1u << nr) - 1u);
    v8[t] = _mm512_broadcast_i32x4(_mm_mask_loadu_epi8(_mm_set1_epi8(-128), m, a.row(r0 + t)));
  }
  alignas(64) int32_t maxv[16];
  _mm512_store_si512(maxv, reduce16_i8<MaxI8>(v8));
  // Exps (kept lanes) and their Q12.19 terms.
  __m512i terms[16];
  for (int32_t t = 0; t < 16; ++t) {
    const int32_t nr = t < cnt ? a.n[r0 + t] : 0;
    const auto m = static_cast<__mmask16>((1u << nr) - 1u);
    const __m512i diff = _mm512_sub_epi32(
        _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(m, a.row(r0 + t))), _mm512_set1_epi32(maxv[t]));
    keep[t] = _mm512_mask_cmpge_epi32_mask(m, diff, vdmin);
    ex[t] = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), keep[t],
                                        _mm512_sub_epi32(_mm512_setzero_si512(), diff), a.table, 4);
    terms[t] = _mm512_maskz_mov_epi32(keep[t], rdbp_avx512(ex[t], e12, mask12, half12));
  }
  _mm512_store_si512(sums, reduce16_sum32(terms));
}

// Weights w = code + 128 of the rows with a usable reciprocal (0 past n,
// and every code -128 when the exponent exceeds 31); 0 for the others.
ATTN_T_AVX512 inline void short_weights16(const __m512i* ex, const __mmask16* keep, const bool* ok,
                                          const int* hp1, const int32_t* scale, __m512i* w) {
  const __m512i lo = _mm512_set1_epi32(-128), hi = _mm512_set1_epi32(127);
  const __m512i c128 = _mm512_set1_epi32(128), c255 = _mm512_set1_epi32(255);
  for (int32_t t = 0; t < 16; ++t) {
    w[t] = _mm512_setzero_si512();
    const int exponent = (12 - hp1[t]) + 31 - 8;
    if (!ok[t] || scale[t] == INT32_MIN || exponent > 31) continue;
    const int32_t mk = static_cast<int32_t>((uint64_t{1} << exponent) - 1u);
    __m512i v = rdbp_avx512(srdhm_avx512(ex[t], _mm512_set1_epi64(scale[t])),
                            _mm_cvtsi32_si128(exponent), _mm512_set1_epi32(mk),
                            _mm512_set1_epi32(mk >> 1));
    // The code is v - 128 clamped above only (softmax_s8_row_ref: below
    // -128 it wraps as the int8 store does); its weight byte is
    // (code + 128) mod 256.
    v = _mm512_min_epi32(_mm512_add_epi32(v, lo), hi);
    w[t] = _mm512_maskz_and_epi32(keep[t], _mm512_add_epi32(v, c128), c255);
  }
}

ATTN_T_AVX512 inline void softmax_tile_short_avx512(const TileRows& a) {
  for (int32_t r0 = 0; r0 < a.nq; r0 += 16) {
    const int32_t cnt = a.nq - r0 < 16 ? a.nq - r0 : 16;
    __m512i ex[16];
    __mmask16 keep[16];
    alignas(64) int32_t sums[16];
    short_exps16(a, r0, cnt, ex, keep, sums);
    // Reciprocals of the 16 sums at once (as get_reciprocal).
    bool ok[16];
    int hp1[16];
    alignas(64) int32_t scale[16];
    for (int32_t t = 0; t < 16; ++t) ok[t] = t < cnt && a.n[r0 + t] > 0;
    reciprocals16(sums, ok, hp1, scale);
    __m512i w[16];
    short_weights16(ex, keep, ok, hp1, scale, w);
    alignas(64) int32_t wsum[16];
    _mm512_store_si512(wsum, reduce16_sum32(w));
    for (int32_t t = 0; t < cnt; ++t) {
      const int32_t r = r0 + t;
      if (!ok[t] || scale[t] == INT32_MIN) {
        a.sum_w[r] = a.by_row(r);
        continue;
      }
      // Whole 16-lane vector (zeros past n), then zeros to n_pad.
      const int32_t head = a.n_pad < 16 ? a.n_pad : 16;
      _mm_mask_storeu_epi8(a.row(r), static_cast<__mmask16>((1u << head) - 1u),
                           _mm512_cvtepi32_epi8(w[t]));
      for (int32_t c = 16; c < a.n_pad; c += 64) {
        _mm512_mask_storeu_epi8(a.row(r) + c, tail_mask64(a.n_pad - c), _mm512_setzero_si512());
      }
      a.sum_w[r] = wsum[t];
    }
  }
}
