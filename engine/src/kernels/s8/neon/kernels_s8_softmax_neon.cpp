// AArch64 softmax rows of the query-tiled int8 core (softmax_s8_tile_prepare,
// softmax_s8_row_w, softmax_s8_tile_w; see kernels/s8/kernels_s8.h): at level
// 1 "dotprod" from byte tables, at level 0 the reference row. Bit-identical to
// softmax_s8_row_w_ref.
//
// TFLite's row softmax reads its exp table at d = max - x in [0, 255]; here
//   the sum of exps      sum E12[d], E12 = RoundingDivideByPOT(exp, 12) < 2^20,
//                        as three byte planes (TBL / TBX over 64-byte quarters,
//                        only those up to max - min), each summed by UDOT
//   the reciprocal       scalar, once per row
//   the weights          w(d) = min(255, RoundingDivideByPOT(SRDHM(scale,
//                        exp[d]), exponent)) as a 256-entry byte table per row
//                        (VQRDMULH, VRSHL, saturating narrowing; up to max -
//                        min), then one table lookup per weight
// Entries past -diff_min read as 0 (the reference skips them), so any
// non-negative table gives the reference's bits.
#include "kernels/s8/kernels_s8.h"

#if defined(ATTN_S8_KERNELS_NEON)
#include <arm_neon.h>

#include <cstring>

#include "kernels/s8/fixedpoint.h"
#include "kernels/s8/neon/target_neon.h"

