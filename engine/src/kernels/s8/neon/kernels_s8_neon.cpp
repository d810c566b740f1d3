// AArch64 NEON int8 kernels (see kernels/s8/kernels_s8.h); each is
// bit-identical to its *_ref version (exact integer sums; requantization with
// the gemmlowp NEON rounding, exact for TFLite's RoundingDivideByPOT).
#include <cstring>

#include "kernels/s8/kernels_s8.h"

#if defined(ATTN_S8_KERNELS_NEON)
#include <arm_neon.h>

#if defined(__linux__)
#include <sys/auxv.h>
#endif

#include "kernels/s8/neon/requantize_neon.h"
#include "kernels/s8/runtime_level.h"

namespace attn {
namespace detail {
namespace {

// sum_i a[i] * b[i] over 16 lanes into acc (int32x4), and sum_i b[i] into sb.
inline void mac16(int8x16_t a, int8x16_t b, int32x4_t& acc, int32x4_t& sb) {
#if defined(__ARM_FEATURE_DOTPROD)
  acc = vdotq_s32(acc, a, b);
  sb = vdotq_s32(sb, b, vdupq_n_s8(1));
#else
  // |a * b| <= 2^14: the int16 products are exact; pairwise-add into int32.
  acc = vpadalq_s16(acc, vmull_s8(vget_low_s8(a), vget_low_s8(b)));
  acc = vpadalq_s16(acc, vmull_high_s8(a, b));
  sb = vpadalq_s16(sb, vpaddlq_s8(b));
#endif
}

inline int32_t dot_sum(const int8_t* a, const int8_t* b, int32_t n, int32_t* sum_b) {
  int32x4_t acc = vdupq_n_s32(0), sb = vdupq_n_s32(0);
  int32_t i = 0;
  for (; i + 16 <= n; i += 16) mac16(vld1q_s8(a + i), vld1q_s8(b + i), acc, sb);
  int32_t r = vaddvq_s32(acc);
  int32_t s = vaddvq_s32(sb);
  for (; i < n; ++i) {
    r += static_cast<int32_t>(a[i]) * static_cast<int32_t>(b[i]);
    s += b[i];
  }
  *sum_b = s;
  return r;
}

}  // namespace

int32_t dot_s8(const int8_t* a, const int8_t* b, int32_t n, int32_t* sum_b) {
  return dot_sum(a, b, n, sum_b);
}

void mac_s8(int32_t* acc, const int8_t* b, int32_t w, int32_t n) { mac_s8_ref(acc, b, w, n); }

int32_t qrow_s8_pack(const int8_t* q, int32_t zp, int32_t n, void* packed) {
  // The int8 bytes; zp is applied in the dots: sum (q - zp) k = sum q k - zp sum k.
  std::memcpy(packed, q, static_cast<std::size_t>(n));
  int32_t sum = 0;
  for (int32_t i = 0; i < n; ++i) sum += q[i];
  return sum - zp * n;
}

int32_t qrow_s8_dot(const void* packed, int32_t zp, const int8_t* k, int32_t n) {
  return qrow_s8_dot_bytes(packed, zp, k, n);
}

void qk_s8(const void* packed, int32_t zp, const int8_t* k, std::size_t k_stride, int32_t nkeys,
           int32_t n, int32_t* out) {
  for (int32_t j = 0; j < nkeys; ++j) {
    out[j] = qrow_s8_dot(packed, zp, k + static_cast<std::size_t>(j) * k_stride, n);
  }
}

namespace {

// acc[c..c+16) += w * row[c..c+16) held in four int32x4 registers.
inline void mla16(const int8_t* row, int16_t w, int32x4_t (&a)[4]) {
  const int8x16_t v = vld1q_s8(row);
  const int16x8_t lo = vmovl_s8(vget_low_s8(v));
  const int16x8_t hi = vmovl_high_s8(v);
  a[0] = vmlal_n_s16(a[0], vget_low_s16(lo), w);
  a[1] = vmlal_high_n_s16(a[1], lo, w);
  a[2] = vmlal_n_s16(a[2], vget_low_s16(hi), w);
  a[3] = vmlal_high_n_s16(a[3], hi, w);
}

template <typename RowAt>
void pv_rows(RowAt row_at, const int16_t* w, int32_t nrows, int32_t n, int32_t* acc) {
  int32_t c = 0;
  for (; c + 16 <= n; c += 16) {
    int32x4_t a[4] = {vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0)};
    for (int32_t r = 0; r < nrows; ++r) mla16(row_at(r) + c, w[r], a);
    vst1q_s32(acc + c, a[0]);
    vst1q_s32(acc + c + 4, a[1]);
    vst1q_s32(acc + c + 8, a[2]);
    vst1q_s32(acc + c + 12, a[3]);
  }
  for (; c < n; ++c) {
    int32_t s = 0;
    for (int32_t r = 0; r < nrows; ++r) s += static_cast<int32_t>(w[r]) * row_at(r)[c];
    acc[c] = s;
  }
}

}  // namespace

void pv_s8(const int8_t* const* rows, const int16_t* w, int32_t nrows, int32_t n, int32_t* acc) {
  pv_rows([rows](int32_t r) { return rows[r]; }, w, nrows, n, acc);
}

void pv_s8_strided(const int8_t* v, std::size_t stride, const int16_t* w, int32_t nrows, int32_t n,
                   int32_t* acc) {
  pv_rows([v, stride](int32_t r) { return v + static_cast<std::size_t>(r) * stride; }, w, nrows, n,
          acc);
}

void requantize_row_s8(const int32_t* acc, int32_t n, int32_t offset, int32_t multiplier,
                       int32_t shift, int32_t zero_point, int8_t* out) {
  const RequantizeNeon rq(multiplier, shift, zero_point);
  const int32x4_t off = vdupq_n_s32(offset);
  int32_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const int32x4x4_t x = vld1q_s32_x4(acc + i);
    vst1q_s8(out + i, narrow_s32x4_s8(rq(vsubq_s32(x.val[0], off)), rq(vsubq_s32(x.val[1], off)),
                                      rq(vsubq_s32(x.val[2], off)), rq(vsubq_s32(x.val[3], off))));
  }
  if (i < n) requantize_row_s8_ref(acc + i, n - i, offset, multiplier, shift, zero_point, out + i);
}

