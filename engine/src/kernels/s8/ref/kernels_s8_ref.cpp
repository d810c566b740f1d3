// Portable reference int8 kernels (see kernels_s8.h).
#include "kernels/s8/kernels_s8.h"

#include "kernels/s8/fixedpoint.h"

namespace attn {
namespace detail {

int32_t dot_s8_ref(const int8_t* a, const int8_t* b, int32_t n, int32_t* sum_b) {
  int32_t acc = 0;
  int32_t sb = 0;
  for (int32_t i = 0; i < n; ++i) {
    acc += static_cast<int32_t>(a[i]) * static_cast<int32_t>(b[i]);
    sb += b[i];
  }
  *sum_b = sb;
  return acc;
}

void mac_s8_ref(int32_t* acc, const int8_t* b, int32_t w, int32_t n) {
  for (int32_t i = 0; i < n; ++i) acc[i] += w * static_cast<int32_t>(b[i]);
}

int32_t qrow_s8_pack_ref(const int8_t* q, int32_t zp, int32_t n, void* packed) {
  auto* p = static_cast<int16_t*>(packed);
  int32_t sum = 0;
  for (int32_t i = 0; i < n; ++i) {
    p[i] = static_cast<int16_t>(q[i] - zp);
    sum += p[i];
  }
  return sum;
}

int32_t qrow_s8_dot_ref(const void* packed, int32_t zp, const int8_t* k, int32_t n) {
  (void)zp;
  const auto* p = static_cast<const int16_t*>(packed);
  int32_t acc = 0;
  for (int32_t i = 0; i < n; ++i) acc += static_cast<int32_t>(p[i]) * static_cast<int32_t>(k[i]);
  return acc;
}

void qk_s8_ref(const void* packed, int32_t zp, const int8_t* k, std::size_t k_stride, int32_t nkeys,
               int32_t n, int32_t* out) {
  for (int32_t j = 0; j < nkeys; ++j) {
    out[j] = qrow_s8_dot_ref(packed, zp, k + static_cast<std::size_t>(j) * k_stride, n);
  }
}

void pv_s8_ref(const int8_t* const* rows, const int16_t* w, int32_t nrows, int32_t n,
               int32_t* acc) {
  for (int32_t c = 0; c < n; ++c) acc[c] = 0;
  for (int32_t r = 0; r < nrows; ++r) {
    const int32_t wr = w[r];
    const int8_t* row = rows[r];
    for (int32_t c = 0; c < n; ++c) acc[c] += wr * static_cast<int32_t>(row[c]);
  }
}

void pv_s8_strided_ref(const int8_t* v, std::size_t stride, const int16_t* w, int32_t nrows,
                       int32_t n, int32_t* acc) {
  for (int32_t c = 0; c < n; ++c) acc[c] = 0;
  for (int32_t r = 0; r < nrows; ++r) {
    const int32_t wr = w[r];
    const int8_t* row = v + static_cast<std::size_t>(r) * stride;
    for (int32_t c = 0; c < n; ++c) acc[c] += wr * static_cast<int32_t>(row[c]);
  }
}

void requantize_row_s8_ref(const int32_t* acc, int32_t n, int32_t offset, int32_t multiplier,
                           int32_t shift, int32_t zero_point, int8_t* out) {
  for (int32_t i = 0; i < n; ++i) {
    out[i] = static_cast<int8_t>(q::requantize(acc[i] - offset, multiplier, shift, zero_point));
  }
}

void softmax_s8_row_ref(const int32_t* exp_table, int32_t diff_min, const int8_t* in, int8_t* out,
                        int32_t n) {
  int32_t max_in_row = -128;
  for (int32_t c = 0; c < n; ++c) max_in_row = in[c] > max_in_row ? in[c] : max_in_row;
  // Sum of exp(d) in Q12.19 (Rescale<12> of each Q0.31 term).
  int32_t sum_of_exps = 0;
  for (int32_t c = 0; c < n; ++c) {
    const int32_t diff = in[c] - max_in_row;
    if (diff >= diff_min) sum_of_exps += q::rounding_divide_by_pot(exp_table[-diff], 12);
  }
  int num_bits_over_unit = 0;
  const int32_t shifted_scale = q::get_reciprocal(sum_of_exps, 12, &num_bits_over_unit);
  // Output exponent in [23, 34]; above 31 every output rounds to 0.
  const int exponent = num_bits_over_unit + 31 - 8;
  for (int32_t c = 0; c < n; ++c) {
    const int32_t diff = in[c] - max_in_row;
    int32_t v = -128;
    if (diff >= diff_min && exponent <= 31) {
      v = q::rounding_divide_by_pot(q::srdhm(shifted_scale, exp_table[-diff]), exponent) - 128;
      if (v > 127) v = 127;
    }
    out[c] = static_cast<int8_t>(v);
  }
}

int32_t add_tanh_dot_s8_ref(const int32_t* a2, const int32_t* t2, const int8_t* codes,
                            const int8_t* v, int32_t n, int32_t m, int32_t shift, int32_t zp,
                            const int8_t* tanh_table) {
  int32_t acc = 0;
  for (int32_t u = 0; u < n; ++u) {
    const int32_t sum = (a2[u] + t2[codes[u] + 128]) / 2;  // exact: both even
    const int32_t out = q::requantize(sum, m, shift, zp);
    acc += static_cast<int32_t>(tanh_table[out + 128]) * static_cast<int32_t>(v[u]);
  }
  return acc;
}

// The entries of every group this build's kernel set (kernels/s8/kernel_set.h)
// does not implement.
#if !defined(ATTN_S8_HAS_SOFTMAX_ROW)
void softmax_s8_row(const int32_t* exp_table, int32_t diff_min, const int8_t* in, int8_t* out,
                    int32_t n) {
  softmax_s8_row_ref(exp_table, diff_min, in, out, n);
}
#endif

#if !defined(ATTN_S8_HAS_ADD_TANH_DOT)
int32_t add_tanh_dot_s8(const int32_t* a2, const int32_t* t2, const int8_t* codes, const int8_t* v,
                        int32_t n, int32_t m, int32_t shift, int32_t zp, const int8_t* tanh_table) {
  return add_tanh_dot_s8_ref(a2, t2, codes, v, n, m, shift, zp, tanh_table);
}
#endif

#if !defined(ATTN_S8_HAS_REQUANTIZE_ROW)
void requantize_row_s8(const int32_t* acc, int32_t n, int32_t offset, int32_t multiplier,
                       int32_t shift, int32_t zero_point, int8_t* out) {
  requantize_row_s8_ref(acc, n, offset, multiplier, shift, zero_point, out);
}
#endif

#if !defined(ATTN_S8_HAS_ROW_KERNELS)
int32_t dot_s8(const int8_t* a, const int8_t* b, int32_t n, int32_t* sum_b) {
  return dot_s8_ref(a, b, n, sum_b);
}
void mac_s8(int32_t* acc, const int8_t* b, int32_t w, int32_t n) { mac_s8_ref(acc, b, w, n); }
int32_t qrow_s8_pack(const int8_t* q, int32_t zp, int32_t n, void* packed) {
  return qrow_s8_pack_ref(q, zp, n, packed);
}
int32_t qrow_s8_dot(const void* packed, int32_t zp, const int8_t* k, int32_t n) {
  return qrow_s8_dot_ref(packed, zp, k, n);
}
void qk_s8(const void* packed, int32_t zp, const int8_t* k, std::size_t k_stride, int32_t nkeys,
           int32_t n, int32_t* out) {
  qk_s8_ref(packed, zp, k, k_stride, nkeys, n, out);
}
void pv_s8(const int8_t* const* rows, const int16_t* w, int32_t nrows, int32_t n, int32_t* acc) {
  pv_s8_ref(rows, w, nrows, n, acc);
}
void pv_s8_strided(const int8_t* v, std::size_t stride, const int16_t* w, int32_t nrows, int32_t n,
                   int32_t* acc) {
  pv_s8_strided_ref(v, stride, w, nrows, n, acc);
}
const char* kernels_s8_name() { return "ref"; }
#endif

}  // namespace detail
}  // namespace attn
