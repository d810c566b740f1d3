// The float GEMMs of the SIMD backends (hwy, xsimd): y (+)= a b^T + bias, the
// product of nn.Linear and of the MHA projections, and Keras Dense y = x w +
// bias. Written once over the
// vector policy `O` of kernels_f32-inl.h (see there), which the includer has
// already included in the same namespace: this file uses its Dot, QkTile,
// TransposeScale and AddVec, and one more policy op, LoadReg(p): LoadU whose
// result stays in a register (not re-read by every FMA that uses it).
//
// Method (register-blocked, no horizontal sums): b's rows are the output
// columns, so a panel of P = NR * Lanes() rows of b is transposed into a packed
// block bp[x * P + j] = b[(j0 + j) * b_stride + k0 + x] (TransposeScale with
// scale 1, kc <= kGemmPackFloats / P columns of k at a time); the micro-kernel
// then keeps MR x NR vectors of y in registers, and per k step loads NR vectors
// of bp and broadcasts one a element per row (a memory operand of the FMA on
// x86). The pack lives on the stack: kGemmPackFloats floats (8 KiB), the only
// stack these backends use beyond a few vectors.
//
// Up to kGemvMaxRows rows of a (a decode step's projections: one token, or a
// few) skip the pack: the GEMV below streams b's rows in place, each element
// of b loaded once for all the rows of a.
//
// Keras Dense (dense_f32, w [n_in, n_out]) is the same micro-kernel reading w's
// rows in place: they already are vectors of output columns.
//
// gemm_nt_f16w_f32 (b as binary16 bits) is the same code with b's element
// type TB = uint16_t: every load of b widens it (exact) to the float vector
// the float32 path would have loaded from the widened b, the GEMV in registers
// (LoadB below), the pack into the same float panel. So it gives, bit for bit,
// what GemmNT gives on the widened b.
//
// Not a normal header: included by kernels/hwy/kernels_f32_hwy.cpp (once per
// Highway target) and kernels/xsimd/kernels_f32_xsimd.cpp, after
// kernels_f32-inl.h. Contract: gemm_nt_f32 in kernels_f32.h; the reference is
// kernels/ref/gemm_f32_ref.cpp (gemm_nt_f16w_f32 too; dense_f32:
// kernels_f32_ref.cpp). The includer has included kernels/f32/f16.h.

// NOLINTBEGIN(build/include_what_you_use)