namespace {

#if defined(__linux__)
constexpr unsigned long kHwcapAsimdDp = 1ul << 20;  // AT_HWCAP: SDOT / UDOT
constexpr unsigned long kHwcap2I8mm = 1ul << 13;    // AT_HWCAP2: SMMLA / USMMLA / UMMLA
#endif

// The best level this CPU runs: the build's floor, raised by the kernel's
// HWCAP report on Linux.
int cpu_level() {
#if defined(__ARM_FEATURE_DOTPROD) && defined(__ARM_FEATURE_MATMUL_INT8)
  int lvl = 2;
#elif defined(__ARM_FEATURE_DOTPROD)
  int lvl = 1;
#else
  int lvl = 0;
#endif
#if defined(__linux__)
  const unsigned long hwcap = getauxval(AT_HWCAP);
  if ((hwcap & kHwcapAsimdDp) != 0 && lvl < 1) lvl = 1;
  if ((hwcap & kHwcapAsimdDp) != 0 && (getauxval(AT_HWCAP2) & kHwcap2I8mm) != 0) lvl = 2;
#endif
  return lvl;
}

RuntimeLevel<cpu_level> g_level;

}  // namespace

bool kernels_s8_supported(int lvl) { return lvl >= 0 && lvl <= cpu_level(); }

int kernels_s8_level() { return g_level.get(); }

bool kernels_s8_select(int lvl) { return g_level.select(lvl, kernels_s8_supported); }

const char* kernels_s8_level_name(int lvl) {
  switch (lvl) {
    case 0: return "neon";
    case 1: return "dotprod";
    case 2: return "i8mm";
    default: return "?";
  }
}

const char* kernels_s8_name() {
#if defined(__ARM_FEATURE_DOTPROD)
  return "neon-dotprod";
#else
  return "neon";
#endif
}

}  // namespace detail
}  // namespace attn

#endif  // ATTN_S8_KERNELS_NEON
