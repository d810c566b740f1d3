// AArch64 packing of the query-tile int8 operands (see kernels/s8/kernels_s8.h)
// in the layouts of the level-1 "dotprod" GEMMs (kernels_s8_tile_neon.cpp;
// level 2 packs V, and K for depths n % 8 == 0, in its own layouts,
// tile_i8mm.h); at level 0 the references. K and the query tile are the reference layouts;
// V is the reference layout with every byte ^ 0x80 (v + 128, the unsigned
// operand of UDOT). Key and query sums by SDOT against ones.
//   kpack_s8       4 keys at a time: each 16-column vector of the 4 rows is
//                  4 int32 groups, transposed (TRN1/TRN2) into 4 group vectors
//   qtile_s8_pack  16 bytes at a time: EOR 0x80, sums
//   vpack_s8       4 rows x 16 columns interleaved by one ST4
#include "kernels/s8/kernels_s8.h"

#if defined(ATTN_S8_KERNELS_NEON)
#include <arm_neon.h>

#include <cstring>

#include "kernels/s8/neon/target_neon.h"
#include "kernels/s8/neon/tile_i8mm.h"

namespace attn {
namespace detail {
namespace {
bool level_dotprod() { return kernels_s8_level() >= 1; }
}  // namespace

#pragma GCC push_options
ATTN_TARGET_DOTPROD

namespace {

// Keys j..j+3 (all present), n % 16 == 0: each 16-column vector of the four
// rows, seen as 4 int32 groups, transposed into 4 group vectors of 4 keys.
void kpack_four_keys(const int8_t* k, std::size_t k_stride, int32_t n, int8_t* dst, int32_t* ksum) {
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
    const std::size_t bytes = round_up_s8(static_cast<std::size_t>(nrows), 4) *
                              round_up_s8(static_cast<std::size_t>(n), 16);
    for (std::size_t i = 0; i < bytes; i += 16)
      vst1q_u8(out + i, veorq_u8(vld1q_u8(out + i), flip));
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
                      static_cast<std::size_t>(cb)) *
                         64,
               x);
    }
  }
}

}  // namespace

#pragma GCC pop_options

void kpack_s8(const int8_t* k, std::size_t k_stride, int32_t nkeys, int32_t n, int8_t* packed,
              int32_t* ksum) {
  if (kernels_s8_level() >= 2 && kpack_i8mm_applies(n)) {
    kpack_s8_i8mm(k, k_stride, nkeys, n, packed, ksum);
  } else if (level_dotprod() && n % 16 == 0) {
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
  if (kernels_s8_level() >= 2) {
    vpack_s8_i8mm(v, stride, nrows, n, packed);
  } else if (level_dotprod()) {
    vpack_dot(v, stride, nrows, n, packed);
  } else {
    vpack_s8_ref(v, stride, nrows, n, packed);
  }
}

}  // namespace detail
}  // namespace attn

#endif  // ATTN_S8_KERNELS_NEON