namespace generic {

constexpr std::size_t kGemmPackFloats = 2048;
constexpr int32_t kGemvMaxRows = 4;

// Columns [c * N, c * N + N) of a row of y, or only the first `cols - c * N`
// of them at the panel's end (cols <= NR * N valid columns in this panel).
template <class O>
typename O::V GemmLoadCols(const float* p, std::size_t c0, std::size_t cols) {
  const std::size_t N = O::Lanes();
  if (c0 + N <= cols) return O::LoadU(p + c0);
  return c0 < cols ? O::LoadN(p + c0, cols - c0) : O::Zero();
}

template <class O>
void GemmStoreCols(typename O::V v, float* p, std::size_t c0, std::size_t cols) {
  const std::size_t N = O::Lanes();
  if (c0 + N <= cols) {
    O::StoreU(v, p + c0);
  } else if (c0 < cols) {
    O::StoreN(v, p + c0, cols - c0);
  }
}

// MR rows of a against a panel of b laid out as bp[x * b_step + j] (kc steps;
// NR vectors of columns, of which `cols` are valid; kPartial: the panel is not
// padded past `cols`, so its last vectors load only the valid columns):
// y = (load_y ? y : 0) + (bias ? bias : 0) + a bp.
// Registers acc<r>_<c> (r < MR <= 8, c < NR <= 4), bias<c>, bv<c>: named,
// not arrays (register_block.h).
template <class O, int MR, int NR, bool kPartial>
void GemmMicro(const float* a, std::size_t a_stride, const float* bp, std::size_t b_step,
               std::size_t kc, const float* bias, bool load_y, float* y, std::size_t y_stride,
               std::size_t cols) {
  static_assert(MR <= 8, "named registers: 8 rows");
  static_assert(NR <= 4, "named registers: 4 column vectors");
  using V = typename O::V;
  const std::size_t N = O::Lanes();
#define ATTN_GM_BIAS(_, c)           \
  [[maybe_unused]] const V bias##c = \
      (c) < NR && bias != nullptr ? GemmLoadCols<O>(bias, Sz(c) * N, cols) : O::Zero();
#define ATTN_GM_INIT(r, c)                                                          \
  [[maybe_unused]] V acc##r##_##c =                                                 \
      (r) < MR && (c) < NR && load_y                                                \
          ? O::Add(GemmLoadCols<O>(y + Sz(r) * y_stride, Sz(c) * N, cols), bias##c) \
          : bias##c;
  ATTN_EACH4(ATTN_GM_BIAS, _)
  ATTN_EACH8(ATTN_EACH4, ATTN_GM_INIT)
  for (std::size_t x = 0; x < kc; ++x) {
#define ATTN_GM_B(_, c)                                                                           \
  [[maybe_unused]] const V bv##c = (c) >= NR  ? O::Zero()                                         \
                                   : kPartial ? GemmLoadCols<O>(bp + x * b_step, Sz(c) * N, cols) \
                                              : O::LoadReg(bp + x * b_step + Sz(c) * N);
#define ATTN_GM_FMA(r, c) \
  if constexpr ((c) < NR) acc##r##_##c = O::MulAdd(av, bv##c, acc##r##_##c);
#define ATTN_GM_ROW(_, r)                         \
  if constexpr ((r) < MR) {                       \
    const V av = O::Set(a[Sz(r) * a_stride + x]); \
    ATTN_EACH4(ATTN_GM_FMA, r)                    \
  }
    ATTN_EACH4(ATTN_GM_B, _)
    ATTN_EACH8(ATTN_GM_ROW, _)
  }
#define ATTN_GM_STORE(r, c)                                                \
  if constexpr ((r) < MR && (c) < NR) {                                    \
    GemmStoreCols<O>(acc##r##_##c, y + Sz(r) * y_stride, Sz(c) * N, cols); \
  }
  ATTN_EACH8(ATTN_EACH4, ATTN_GM_STORE)
#undef ATTN_GM_BIAS
#undef ATTN_GM_INIT
#undef ATTN_GM_B
#undef ATTN_GM_FMA
#undef ATTN_GM_ROW
#undef ATTN_GM_STORE
}

// Every row of a against one panel: MR rows at a time, then the m % MR rest
// as one block of that many rows.
template <class O, int MR, int NR, bool kPartial>
void GemmRows(const float* a, std::size_t a_stride, int32_t m, const float* bp, std::size_t b_step,
              std::size_t kc, const float* bias, bool load_y, float* y, std::size_t y_stride,
              std::size_t cols) {
  int32_t i = 0;
  for (; i + MR <= m; i += MR) {
    GemmMicro<O, MR, NR, kPartial>(a + Sz(i) * a_stride, a_stride, bp, b_step, kc, bias, load_y,
                                   y + Sz(i) * y_stride, y_stride, cols);
  }
  if constexpr (MR > 1) {
    if (i < m) {
      GemmRows<O, MR - 1, NR, kPartial>(a + Sz(i) * a_stride, a_stride, m - i, bp, b_step, kc, bias,
                                        load_y, y + Sz(i) * y_stride, y_stride, cols);
    }
  }
}

// bp[x * P + j] = b[j * b_stride + x] (widened) for j < nb, 0 for nb <= j < P;
// x < kc. Four rows at a time, a vector of each transposed into bp
// (TransposeScale's blocks without the scale).
template <class O, class TB>
void GemmPack(const TB* b, std::size_t b_stride, int32_t nb, std::size_t kc, float* bp,
              std::size_t P) {
  if (P % 4 != 0) {
    for (std::size_t x = 0; x < kc; ++x) {
      for (std::size_t j = 0; j < P; ++j)
        bp[x * P + j] = j < Sz(nb) ? WidenB(b[j * b_stride + x]) : 0.0f;
    }
    return;
  }
  const std::size_t N = O::Lanes();
  for (std::size_t j = 0; j < P; j += 4) {
    const TB* rows[4];
    for (std::size_t r = 0; r < 4; ++r) rows[r] = j + r < Sz(nb) ? b + (j + r) * b_stride : nullptr;
    std::size_t x = 0;
    for (; x + N <= kc; x += N) {
      const auto load = [x](const TB* row) {
        return row != nullptr ? LoadB<O>(row + x) : O::Zero();
      };
      O::Transpose4Store(load(rows[0]), load(rows[1]), load(rows[2]), load(rows[3]), bp + x * P + j,
                         P);
    }
    for (; x < kc; ++x) {
      for (std::size_t r = 0; r < 4; ++r)
        bp[x * P + j + r] = rows[r] != nullptr ? WidenB(rows[r][x]) : 0.0f;
    }
  }
}

// Every row of a against every packed panel of b.
template <class O, int MR, int NR, class TB>
void GemmPanels(const float* a, std::size_t a_stride, int32_t m, int32_t k, const TB* b,
                std::size_t b_stride, int32_t n, const float* bias, bool accumulate, float* y,
                std::size_t y_stride) {
  const std::size_t N = O::Lanes();
  const std::size_t P = Sz(NR) * N;
  const std::size_t kc_max = kGemmPackFloats / P;
  float bp[kGemmPackFloats];
  for (std::size_t j0 = 0; j0 < Sz(n); j0 += P) {
    const std::size_t cols = Sz(n) - j0 < P ? Sz(n) - j0 : P;
    const float* bias_j = bias != nullptr ? bias + j0 : nullptr;
    for (std::size_t k0 = 0; k0 < Sz(k) || k0 == 0; k0 += kc_max) {
      const std::size_t kc = Sz(k) - k0 < kc_max ? Sz(k) - k0 : kc_max;
      GemmPack<O>(b + j0 * b_stride + k0, b_stride, static_cast<int32_t>(cols), kc, bp, P);
      const bool load_y = accumulate || k0 > 0;
      const float* bias_k = k0 == 0 ? bias_j : nullptr;
      GemmRows<O, MR, NR, false>(a + k0, a_stride, m, bp, P, kc, bias_k, load_y, y + j0, y_stride,
                                 cols);
      if (k == 0) break;
    }
  }
}

// The GEMV (m <= kGemvMaxRows rows of a, b's rows in place): s_ij = sum_x
// a_i[x] b_j[x] for the M rows of a and R rows of b at once. Per row pair U
// vector partial sums along x (U = 2: even and odd vectors, the last full
// vector to the even one), the tail of k % Lanes() elements masked into the
// last; then the U sums added and reduced with ReduceSum4 (a transposing
// reduction: each result sums its own lanes only, whatever its slot). Every
// s_ij is thus the same bits whichever rows of b share its block, and for a
// given M whichever range of b a caller passes (the decode ops split the
// output features over threads). sums[i * 8 + r] = s_ij of b row r.
// Registers acc<i>_<c> (i < M <= 4, c = r * U + u < R * U <= 8), bv<c>.
// GemvBlock's masked tail (into the partial sums u = U - 1) and its
// reduction: the partial sums of b row r (acc<i>_<2r> + acc<i>_<2r+1> when
// U = 2, else acc<i>_<r>), reduced four rows at a time.
#define ATTN_GV_TB(_, c)                                                                      \
  [[maybe_unused]] const V tb##c = (c) < R * U && ((c) % U) == U - 1 ? load_t(b[(c) / U] + x) \
                                                                     : O::Zero();
#define ATTN_GV_TFMA(i, c)                         \
  if constexpr ((c) < R * U && ((c) % U) == U - 1) \
    acc##i##_##c = O::MulAdd(ta, tb##c, acc##i##_##c);
#define ATTN_GV_TA(_, i)                           \
  if constexpr ((i) < M) {                         \
    const V ta = load_t(a + Sz(i) * a_stride + x); \
    ATTN_EACH8(ATTN_GV_TFMA, i)                    \
  }
#define ATTN_GV_REDUCE(_, i)                                                        \
  if constexpr ((i) < M) {                                                          \
    const V z = O::Zero();                                                          \
    const V s0 = U > 1 ? O::Add(acc##i##_0, acc##i##_1) : acc##i##_0;               \
    const V s1 = R < 2 ? z : (U > 1 ? O::Add(acc##i##_2, acc##i##_3) : acc##i##_1); \
    const V s2 = R < 3 ? z : (U > 1 ? O::Add(acc##i##_4, acc##i##_5) : acc##i##_2); \
    const V s3 = R < 4 ? z : (U > 1 ? O::Add(acc##i##_6, acc##i##_7) : acc##i##_3); \
    O::ReduceSum4(s0, s1, s2, s3, sums + Sz(i) * 8);                                \
    if constexpr (R > 4) {                                                          \
      O::ReduceSum4(acc##i##_4, R > 5 ? acc##i##_5 : z, R > 6 ? acc##i##_6 : z,     \
                    R > 7 ? acc##i##_7 : z, sums + Sz(i) * 8 + 4);                  \
    }                                                                               \
  }
template <class O, int M, int R, int U, class TB>
void GemvBlock(const float* a, std::size_t a_stride, const TB* const* b, std::size_t k,
               float* sums) {
  static_assert(M <= 4 && R * U <= 8 && U <= 2, "named registers: 4 rows x 8 partial sums");
  using V = typename O::V;
  const std::size_t N = O::Lanes();
#define ATTN_GV_ZERO(i, c) [[maybe_unused]] V acc##i##_##c = O::Zero();
  ATTN_EACH4(ATTN_EACH8, ATTN_GV_ZERO)
  // One step of `width` vectors (U, or 1 for the last full vector) at x:
  // loads of b, then per row of a its vectors and FMAs.
#define ATTN_GV_B(LD, c)           \
  [[maybe_unused]] const V bv##c = \
      (c) < R * U && ((c) % U) < width ? LD(b[(c) / U] + x + Sz((c) % U) * N) : O::Zero();
#define ATTN_GV_FMA(i, c)                                                                       \
  if constexpr ((c) < R * U) {                                                                  \
    if ((c) % U < width) acc##i##_##c = O::MulAdd((c) % U == 0 ? a0 : a1, bv##c, acc##i##_##c); \
  }
#define ATTN_GV_A(LD, i)                                                                      \
  if constexpr ((i) < M) {                                                                    \
    const V a0 = LD(a + Sz(i) * a_stride + x);                                                \
    [[maybe_unused]] const V a1 = U > 1 && width > 1 ? LD(a + Sz(i) * a_stride + x + N) : a0; \
    ATTN_EACH8(ATTN_GV_FMA, i)                                                                \
  }
  // A b vector serves M FMAs: kept in a register from M = 2 on (folded into
  // its one FMA's memory operand for M = 1).
  const auto load_b = [](const TB* p) { return LoadB<O, (M > 1)>(p); };
  std::size_t x = 0;
  {
    constexpr int width = U;
    for (; x + U * N <= k; x += U * N) {
      ATTN_EACH8(ATTN_GV_B, load_b)
      ATTN_EACH4(ATTN_GV_A, O::LoadU)
    }
  }
  if (U > 1 && x + N <= k) {
    constexpr int width = 1;
    ATTN_EACH8(ATTN_GV_B, load_b)
    ATTN_EACH4(ATTN_GV_A, O::LoadU)
    x += N;
  }
  if (x < k) {
    // The tail, masked, into the partial sums u = U - 1.
    const std::size_t t = k - x;
    const auto load_t = [t](const auto* p) { return LoadBN<O>(p, t); };
    ATTN_EACH8(ATTN_GV_TB, _)
    ATTN_EACH4(ATTN_GV_TA, _)
  }
  ATTN_EACH4(ATTN_GV_REDUCE, _)
#undef ATTN_GV_ZERO
#undef ATTN_GV_B
#undef ATTN_GV_FMA
#undef ATTN_GV_A
}
#undef ATTN_GV_TB
#undef ATTN_GV_TFMA
#undef ATTN_GV_TA
#undef ATTN_GV_REDUCE

// The GEMV over all n rows of b: R streams at once, b rows t, seg + t,
// 2 seg + t, .. (seg = ceil(n / R)): each stream walks a contiguous range of
// b front to back, long and in pages of its own (what hardware prefetchers
// follow best), and the M rows of a are loaded once per R rows of b. Once
// the last (shortest) stream has ended, the others' rows go one at a time
// (the same bits, see GemvBlock).
// y_ij = (accumulate ? y_ij : 0) + ((bias ? bias_j : 0) + s_ij).
template <class O, int M, class TB>
void GemvRows(const float* a, std::size_t a_stride, int32_t k, const TB* b, std::size_t b_stride,
              int32_t n, const float* bias, bool accumulate, float* y, std::size_t y_stride) {
  // Accumulators M * R * U: 8 for M = 1 (8 streams, one sum each: 8 FMA
  // chains); with 32 vector registers 16 for M = 2 (2 sums each, 4 streams)
  // and 12 or 16 for M = 3, 4 (4 streams); with 16 (AVX2, SSE4) at most 8.
  constexpr bool kWide = VectorRegs<O>::kValue >= 32;
  constexpr int R = M == 1 ? 8 : (kWide || M == 2 ? 4 : 2);
  constexpr int U = M == 2 && kWide ? 2 : 1;
  const int32_t seg = (n + R - 1) / R;
  // Slots t < full have all R streams (the last one is the shortest).
  const int32_t full = n - (R - 1) * seg;
  const auto uk = Sz(k);
  // y_ij for the rows j = s * seg + t of b, s < count, from sums[i * 8 + s].
  const auto store = [&](const float* sums, int32_t t, int32_t s0, int32_t count) {
    for (int32_t s = s0; s < s0 + count; ++s) {
      const int32_t j = s * seg + t;
      for (int32_t i = 0; i < M; ++i) {
        float v = sums[i * 8 + s - s0];
        if (bias != nullptr) v = bias[j] + v;
        float& out = y[Sz(i) * y_stride + Sz(j)];
        out = accumulate ? out + v : v;
      }
    }
  };
  const TB* rows[8] = {};
  for (int32_t s = 0; s < R; ++s) rows[s] = b + Sz(s * seg) * b_stride;
  float sums[32];
  int32_t t = 0;
  for (; t < full; ++t) {
    GemvBlock<O, M, R, U>(a, a_stride, rows, uk, sums);
    store(sums, t, 0, R);
    for (int32_t s = 0; s < R; ++s) rows[s] += b_stride;
  }
  for (; t < seg; ++t) {
    for (int32_t s = 0; s < R && s * seg + t < n; ++s) {
      const TB* row = b + Sz(s * seg + t) * b_stride;
      GemvBlock<O, M, 1, U>(a, a_stride, &row, uk, sums);
      store(sums, t, s, 1);
    }
  }
}

// y[i*y_stride + j] = (accumulate ? y[i*y_stride + j] : 0) + (bias ? bias[j] : 0)
//                     + sum_x a[i*a_stride + x] * b[j*b_stride + x],   i < m, j < n, x < k
// (TB = uint16_t: b's binary16 elements widened).
template <class O, class TB>
void GemmNT(const float* a, std::size_t a_stride, int32_t m, int32_t k, const TB* b,
            std::size_t b_stride, int32_t n, const float* bias, bool accumulate, float* y,
            std::size_t y_stride) {
  if (m <= 0 || n <= 0) return;
  switch (m) {
    case 1: return GemvRows<O, 1>(a, a_stride, k, b, b_stride, n, bias, accumulate, y, y_stride);
    case 2: return GemvRows<O, 2>(a, a_stride, k, b, b_stride, n, bias, accumulate, y, y_stride);
    case 3: return GemvRows<O, 3>(a, a_stride, k, b, b_stride, n, bias, accumulate, y, y_stride);
    case 4: return GemvRows<O, 4>(a, a_stride, k, b, b_stride, n, bias, accumulate, y, y_stride);
    default: break;
  }
  static_assert(kGemvMaxRows == 4, "the cases above");
  const std::size_t N = O::Lanes();
  if (Sz(n) <= N) {
    GemmPanels<O, 8, 1>(a, a_stride, m, k, b, b_stride, n, bias, accumulate, y, y_stride);
  } else {
    GemmPanels<O, 6, 2>(a, a_stride, m, k, b, b_stride, n, bias, accumulate, y, y_stride);
  }
}

// Keras Dense, y[i, j] = (bias ? bias[j] : 0) + sum_x x[i, x] * w[x, j]: w's rows
// are already vectors of output columns, so the micro-kernel reads them in
// place (no pack), a panel of NR vectors of columns at a time.
template <class O>
void GemmDense(const float* x, int32_t rows, int32_t n_in, const float* w, const float* bias,
               int32_t n_out, float* y) {
  if (rows <= 0 || n_out <= 0) return;
  constexpr int MR = 4, NR = 4;
  const std::size_t P = Sz(NR) * O::Lanes();
  const std::size_t n = Sz(n_out);
  for (std::size_t j0 = 0; j0 < n; j0 += P) {
    const float* bias_j = bias != nullptr ? bias + j0 : nullptr;
    if (j0 + P <= n) {
      GemmRows<O, MR, NR, false>(x, Sz(n_in), rows, w + j0, n, Sz(n_in), bias_j, false, y + j0, n,
                                 P);
    } else if (n - j0 <= O::Lanes()) {
      GemmRows<O, 8, 1, true>(x, Sz(n_in), rows, w + j0, n, Sz(n_in), bias_j, false, y + j0, n,
                              n - j0);
    } else if (n - j0 <= 2 * O::Lanes()) {
      GemmRows<O, 6, 2, true>(x, Sz(n_in), rows, w + j0, n, Sz(n_in), bias_j, false, y + j0, n,
                              n - j0);
    } else {
      GemmRows<O, MR, NR, true>(x, Sz(n_in), rows, w + j0, n, Sz(n_in), bias_j, false, y + j0, n,
                                n - j0);
    }
  }
}

}  // namespace generic

// NOLINTEND(build/include_what_you_use)
