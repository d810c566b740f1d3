// AArch64 query-tile int8 kernels (see kernels/s8/kernels_s8.h) for the tiled
// core of attend_s8, chosen at run time (kernel_set_neon.h):
//   level 1 "dotprod"  SDOT / UDOT GEMMs with the requantizations in their
//                      epilogues, NEON packing, the byte-table softmax
//   level 0 "neon"     the references (attend_s8 keeps the one-row core)
// Each entry gives the bits of its *_ref. The dot product code is compiled
// for +dotprod by a target pragma, so the library needs no -march for it and
// runs it only where the CPU has it.
//
// Packed layouts at level 1 (sizes kpack_s8_bytes / vpack_s8_bytes):
//   K        the reference layout: blocks of 16 keys, groups of 4 columns of
//            16 keys x 4 bytes (one 16-byte vector per 4 keys: SDOT by one
//            lane of a query vector gives 4 keys' partial sums)
//   Q tile   the reference u = q ^ 0x80; the GEMM flips each loaded vector
//            back to q: sum (q - zp) k = sum q k - zp sum k
//   V        the reference layout with every byte ^ 0x80 (v + 128, unsigned):
//            UDOT of the unsigned weights by v + 128 gives
//            sum w v + 128 sum w, and 128 sum w is subtracted per row
//
// GEMM blocking: 4 query rows x 16 keys (Q K^T) or 4 query rows x 16 columns
// (P V) in 16 accumulators; per 4 groups of depth, one vector per query row
// and 4 x 4 packed vectors (4-register loads), 64 dot products of 16 MACs.
#include "kernels/s8/kernels_s8.h"

#if defined(ATTN_S8_KERNELS_NEON)
#include <arm_neon.h>

#include <cstring>

#include "kernels/s8/fixedpoint.h"
#include "kernels/s8/neon/requantize_neon.h"