namespace attn {
namespace detail {
namespace {

bool level_dotprod() { return kernels_s8_level() >= 1; }

// The lut: three byte planes of E12[d].
constexpr std::size_t kPlaneBytes = 256;
static_assert(3 * kPlaneBytes <= kSoftmaxS8LutBytes, "softmax lut");

// The largest d = max - x the reference reads the exp table at (diff >= diff_min).
int32_t max_diff(int32_t diff_min) { return -diff_min < 255 ? -diff_min : 255; }

}  // namespace

void softmax_s8_tile_prepare(const int32_t* exp_table, int32_t diff_min, int32_t n_max, void* lut) {
  (void)n_max;
  auto* planes = static_cast<uint8_t*>(lut);
  const uint32x4_t dlim = vdupq_n_u32(static_cast<uint32_t>(max_diff(diff_min)));
  const uint32x4_t step = vdupq_n_u32(4);
  uint32x4_t d0 = {0, 1, 2, 3};
  for (int32_t d = 0; d < 256; d += 8) {
    // E12 of the entries the reference reads (d <= -diff_min), else 0.
    const uint32x4_t d1 = vaddq_u32(d0, step);
    const uint32x4_t a = vandq_u32(
        vreinterpretq_u32_s32(vrshrq_n_s32(vld1q_s32(exp_table + d), 12)), vcleq_u32(d0, dlim));
    const uint32x4_t b = vandq_u32(
        vreinterpretq_u32_s32(vrshrq_n_s32(vld1q_s32(exp_table + d + 4), 12)), vcleq_u32(d1, dlim));
    d0 = vaddq_u32(d1, step);
    const uint16x8_t lo = vcombine_u16(vmovn_u32(a), vmovn_u32(b));
    const uint16x8_t hi = vcombine_u16(vshrn_n_u32(a, 16), vshrn_n_u32(b, 16));
    vst1_u8(planes + d, vmovn_u16(lo));
    vst1_u8(planes + kPlaneBytes + d, vshrn_n_u16(lo, 8));
    vst1_u8(planes + 2 * kPlaneBytes + d, vmovn_u16(hi));
  }
}

#pragma GCC push_options
ATTN_TARGET_DOTPROD

namespace {

#define ATTN_INLINE inline __attribute__((always_inline))

// r[v] = tab[d[v]] for NV vectors of indices d < 64 * quarters, from a
// 256-byte table read in 64-byte quarters (each loaded once for the NV).
template <int NV>
ATTN_INLINE void lookup256(const uint8_t* tab, const uint8x16_t (&d)[NV], int quarters,
                           uint8x16_t (&r)[NV]) {
  const uint8x16x4_t t0 = vld1q_u8_x4(tab);
  for (int v = 0; v < NV; ++v) r[v] = vqtbl4q_u8(t0, d[v]);
  for (int q = 1; q < quarters; ++q) {
    const uint8x16x4_t t = vld1q_u8_x4(tab + 64 * q);
    const uint8x16_t off = vdupq_n_u8(static_cast<uint8_t>(64 * q));
    for (int v = 0; v < NV; ++v) r[v] = vqtbx4q_u8(r[v], t, vsubq_u8(d[v], off));
  }
}

// s[p] += the byte sums of plane p at d[v] (every lane, or those of mask:
// kMasked). Each table quarter and its indices are loaded / formed once.
template <bool kMasked, int NV>
ATTN_INLINE void plane_sums(const uint8_t* planes, const uint8x16_t (&d)[NV], int quarters,
                            uint8x16_t mask, uint32x4_t& s0, uint32x4_t& s1, uint32x4_t& s2) {
  uint8x16_t r[3][NV];
  for (int p = 0; p < 3; ++p) {
    const uint8x16x4_t t = vld1q_u8_x4(planes + static_cast<std::size_t>(p) * kPlaneBytes);
    for (int v = 0; v < NV; ++v) r[p][v] = vqtbl4q_u8(t, d[v]);
  }
  for (int q = 1; q < quarters; ++q) {
    const uint8x16_t off = vdupq_n_u8(static_cast<uint8_t>(64 * q));
    uint8x16_t idx[NV];
    for (int v = 0; v < NV; ++v) idx[v] = vsubq_u8(d[v], off);
    for (int p = 0; p < 3; ++p) {
      const uint8x16x4_t t =
          vld1q_u8_x4(planes + static_cast<std::size_t>(p) * kPlaneBytes + 64 * q);
      for (int v = 0; v < NV; ++v) r[p][v] = vqtbx4q_u8(r[p][v], t, idx[v]);
    }
  }
  const uint8x16_t ones = vdupq_n_u8(1);
  for (int v = 0; v < NV; ++v) {
    s0 = vdotq_u32(s0, kMasked ? vandq_u8(r[0][v], mask) : r[0][v], ones);
    s1 = vdotq_u32(s1, kMasked ? vandq_u8(r[1][v], mask) : r[1][v], ones);
    s2 = vdotq_u32(s2, kMasked ? vandq_u8(r[2][v], mask) : r[2][v], ones);
  }
}

// Columns in chunks of 4 vectors, then single vectors, then the last partial
// one (its missing lanes read as d = 0 and are masked): f(d, count, mask).
template <typename Chunk>
ATTN_INLINE void row_chunks(const int8_t* in, int32_t n, int8x16_t vmx, Chunk f) {
  int32_t c = 0;
  for (; c + 64 <= n; c += 64) {
    uint8x16_t d[4];
    for (int v = 0; v < 4; ++v)
      d[v] = vreinterpretq_u8_s8(vsubq_s8(vmx, vld1q_s8(in + c + 16 * v)));
    f(c, d, 64);
  }
  for (; c + 16 <= n; c += 16) {
    const uint8x16_t d[1] = {vreinterpretq_u8_s8(vsubq_s8(vmx, vld1q_s8(in + c)))};
    f(c, d, 16);
  }
  if (c < n) {
    alignas(16) int8_t tail[16];
    vst1q_s8(tail, vmx);
    std::memcpy(tail, in + c, static_cast<std::size_t>(n - c));
    const uint8x16_t d[1] = {vreinterpretq_u8_s8(vsubq_s8(vmx, vld1q_s8(tail)))};
    f(c, d, n - c);
  }
}

// Lanes below count.
ATTN_INLINE uint8x16_t lanes_below(int32_t count) {
  const uint8x16_t iota = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  return vcltq_u8(iota, vdupq_n_u8(static_cast<uint8_t>(count < 16 ? count : 16)));
}

// wt[d] for d <= span: min(255, RoundingDivideByPOT(SRDHM(scale, exp[d]),
// exponent)), 0 past dmax; 0 from round16(span + 1) to the end of its
// 64-byte quarter (read by the lookups, never selected).
void weight_table(const int32_t* exp_table, int32_t scale, int exponent, int32_t dmax, int32_t span,
                  uint8_t* wt) {
  const int32x4_t right = vdupq_n_s32(-exponent);
  const int32_t end = (span + 16) / 16 * 16;
  for (int32_t d = end; d % 64 != 0; d += 16) vst1q_u8(wt + d, vdupq_n_u8(0));
  for (int32_t d = 0; d < end; d += 16) {
    const int32x4x4_t e = vld1q_s32_x4(exp_table + d);
    const int32x4_t a0 = vrshlq_s32(vqrdmulhq_n_s32(e.val[0], scale), right);
    const int32x4_t a1 = vrshlq_s32(vqrdmulhq_n_s32(e.val[1], scale), right);
    const int32x4_t a2 = vrshlq_s32(vqrdmulhq_n_s32(e.val[2], scale), right);
    const int32x4_t a3 = vrshlq_s32(vqrdmulhq_n_s32(e.val[3], scale), right);
    const uint16x8_t h0 = vqmovun_high_s32(vqmovun_s32(a0), a1);
    const uint16x8_t h1 = vqmovun_high_s32(vqmovun_s32(a2), a3);
    vst1q_u8(wt + d, vqmovn_high_u16(vqmovn_u16(h0), h1));
  }
  if (dmax + 1 < end) std::memset(wt + dmax + 1, 0, static_cast<std::size_t>(end - dmax - 1));
}

// softmax_s8_row_w from the lut's byte planes: the row max and min; the sum
// of E12[max - x] as three byte-plane sums (UDOT by ones); the reciprocal
// (scalar, once per row); the row's weight table up to max - min; then the
// weights as table lookups, summed by UDOT.
int32_t softmax_row_w_dot(const uint8_t* planes, const int32_t* exp_table, int32_t diff_min,
                          const int8_t* in, uint8_t* w, int32_t n, int32_t n_pad) {
  int8x16_t vmax = vdupq_n_s8(-128), vmin = vdupq_n_s8(127);
  int32_t c = 0;
  for (; c + 16 <= n; c += 16) {
    const int8x16_t x = vld1q_s8(in + c);
    vmax = vmaxq_s8(vmax, x);
    vmin = vminq_s8(vmin, x);
  }
  int32_t mx = vmaxvq_s8(vmax), mn = vminvq_s8(vmin);
  for (; c < n; ++c) {
    mx = in[c] > mx ? in[c] : mx;
    mn = in[c] < mn ? in[c] : mn;
  }
  const int quarters = (mx - mn) / 64 + 1;
  const int8x16_t vmx = vdupq_n_s8(static_cast<int8_t>(mx));
  uint32x4_t s0 = vdupq_n_u32(0), s1 = s0, s2 = s0;
  row_chunks(in, n, vmx, [&](int32_t, const auto& d, int32_t count) {
    if (count < 16) {
      plane_sums<true>(planes, d, quarters, lanes_below(count), s0, s1, s2);
    } else {
      plane_sums<false>(planes, d, quarters, vdupq_n_u8(0xff), s0, s1, s2);
    }
  });
  const uint32_t sum = vaddvq_u32(s0) + (vaddvq_u32(s1) << 8) + (vaddvq_u32(s2) << 16);
  int num_bits_over_unit = 0;
  const int32_t scale = q::get_reciprocal(static_cast<int32_t>(sum), 12, &num_bits_over_unit);
  const int exponent = num_bits_over_unit + 31 - 8;  // in [23, 34]
  if (exponent > 31) {                               // every weight rounds to 0
    std::memset(w, 0, static_cast<std::size_t>(n_pad));
    return 0;
  }
  alignas(16) uint8_t wt[256];
  weight_table(exp_table, scale, exponent, max_diff(diff_min), mx - mn, wt);
  const uint8x16_t ones = vdupq_n_u8(1);
  uint32x4_t sw = vdupq_n_u32(0);
  row_chunks(in, n, vmx, [&](int32_t c0, const auto& d, int32_t count) {
    constexpr int kNv = static_cast<int>(sizeof d / sizeof d[0]);
    uint8x16_t r[kNv];
    lookup256(wt, d, quarters, r);
    if (count < 16) {
      r[0] = vandq_u8(r[0], lanes_below(count));
      alignas(16) uint8_t tmp[16];
      vst1q_u8(tmp, r[0]);
      std::memcpy(w + c0, tmp, static_cast<std::size_t>(count));
    } else {
      for (int v = 0; v < kNv; ++v) vst1q_u8(w + c0 + 16 * v, r[v]);
    }
    for (int v = 0; v < kNv; ++v) sw = vdotq_u32(sw, r[v], ones);
  });
  for (c = n; c < n_pad; ++c) w[c] = 0;
  return static_cast<int32_t>(vaddvq_u32(sw));
}

#undef ATTN_INLINE

}  // namespace

#pragma GCC pop_options

int32_t softmax_s8_row_w(const void* lut, const int32_t* exp_table, int32_t diff_min,
                         const int8_t* in, uint8_t* w, int32_t n, int32_t n_pad) {
  if (n == 0) {
    std::memset(w, 0, static_cast<std::size_t>(n_pad));
    return 0;
  }
  if (level_dotprod()) {
    return softmax_row_w_dot(static_cast<const uint8_t*>(lut), exp_table, diff_min, in, w, n,
                             n_pad);
  }
  softmax_s8_row(exp_table, diff_min, in, reinterpret_cast<int8_t*>(w), n);
  return weights_from_codes_s8(w, n, n_pad);
}

void softmax_s8_tile_w(const void* lut, const int32_t* exp_table, int32_t diff_min, int8_t* rows,
                       std::size_t stride, int32_t nq, const int32_t* n, int32_t n_pad,
                       int32_t* sum_w) {
  if (level_dotprod()) {
    for (int32_t r = 0; r < nq; ++r) {
      int8_t* row = rows + static_cast<std::size_t>(r) * stride;
      auto* w = reinterpret_cast<uint8_t*>(row);
      if (n[r] == 0) {
        std::memset(w, 0, static_cast<std::size_t>(n_pad));
        sum_w[r] = 0;
      } else {
        sum_w[r] = softmax_row_w_dot(static_cast<const uint8_t*>(lut), exp_table, diff_min, row, w,
                                     n[r], n_pad);
      }
    }
    return;
  }
  for (int32_t r = 0; r < nq; ++r) {
    int8_t* row = rows + static_cast<std::size_t>(r) * stride;
    sum_w[r] = softmax_s8_row_w(lut, exp_table, diff_min, row, reinterpret_cast<uint8_t*>(row),
                                n[r], n_pad);
  }
}

}  // namespace detail
}  // namespace attn

#endif  // ATTN_S8_KERNELS_NEON
