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
// stack these backends use beyond a few vectors. Fewer than kGemmMinRows rows
// (a mat-vec) skip the pack: scores as QkTile / Dot, reduced per element.
//
// Keras Dense (dense_f32, w [n_in, n_out]) is the same micro-kernel reading w's
// rows in place: they already are vectors of output columns.
//
// Not a normal header: included by kernels/hwy/kernels_f32_hwy.cpp (once per
// Highway target) and kernels/xsimd/kernels_f32_xsimd.cpp, after
// kernels_f32-inl.h. Contract: gemm_nt_f32 in kernels_f32.h; the reference is
// kernels/ref/gemm_f32_ref.cpp (dense_f32: kernels_f32_ref.cpp).

// NOLINTBEGIN(build/include_what_you_use)

namespace generic {

constexpr std::size_t kGemmPackFloats = 2048;
constexpr int32_t kGemmMinRows = 4;

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
#define ATTN_GM_BIAS(_, c)                                                                       \
  [[maybe_unused]] const V bias##c =                                                              \
      (c) < NR && bias != nullptr ? GemmLoadCols<O>(bias, Sz(c) * N, cols) : O::Zero();
#define ATTN_GM_INIT(r, c)                                                                       \
  [[maybe_unused]] V acc##r##_##c =                                                               \
      (r) < MR && (c) < NR && load_y                                                              \
          ? O::Add(GemmLoadCols<O>(y + Sz(r) * y_stride, Sz(c) * N, cols), bias##c)               \
          : bias##c;
  ATTN_EACH4(ATTN_GM_BIAS, _)
  ATTN_EACH8(ATTN_EACH4, ATTN_GM_INIT)
  for (std::size_t x = 0; x < kc; ++x) {
#define ATTN_GM_B(_, c)                                                                          \
  [[maybe_unused]] const V bv##c =                                                                \
      (c) >= NR  ? O::Zero()                                                                      \
      : kPartial ? GemmLoadCols<O>(bp + x * b_step, Sz(c) * N, cols)                              \
                 : O::LoadReg(bp + x * b_step + Sz(c) * N);
#define ATTN_GM_FMA(r, c) \
  if constexpr ((c) < NR) acc##r##_##c = O::MulAdd(av, bv##c, acc##r##_##c);
#define ATTN_GM_ROW(_, r)                                                                        \
  if constexpr ((r) < MR) {                                                                       \
    const V av = O::Set(a[Sz(r) * a_stride + x]);                                                 \
    ATTN_EACH4(ATTN_GM_FMA, r)                                                                    \
  }
    ATTN_EACH4(ATTN_GM_B, _)
    ATTN_EACH8(ATTN_GM_ROW, _)
  }
#define ATTN_GM_STORE(r, c)                                                                      \
  if constexpr ((r) < MR && (c) < NR) {                                                           \
    GemmStoreCols<O>(acc##r##_##c, y + Sz(r) * y_stride, Sz(c) * N, cols);                        \
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
      GemmRows<O, MR - 1, NR, kPartial>(a + Sz(i) * a_stride, a_stride, m - i, bp, b_step, kc,
                                        bias, load_y, y + Sz(i) * y_stride, y_stride, cols);
    }
  }
}

// bp[x * P + j] = b[j * b_stride + x] for j < nb, 0 for nb <= j < P; x < kc.
template <class O>
void GemmPack(const float* b, std::size_t b_stride, int32_t nb, std::size_t kc, float* bp,
              std::size_t P) {
  if (P % 4 == 0) {
    TransposeScale<O>(b, b_stride, nb, static_cast<int32_t>(kc), 1.0f, bp,
                      static_cast<int32_t>(P));
    return;
  }
  for (std::size_t x = 0; x < kc; ++x) {
    for (std::size_t j = 0; j < P; ++j) {
      bp[x * P + j] = j < Sz(nb) ? b[j * b_stride + x] : 0.0f;
    }
  }
}

// Every row of a against every packed panel of b.
template <class O, int MR, int NR>
void GemmPanels(const float* a, std::size_t a_stride, int32_t m, int32_t k, const float* b,
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

// y[i*y_stride + j] = (accumulate ? y[i*y_stride + j] : 0) + (bias ? bias[j] : 0)
//                     + sum_x a[i*a_stride + x] * b[j*b_stride + x],   i < m, j < n, x < k
template <class O>
void GemmNT(const float* a, std::size_t a_stride, int32_t m, int32_t k, const float* b,
            std::size_t b_stride, int32_t n, const float* bias, bool accumulate, float* y,
            std::size_t y_stride) {
  if (m <= 0 || n <= 0) return;
  if (m < kGemmMinRows) {
    for (int32_t i = 0; i < m; ++i) {
      float* yr = y + Sz(i) * y_stride;
      if (!accumulate) {
        QkTile<O>(a + Sz(i) * a_stride, a_stride, 1, b, b_stride, n, k, yr, Sz(n));
        if (bias != nullptr) AddVec<O>(yr, yr, bias, n);
        continue;
      }
      for (int32_t j = 0; j < n; ++j) {
        const float s = Dot<O>(a + Sz(i) * a_stride, b + Sz(j) * b_stride, k);
        yr[j] += bias != nullptr ? bias[j] + s : s;
      }
    }
    return;
  }
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