namespace attn {
namespace detail {
namespace {

bool level_dotprod() { return kernels_s8_neon_level() >= 1; }

constexpr int kRows = 4;  // query rows per GEMM block

// The byte-table softmax's lut: three byte planes of E12[d] =
// RoundingDivideByPOT(exp_table[d], 12) (< 2^20), d = max - x in [0, 255].
constexpr std::size_t kPlaneBytes = 256;
static_assert(3 * kPlaneBytes <= kSoftmaxS8LutBytes, "softmax lut");

// The largest d = max - x the reference reads the exp table at (diff >= diff_min).
int32_t max_diff(int32_t diff_min) { return -diff_min < 255 ? -diff_min : 255; }

}  // namespace

void softmax_s8_tile_prepare(const int32_t* exp_table, int32_t diff_min, int32_t n_max,
                             void* lut) {
  (void)n_max;
  auto* planes = static_cast<uint8_t*>(lut);
  const uint32x4_t dlim = vdupq_n_u32(static_cast<uint32_t>(max_diff(diff_min)));
  const uint32x4_t step = vdupq_n_u32(4);
  uint32x4_t d0 = {0, 1, 2, 3};
  for (int32_t d = 0; d < 256; d += 8) {
    // E12 of the entries the reference reads (d <= -diff_min), else 0.
    const uint32x4_t d1 = vaddq_u32(d0, step);
    const uint32x4_t a = vandq_u32(vreinterpretq_u32_s32(vrshrq_n_s32(vld1q_s32(exp_table + d), 12)),
                                   vcleq_u32(d0, dlim));
    const uint32x4_t b = vandq_u32(vreinterpretq_u32_s32(vrshrq_n_s32(vld1q_s32(exp_table + d + 4), 12)),
                                   vcleq_u32(d1, dlim));
    d0 = vaddq_u32(d1, step);
    const uint16x8_t lo = vcombine_u16(vmovn_u32(a), vmovn_u32(b));
    const uint16x8_t hi = vcombine_u16(vshrn_n_u32(a, 16), vshrn_n_u32(b, 16));
    vst1_u8(planes + d, vmovn_u16(lo));
    vst1_u8(planes + kPlaneBytes + d, vshrn_n_u16(lo, 8));
    vst1_u8(planes + 2 * kPlaneBytes + d, vmovn_u16(hi));
  }
}

#pragma GCC push_options
#pragma GCC target("arch=armv8.2-a+dotprod")

namespace {

// ------------------------------------------------------------------ packing

// Keys j..j+3 (all present), n % 16 == 0: each 16-column vector of the four
// rows, seen as 4 int32 groups, transposed into 4 group vectors of 4 keys.
void kpack_four_keys(const int8_t* k, std::size_t k_stride, int32_t n, int8_t* dst,
                     int32_t* ksum) {
  const int8x16_t ones = vdupq_n_s8(1);
  int32x4_t s = vdupq_n_s32(0);
  for (int32_t h = 0; h < n; h += 16) {
    int32x4_t a[4];
    for (int r = 0; r < 4; ++r) {
      a[r] = vreinterpretq_s32_s8(vld1q_s8(k + static_cast<std::size_t>(r) * k_stride + h));
    }
    const int32x4_t t0 = vtrn1q_s32(a[0], a[1]), t1 = vtrn2q_s32(a[0], a[1]);
    const int32x4_t t2 = vtrn1q_s32(a[2], a[3]), t3 = vtrn2q_s32(a[2], a[3]);
    const int64x2_t g[4] = {vtrn1q_s64(vreinterpretq_s64_s32(t0), vreinterpretq_s64_s32(t2)),
                            vtrn1q_s64(vreinterpretq_s64_s32(t1), vreinterpretq_s64_s32(t3)),
                            vtrn2q_s64(vreinterpretq_s64_s32(t0), vreinterpretq_s64_s32(t2)),
                            vtrn2q_s64(vreinterpretq_s64_s32(t1), vreinterpretq_s64_s32(t3))};
    for (int x = 0; x < 4; ++x) {
      const int8x16_t v = vreinterpretq_s8_s64(g[x]);
      vst1q_s8(dst + (static_cast<std::size_t>(h / 4 + x)) * 64, v);
      s = vdotq_s32(s, v, ones);
    }
  }
  vst1q_s32(ksum, s);
}

void kpack_dot(const int8_t* k, std::size_t k_stride, int32_t nkeys, int32_t n, int8_t* packed,
               int32_t* ksum) {
  const auto groups = static_cast<std::size_t>(n / 4);
  const int32_t blocks = (nkeys + 15) / 16;
  for (int32_t b = 0; b < blocks; ++b) {
    int8_t* pb = packed + static_cast<std::size_t>(b) * groups * 64;
    for (int32_t r = 0; r < 16; r += 4) {
      const int32_t j = 16 * b + r;
      if (j + 4 <= nkeys) {
        kpack_four_keys(k + static_cast<std::size_t>(j) * k_stride, k_stride, n, pb + r * 4,
                        ksum + j);
        continue;
      }
      for (int32_t t = 0; t < 4; ++t) {  // the last, partial block: key by key
        const auto rt = static_cast<std::size_t>(r + t);
        int32_t s = 0;
        for (std::size_t g = 0; g < groups; ++g) {
          int8_t* d = pb + g * 64 + rt * 4;
          if (j + t < nkeys) {
            std::memcpy(d, k + static_cast<std::size_t>(j + t) * k_stride + 4 * g, 4);
            s += d[0] + d[1] + d[2] + d[3];
          } else {
            std::memset(d, 0, 4);
          }
        }
        ksum[j + t] = s;
      }
    }
  }
}

void qtile_pack_dot(const int8_t* q, std::size_t q_stride, int32_t nq, int32_t zp, int32_t n,
                    uint8_t* u, int32_t* qsum) {
  const std::size_t row = round_up_s8(static_cast<std::size_t>(n), 4);
  const int8x16_t ones = vdupq_n_s8(1);
  const uint8x16_t flip = vdupq_n_u8(0x80);
  for (int32_t i = 0; i < nq; ++i) {
    const int8_t* qi = q + static_cast<std::size_t>(i) * q_stride;
    uint8_t* ui = u + static_cast<std::size_t>(i) * row;
    int32x4_t sv = vdupq_n_s32(0);
    int32_t c = 0;
    for (; c + 16 <= n; c += 16) {
      const int8x16_t x = vld1q_s8(qi + c);
      sv = vdotq_s32(sv, x, ones);
      vst1q_u8(ui + c, veorq_u8(vreinterpretq_u8_s8(x), flip));
    }
    int32_t s = vaddvq_s32(sv);
    for (; c < n; ++c) {
      ui[c] = static_cast<uint8_t>(static_cast<uint8_t>(qi[c]) ^ 0x80u);
      s += qi[c];
    }
    for (std::size_t t = static_cast<std::size_t>(n); t < row; ++t) ui[t] = 0;
    qsum[i] = s - zp * n;
  }
}

void vpack_dot(const int8_t* v, std::size_t stride, int32_t nrows, int32_t n, int8_t* packed) {
  const int32_t cblocks = (n + 15) / 16;
  const int32_t groups = (nrows + 3) / 4;
  const uint8x16_t flip = vdupq_n_u8(0x80);
  auto* out = reinterpret_cast<uint8_t*>(packed);
  if (n % 16 != 0) {
    // Partial column blocks: the reference layout, flipped.
    vpack_s8_ref(v, stride, nrows, n, packed);
    const std::size_t bytes = vpack_s8_bytes(nrows, n);
    for (std::size_t i = 0; i < bytes; i += 16) vst1q_u8(out + i, veorq_u8(vld1q_u8(out + i), flip));
    return;
  }
  for (int32_t g = 0; g < groups; ++g) {
    for (int32_t cb = 0; cb < cblocks; ++cb) {
      uint8x16x4_t x;
      for (int t = 0; t < 4; ++t) {
        const int32_t r = 4 * g + t;
        x.val[t] = r < nrows ? veorq_u8(vld1q_u8(reinterpret_cast<const uint8_t*>(
                                            v + static_cast<std::size_t>(r) * stride + 16 * cb)),
                                        flip)
                             : flip;
      }
      vst4q_u8(out + (static_cast<std::size_t>(g) * static_cast<std::size_t>(cblocks) +
                      static_cast<std::size_t>(cb)) * 64,
               x);
    }
  }
}

// ------------------------------------------------------------------ Q K^T

template <int L>
inline void qk_lane(int32x4_t (&acc)[4], const int8x16x4_t& kv, int8x16_t qv) {
  acc[0] = vdotq_laneq_s32(acc[0], kv.val[0], qv, L);
  acc[1] = vdotq_laneq_s32(acc[1], kv.val[1], qv, L);
  acc[2] = vdotq_laneq_s32(acc[2], kv.val[2], qv, L);
  acc[3] = vdotq_laneq_s32(acc[3], kv.val[3], qv, L);
}

// sum_c q[r][c] k[j][c] for R query rows (u rows of `row` bytes) and the 16
// keys of one packed block: acc[r][x] lane l is key 4 x + l.
template <int R>
void qk_block(const uint8_t* u, std::size_t row, const int8_t* kb, int32_t groups,
              int32x4_t (&acc)[R][4]) {
  for (auto& a : acc) a[0] = a[1] = a[2] = a[3] = vdupq_n_s32(0);
  const uint8x16_t flip = vdupq_n_u8(0x80);
  int32_t g = 0;
  for (; g + 4 <= groups; g += 4) {
    int8x16_t qv[R];
    for (int r = 0; r < R; ++r) {
      qv[r] = vreinterpretq_s8_u8(veorq_u8(vld1q_u8(u + r * row + 4 * static_cast<std::size_t>(g)), flip));
    }
    const int8_t* kg = kb + static_cast<std::size_t>(g) * 64;
    const int8x16x4_t k0 = vld1q_s8_x4(kg), k1 = vld1q_s8_x4(kg + 64);
    const int8x16x4_t k2 = vld1q_s8_x4(kg + 128), k3 = vld1q_s8_x4(kg + 192);
    for (int r = 0; r < R; ++r) {
      qk_lane<0>(acc[r], k0, qv[r]);
      qk_lane<1>(acc[r], k1, qv[r]);
      qk_lane<2>(acc[r], k2, qv[r]);
      qk_lane<3>(acc[r], k3, qv[r]);
    }
  }
  for (; g < groups; ++g) {
    const int8x16x4_t kv = vld1q_s8_x4(kb + static_cast<std::size_t>(g) * 64);
    for (int r = 0; r < R; ++r) {
      uint32_t x = 0;
      std::memcpy(&x, u + r * row + 4 * static_cast<std::size_t>(g), 4);
      const int8x16_t qd = vreinterpretq_s8_u32(vdupq_n_u32(x ^ 0x80808080u));
      qk_lane<0>(acc[r], kv, qd);
    }
  }
}

// R rows of the tile against every key block; epi(r, b, v) receives row r's
// scores of keys 16 b .. 16 b + 15 (sum (q - zp) k).
template <int R, typename Epilogue>
void qk_rows(const uint8_t* u, int32_t zp, const int8_t* kpacked, const int32_t* ksum,
             int32_t nkeys, int32_t n, Epilogue epi) {
  const int32_t groups = (n + 3) / 4;
  const std::size_t row = 4 * static_cast<std::size_t>(groups);
  const int32x4_t vzp = vdupq_n_s32(zp);
  for (int32_t b = 0; b * 16 < nkeys; ++b) {
    int32x4_t acc[R][4];
    qk_block<R>(u, row, kpacked + static_cast<std::size_t>(b) * row * 16, groups, acc);
    const int32x4x4_t ks = vld1q_s32_x4(ksum + 16 * b);
    for (int r = 0; r < R; ++r) {
      for (int x = 0; x < 4; ++x) acc[r][x] = vmlsq_s32(acc[r][x], vzp, ks.val[x]);
      epi(r, b, acc[r]);
    }
  }
}

template <typename MakeEpilogue>
void qk_tile_dot(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                 const int32_t* ksum, int32_t nkeys, int32_t n, MakeEpilogue make) {
  const std::size_t row = round_up_s8(static_cast<std::size_t>(n), 4);
  int32_t i = 0;
  for (; i + kRows <= nq; i += kRows) {
    qk_rows<kRows>(u + static_cast<std::size_t>(i) * row, zp, kpacked, ksum, nkeys, n, make(i));
  }
  const auto* ui = u + static_cast<std::size_t>(i) * row;
  switch (nq - i) {
    case 3: qk_rows<3>(ui, zp, kpacked, ksum, nkeys, n, make(i)); break;
    case 2: qk_rows<2>(ui, zp, kpacked, ksum, nkeys, n, make(i)); break;
    case 1: qk_rows<1>(ui, zp, kpacked, ksum, nkeys, n, make(i)); break;
    default: break;
  }
}

// ------------------------------------------------------------------ P V

template <int L>
inline void pv_lane(uint32x4_t (&acc)[4], const uint8x16x4_t& vv, uint8x16_t wv) {
  acc[0] = vdotq_laneq_u32(acc[0], vv.val[0], wv, L);
  acc[1] = vdotq_laneq_u32(acc[1], vv.val[1], wv, L);
  acc[2] = vdotq_laneq_u32(acc[2], vv.val[2], wv, L);
  acc[3] = vdotq_laneq_u32(acc[3], vv.val[3], wv, L);
}

// sum_j w[r][j] (v[j][c] + 128) for R weight rows and the 16 columns of one
// column block (vb: its first group; gstride bytes between groups).
template <int R>
void pv_block(const uint8_t* w, std::size_t w_stride, const uint8_t* vb, std::size_t gstride,
              int32_t groups, uint32x4_t (&acc)[R][4]) {
  for (auto& a : acc) a[0] = a[1] = a[2] = a[3] = vdupq_n_u32(0);
  int32_t g = 0;
  for (; g + 4 <= groups; g += 4) {
    uint8x16_t wv[R];
    for (int r = 0; r < R; ++r) wv[r] = vld1q_u8(w + r * w_stride + 4 * static_cast<std::size_t>(g));
    const uint8_t* vg = vb + static_cast<std::size_t>(g) * gstride;
    const uint8x16x4_t v0 = vld1q_u8_x4(vg), v1 = vld1q_u8_x4(vg + gstride);
    const uint8x16x4_t v2 = vld1q_u8_x4(vg + 2 * gstride), v3 = vld1q_u8_x4(vg + 3 * gstride);
    for (int r = 0; r < R; ++r) {
      pv_lane<0>(acc[r], v0, wv[r]);
      pv_lane<1>(acc[r], v1, wv[r]);
      pv_lane<2>(acc[r], v2, wv[r]);
      pv_lane<3>(acc[r], v3, wv[r]);
    }
  }
  for (; g < groups; ++g) {
    const uint8x16x4_t vv = vld1q_u8_x4(vb + static_cast<std::size_t>(g) * gstride);
    for (int r = 0; r < R; ++r) {
      uint32_t x = 0;
      std::memcpy(&x, w + r * w_stride + 4 * static_cast<std::size_t>(g), 4);
      pv_lane<0>(acc[r], vv, vreinterpretq_u8_u32(vdupq_n_u32(x)));
    }
  }
}

// sum of the first `len` bytes of w (len a multiple of 4).
uint32_t byte_sum(const uint8_t* w, int32_t len) {
  const uint8x16_t ones = vdupq_n_u8(1);
  uint32x4_t s = vdupq_n_u32(0);
  int32_t c = 0;
  for (; c + 16 <= len; c += 16) s = vdotq_u32(s, vld1q_u8(w + c), ones);
  uint32_t t = vaddvq_u32(s);
  for (; c < len; ++c) t += w[c];
  return t;
}

// R rows of weights against every column block; epi(r, cb, v) receives row
// r's sums of columns 16 cb .. 16 cb + 15 (sum w v).
template <int R, typename Epilogue>
void pv_rows(const uint8_t* w, std::size_t w_stride, const int8_t* vpacked, int32_t nrows,
             int32_t n, Epilogue epi) {
  const int32_t groups = (nrows + 3) / 4;
  const int32_t cblocks = (n + 15) / 16;
  const std::size_t gstride = static_cast<std::size_t>(cblocks) * 64;
  const auto* vp = reinterpret_cast<const uint8_t*>(vpacked);
  uint32x4_t bias[R];  // 128 sum w of each row
  for (int r = 0; r < R; ++r) bias[r] = vdupq_n_u32(128u * byte_sum(w + r * w_stride, 4 * groups));
  for (int32_t cb = 0; cb < cblocks; ++cb) {
    uint32x4_t acc[R][4];
    pv_block<R>(w, w_stride, vp + static_cast<std::size_t>(cb) * 64, gstride, groups, acc);
    for (int r = 0; r < R; ++r) {
      int32x4_t s[4];
      for (int x = 0; x < 4; ++x) s[x] = vreinterpretq_s32_u32(vsubq_u32(acc[r][x], bias[r]));
      epi(r, cb, s);
    }
  }
}

template <typename MakeEpilogue>
void pv_tile_dot(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                 int32_t nrows, int32_t n, MakeEpilogue make) {
  int32_t i = 0;
  for (; i + kRows <= nq; i += kRows) {
    pv_rows<kRows>(w + static_cast<std::size_t>(i) * w_stride, w_stride, vpacked, nrows, n, make(i));
  }
  const uint8_t* wi = w + static_cast<std::size_t>(i) * w_stride;
  switch (nq - i) {
    case 3: pv_rows<3>(wi, w_stride, vpacked, nrows, n, make(i)); break;
    case 2: pv_rows<2>(wi, w_stride, vpacked, nrows, n, make(i)); break;
    case 1: pv_rows<1>(wi, w_stride, vpacked, nrows, n, make(i)); break;
    default: break;
  }
}

// ------------------------------------------------------------------ softmax

// tab[d] for 16 indices d, from a 256-byte table of which the first
// 64 * quarters bytes are read (every d < 64 * quarters).
inline uint8x16_t lookup256(const uint8_t* tab, uint8x16_t d, int quarters) {
  uint8x16_t r = vqtbl4q_u8(vld1q_u8_x4(tab), d);
  for (int q = 1; q < quarters; ++q) {
    r = vqtbx4q_u8(r, vld1q_u8_x4(tab + 64 * q), vsubq_u8(d, vdupq_n_u8(static_cast<uint8_t>(64 * q))));
  }
  return r;
}

// softmax_s8_row_w from the lut's byte planes: the row max; the sum of
// E12[max - x] as three byte-plane sums (UDOT by ones); the reciprocal
// (scalar, once per row); the row's weight table wt[d] = min(255,
// RoundingDivideByPOT(SRDHM(scale, exp_table[d]), exponent)) for d up to
// max - min (four lanes per step: VQRDMULH, VRSHL, saturating narrowing); then
// the weights as table lookups, summed by UDOT.
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
  const uint8x16_t ones = vdupq_n_u8(1);
  const int8x16_t vmx = vdupq_n_s8(static_cast<int8_t>(mx));
  uint32x4_t s0 = vdupq_n_u32(0), s1 = s0, s2 = s0;
  for (c = 0; c + 16 <= n; c += 16) {
    const uint8x16_t d = vreinterpretq_u8_s8(vsubq_s8(vmx, vld1q_s8(in + c)));
    s0 = vdotq_u32(s0, lookup256(planes, d, quarters), ones);
    s1 = vdotq_u32(s1, lookup256(planes + kPlaneBytes, d, quarters), ones);
    s2 = vdotq_u32(s2, lookup256(planes + 2 * kPlaneBytes, d, quarters), ones);
  }
  uint32_t sum = vaddvq_u32(s0) + (vaddvq_u32(s1) << 8) + (vaddvq_u32(s2) << 16);
  const int32_t dmax = max_diff(diff_min);
  for (int32_t t = c; t < n; ++t) {
    if (mx - in[t] > dmax) continue;
    sum += static_cast<uint32_t>(q::rounding_divide_by_pot(exp_table[mx - in[t]], 12));
  }
  int num_bits_over_unit = 0;
  const int32_t scale = q::get_reciprocal(static_cast<int32_t>(sum), 12, &num_bits_over_unit);
  const int exponent = num_bits_over_unit + 31 - 8;  // in [23, 34]
  if (exponent > 31) {  // every weight rounds to 0
    std::memset(w, 0, static_cast<std::size_t>(n_pad));
    return 0;
  }
  alignas(16) uint8_t wt[256];
  const int32x4_t right = vdupq_n_s32(-exponent);
  const uint8x16_t dlim = vdupq_n_u8(static_cast<uint8_t>(dmax));
  const uint8x16_t iota = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  for (int32_t d = 0; d < 64 * quarters; d += 16) {
    const int32x4x4_t e = vld1q_s32_x4(exp_table + d);
    uint16x8_t h[2];
    for (int x = 0; x < 2; ++x) {
      const int32x4_t a = vrshlq_s32(vqrdmulhq_n_s32(e.val[2 * x], scale), right);
      const int32x4_t b = vrshlq_s32(vqrdmulhq_n_s32(e.val[2 * x + 1], scale), right);
      h[x] = vcombine_u16(vqmovun_s32(a), vqmovun_s32(b));
    }
    const uint8x16_t kept = vcleq_u8(vaddq_u8(iota, vdupq_n_u8(static_cast<uint8_t>(d))), dlim);
    vst1q_u8(wt + d, vandq_u8(vcombine_u8(vqmovn_u16(h[0]), vqmovn_u16(h[1])), kept));
  }
  uint32x4_t sw = vdupq_n_u32(0);
  for (c = 0; c + 16 <= n; c += 16) {
    const uint8x16_t d = vreinterpretq_u8_s8(vsubq_s8(vmx, vld1q_s8(in + c)));
    const uint8x16_t r = lookup256(wt, d, quarters);
    vst1q_u8(w + c, r);
    sw = vdotq_u32(sw, r, ones);
  }
  uint32_t sum_w = vaddvq_u32(sw);
  for (; c < n; ++c) {
    w[c] = wt[mx - in[c]];
    sum_w += w[c];
  }
  for (; c < n_pad; ++c) w[c] = 0;
  return static_cast<int32_t>(sum_w);
}

}  // namespace

#pragma GCC pop_options

// ------------------------------------------------------------------ entries

bool tile_s8_fast() { return level_dotprod(); }

void kpack_s8(const int8_t* k, std::size_t k_stride, int32_t nkeys, int32_t n, int8_t* packed,
              int32_t* ksum) {
  if (level_dotprod() && n % 16 == 0) {
    kpack_dot(k, k_stride, nkeys, n, packed, ksum);
  } else {
    kpack_s8_ref(k, k_stride, nkeys, n, packed, ksum);
  }
}

void qtile_s8_pack(const int8_t* q, std::size_t q_stride, int32_t nq, int32_t zp, int32_t n,
                   uint8_t* u, int32_t* qsum) {
  if (level_dotprod()) {
    qtile_pack_dot(q, q_stride, nq, zp, n, u, qsum);
  } else {
    qtile_s8_pack_ref(q, q_stride, nq, zp, n, u, qsum);
  }
}

void vpack_s8(const int8_t* v, std::size_t stride, int32_t nrows, int32_t n, int8_t* packed) {
  if (level_dotprod()) {
    vpack_dot(v, stride, nrows, n, packed);
  } else {
    vpack_s8_ref(v, stride, nrows, n, packed);
  }
}

void qk_tile_s8(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                const int32_t* ksum, int32_t nkeys, int32_t n, int32_t* out,
                std::size_t out_stride) {
  if (!level_dotprod()) {
    qk_tile_s8_ref(u, nq, zp, kpacked, ksum, nkeys, n, out, out_stride);
    return;
  }
  qk_tile_dot(u, nq, zp, kpacked, ksum, nkeys, n, [=](int32_t i) {
    return [=](int r, int32_t b, const int32x4_t(&v)[4]) {
      int32_t* o = out + static_cast<std::size_t>(i + r) * out_stride + 16 * static_cast<std::size_t>(b);
      vst1q_s32_x4(o, {{v[0], v[1], v[2], v[3]}});
    };
  });
}

bool qk_tile_s8_rq(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                   const int32_t* ksum, int32_t nkeys, int32_t n, const int32_t* offsets,
                   int32_t multiplier, int32_t shift, int32_t out_zp, int8_t* out,
                   std::size_t out_stride) {
  if (!level_dotprod()) return false;
  const RequantizeNeon rq(multiplier, shift, out_zp);
  qk_tile_dot(u, nq, zp, kpacked, ksum, nkeys, n, [=](int32_t i) {
    return [=](int r, int32_t b, const int32x4_t(&v)[4]) {
      const int32x4_t off = vdupq_n_s32(offsets[i + r]);
      int8_t* o = out + static_cast<std::size_t>(i + r) * out_stride + 16 * static_cast<std::size_t>(b);
      vst1q_s8(o, narrow_s32x4_s8(rq(vsubq_s32(v[0], off)), rq(vsubq_s32(v[1], off)),
                                  rq(vsubq_s32(v[2], off)), rq(vsubq_s32(v[3], off))));
    };
  });
  return true;
}

void pv_tile_s8(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                int32_t nrows, int32_t n, int32_t* acc, std::size_t acc_stride) {
  if (!level_dotprod()) {
    pv_tile_s8_ref(w, w_stride, nq, vpacked, nrows, n, acc, acc_stride);
    return;
  }
  pv_tile_dot(w, w_stride, nq, vpacked, nrows, n, [=](int32_t i) {
    return [=](int r, int32_t cb, const int32x4_t(&v)[4]) {
      int32_t* o = acc + static_cast<std::size_t>(i + r) * acc_stride + 16 * static_cast<std::size_t>(cb);
      vst1q_s32_x4(o, {{v[0], v[1], v[2], v[3]}});
    };
  });
}

bool pv_tile_s8_rq(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                   int32_t nrows, int32_t n, const int32_t* offsets, int32_t multiplier,
                   int32_t shift, int32_t out_zp, int8_t* out, std::size_t out_stride) {
  if (!level_dotprod()) return false;
  const RequantizeNeon rq(multiplier, shift, out_zp);
  pv_tile_dot(w, w_stride, nq, vpacked, nrows, n, [=](int32_t i) {
    return [=](int r, int32_t cb, const int32x4_t(&v)[4]) {
      const int32x4_t off = vdupq_n_s32(offsets[i + r]);
      const int8x16_t b = narrow_s32x4_s8(rq(vsubq_s32(v[0], off)), rq(vsubq_s32(v[1], off)),
                                          rq(vsubq_s32(v[2], off)), rq(vsubq_s32(v[3], off)));
      int8_t* o = out + static_cast<std::size_t>(i + r) * out_stride + 16 * static_cast<std::size_t>(cb);
      const int32_t left = n - 16 * cb;
      if (left >= 16) {
        vst1q_s8(o, b);
      } else {
        alignas(16) int8_t tmp[16];
        vst1q_s8(tmp, b);
        std::memcpy(o, tmp, static_cast<std::size_t>(left));
      }
    };
  });
  return true;
}

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
  for (int32_t r = 0; r < nq; ++r) {
    int8_t* row = rows + static_cast<std::size_t>(r) * stride;
    sum_w[r] = softmax_s8_row_w(lut, exp_table, diff_min, row, reinterpret_cast<uint8_t*>(row),
                                n[r], n_pad);
  }
}

}  // namespace detail
}  // namespace attn

#endif  // ATTN_S8_KERNELS_NEON
