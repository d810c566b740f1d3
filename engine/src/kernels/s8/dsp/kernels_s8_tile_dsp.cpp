// Cortex-M4/M7/M33 DSP-extension query-tile int8 kernels (see
// kernels/s8/kernels_s8.h): the packings in this set's own layouts
// (dsp/tile_dsp.h) and the int32 Q K^T and P V products as 2 x 2 register
// blocks of SMLAD (2 MACs an instruction), every loaded operand used twice.
// The products with the requantization fused, which the tiled core takes
// whenever their exact form applies, are in qk_tile_rq_dsp.cpp and
// pv_tile_rq_dsp.cpp. Each is bit-identical to its *_ref version.
#include "kernels/s8/kernels_s8.h"

#if defined(ATTN_S8_KERNELS_DSP) && defined(ATTN_S8_HAS_TILE_GEMMS)

#include <cstring>

#include "kernels/s8/dsp/dsp_ops.h"
#include "kernels/s8/dsp/tile_dsp.h"

namespace attn {
namespace detail {

namespace {

struct Acc2x2 {
  int32_t a00, a01, a10, a11;  // [query or weight row][key or column]
};

// Q K^T of a query pair (qp, Q layout) and a key pair (kp, K layout) over
// groups >= 1 column groups: 3 LDRD + 4 SXTB16 + 8 SMLAD per 16 MACs.
inline Acc2x2 qk_2x2(const void* qp, const int8_t* kp, int32_t groups) {
  int32_t a00 = 0, a01 = 0, a10 = 0, a11 = 0;
  uint32_t q0e, q0o, q1e, q1o, k0, k1, e;
  __asm__ volatile(
      "1:\n\t" ATTN_DSP_QK_GROUP
      "subs %[n], %[n], #1\n\t"
      "bne 1b\n\t"
      : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11), [qp] "+r"(qp),
        [kp] "+r"(kp), [n] "+r"(groups), [q0e] "=&r"(q0e), [q0o] "=&r"(q0o), [q1e] "=&r"(q1e),
        [q1o] "=&r"(q1o), [k0] "=&r"(k0), [k1] "=&r"(k1), [e] "=&r"(e)
      :
      : "cc", "memory");
  return {a00, a01, a10, a11};
}

// P V of a split weight pair (wp, P layout) and the columns c, c + 1 of V
// (vp: its first 16-row block; the next block `block_bytes` further), over
// blocks >= 1 blocks of 16 rows: 3 LDRD + 4 SXTB16 + 8 SMLAD per 16 MACs.
// The block count and stride live in memory (all 14 free registers hold
// operands).
inline Acc2x2 pv_2x2(const uint32_t* wp, const int8_t* vp, int32_t blocks,
                     std::size_t block_bytes) {
  if (blocks <= 0) return {0, 0, 0, 0};
  int32_t a00 = 0, a01 = 0, a10 = 0, a11 = 0;
  uint32_t w0e, w0o, w1e, w1o, x, y, t;
  const uint32_t skip = static_cast<uint32_t>(block_bytes) - 32;  // to the next block
  uint32_t left = static_cast<uint32_t>(blocks);
  __asm__ volatile(
      "1:\n\t" ATTN_DSP_PV_GROUP ATTN_DSP_PV_GROUP ATTN_DSP_PV_GROUP ATTN_DSP_PV_GROUP
      "ldr %[x], %[skip]\n\t"
      "add %[vp], %[vp], %[x]\n\t"
      "ldr %[x], %[left]\n\t"
      "subs %[x], %[x], #1\n\t"
      "str %[x], %[left]\n\t"
      "bne 1b\n\t"
      : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11), [wp] "+r"(wp),
        [vp] "+r"(vp), [left] "+m"(left), [w0e] "=&r"(w0e), [w0o] "=&r"(w0o), [w1e] "=&r"(w1e),
        [w1o] "=&r"(w1o), [x] "=&r"(x), [y] "=&r"(y), [t] "=&r"(t)
      : [skip] "m"(skip)
      : "cc", "memory");
  return {a00, a01, a10, a11};
}

// Stores a 2 x 2 block of int32 results at rows o0, o1 (o1 first: for an odd
// last row it is o0 again, then overwritten), columns j, j + 1 (j + 1 when
// below ncols), each value divided by 2^half (exact: they are multiples).
inline void store_2x2(int32_t* o0, int32_t* o1, int32_t j, int32_t ncols, const Acc2x2& s,
                      int half) {
  o1[j] = q::asr(s.a10, half);
  o0[j] = q::asr(s.a00, half);
  if (j + 1 < ncols) {
    o1[j + 1] = q::asr(s.a11, half);
    o0[j + 1] = q::asr(s.a01, half);
  }
}

}  // namespace

// This set's K layout (dsp/tile_dsp.h), one word per key and column group.
// No key sums: the query tile holds q - zp.
void kpack_s8(const int8_t* k, std::size_t k_stride, int32_t nkeys, int32_t n, int8_t* packed,
              int32_t* ksum) {
  (void)ksum;
  const int32_t groups = dsp::col_groups(n);
  const int32_t full = n / 4;
  for (int32_t j = 0; j < nkeys + (nkeys & 1); ++j) {
    int8_t* pj = packed + static_cast<std::size_t>(j / 2) * dsp::kpair_bytes(n) +
                 static_cast<std::size_t>(j % 2) * 4;
    const int8_t* kj = k + static_cast<std::size_t>(j) * k_stride;
    if (j >= nkeys) {  // the partner of an odd last key
      for (int32_t g = 0; g < groups; ++g) std::memset(pj + static_cast<std::size_t>(g) * 8, 0, 4);
      continue;
    }
    for (int32_t g = 0; g < full; ++g) {
      const uint32_t x = dsp::load4(kj + 4 * g);
      std::memcpy(pj + static_cast<std::size_t>(g) * 8, &x, 4);
    }
    if (full < groups) {
      uint32_t x = 0;
      for (int32_t t = 0; 4 * full + t < n; ++t) {
        x |= static_cast<uint32_t>(static_cast<uint8_t>(kj[4 * full + t])) << (8 * t);
      }
      std::memcpy(pj + static_cast<std::size_t>(full) * 8, &x, 4);
    }
  }
}

std::size_t vpack_s8_offset(int32_t r16, int32_t n) {
  return static_cast<std::size_t>(r16 / 16) * dsp::vblock_bytes(n);
}

// This set's V layout (dsp/tile_dsp.h):
//   packed[((r / 16) * CP + c / 2) * 32 + ((r % 16) / 4) * 8 + (c % 2) * 4 + r % 4] = v[r][c]
// (CP = ceil(n / 2); 0 past nrows or n): round16(nrows) * round2(n) bytes,
// within vpack_s8_bytes. Whole 4 x 4 byte blocks are transposed in registers.
void vpack_s8(const int8_t* v, std::size_t stride, int32_t nrows, int32_t n, int8_t* packed) {
  const int32_t groups = (nrows + 15) / 16 * 4;
  const std::size_t block_bytes = dsp::vblock_bytes(n);
  for (int32_t g = 0; g < groups; ++g) {
    const int8_t* r0 = v + static_cast<std::size_t>(4 * g) * stride;
    int8_t* pg = packed + static_cast<std::size_t>(g / 4) * block_bytes +
                 static_cast<std::size_t>(g % 4) * 8;
    int32_t c = 0;
    if (4 * g + 3 < nrows) {
      for (; c + 4 <= n; c += 4) {
        const uint32_t a = dsp::load4(r0 + c), b = dsp::load4(r0 + stride + c);
        const uint32_t x = dsp::load4(r0 + 2 * stride + c), y = dsp::load4(r0 + 3 * stride + c);
        // (a0 b0 a2 b2), (a1 b1 a3 b3), (x0 y0 x2 y2), (x1 y1 x3 y3)
        const uint32_t ab02 = (a & 0x00ff00ffu) | ((b & 0x00ff00ffu) << 8);
        const uint32_t ab13 = ((a >> 8) & 0x00ff00ffu) | (b & 0xff00ff00u);
        const uint32_t xy02 = (x & 0x00ff00ffu) | ((y & 0x00ff00ffu) << 8);
        const uint32_t xy13 = ((x >> 8) & 0x00ff00ffu) | (y & 0xff00ff00u);
        int8_t* d = pg + static_cast<std::size_t>(c / 2) * 32;
        const uint32_t c0 = dsp::pack_lo(ab02, xy02), c1 = dsp::pack_lo(ab13, xy13);
        const uint32_t c2 = dsp::pack_hi(ab02, xy02), c3 = dsp::pack_hi(ab13, xy13);
        std::memcpy(d, &c0, 4);
        std::memcpy(d + 4, &c1, 4);
        std::memcpy(d + 32, &c2, 4);
        std::memcpy(d + 36, &c3, 4);
      }
    }
    for (; c < n + (n & 1); ++c) {
      int8_t* d = pg + static_cast<std::size_t>(c / 2) * 32 + static_cast<std::size_t>(c % 2) * 4;
      for (int32_t t = 0; t < 4; ++t) {
        const int32_t r = 4 * g + t;
        d[t] = r < nrows && c < n
                   ? v[static_cast<std::size_t>(r) * stride + static_cast<std::size_t>(c)]
                   : int8_t{0};
      }
    }
  }
}

// This set's query tile (dsp/tile_dsp.h): int16 2 (q - zp) from SXTAB16
// (sxtb16(x) - 2 zp, plus sxtb16(x) once more); qsum[i] = sum_c (q[i][c] - zp).
void qtile_s8_pack(const int8_t* q, std::size_t q_stride, int32_t nq, int32_t zp, int32_t n,
                   uint8_t* u, int32_t* qsum) {
  const int32_t groups = dsp::col_groups(n);
  const int32_t full = n / 4;
  const auto neg2zp =
      static_cast<int16x2_t>((static_cast<uint32_t>(-2 * zp) & 0xffffu) * 0x00010001u);
  constexpr int16x2_t kOnes = 0x00010001;
  for (int32_t i = 0; i < nq + (nq & 1); ++i) {
    const int8_t* qi = q + static_cast<std::size_t>(i) * q_stride;
    auto* pi = static_cast<uint32_t*>(
                   static_cast<void*>(u + static_cast<std::size_t>(i / 2) * dsp::qpair_bytes(n))) +
               static_cast<std::size_t>(i % 2) * 2;
    if (i >= nq) {  // the partner of an odd last row
      for (int32_t g = 0; g < groups; ++g) pi[4 * g] = pi[4 * g + 1] = 0;
      continue;
    }
    int32_t s2 = 0;  // 2 sum (q - zp)
    for (int32_t g = 0; g < full; ++g) {
      const uint32_t x = dsp::load4(qi + 4 * g);
      const int16x2_t e =
          __sxtab16(__sxtab16(neg2zp, static_cast<int8x4_t>(x)), static_cast<int8x4_t>(x));
      const int16x2_t o = dsp::sxtab16_ror8(dsp::sxtab16_ror8(neg2zp, x), x);
      pi[4 * g] = static_cast<uint32_t>(e);
      pi[4 * g + 1] = static_cast<uint32_t>(o);
      s2 = __smlad(e, kOnes, __smlad(o, kOnes, s2));
    }
    if (full < groups) {
      uint16_t h[4] = {0, 0, 0, 0};
      for (int32_t t = 0; 4 * full + t < n; ++t)
        h[t] = static_cast<uint16_t>(2 * (qi[4 * full + t] - zp));
      const auto e = static_cast<int16x2_t>(h[0] | static_cast<uint32_t>(h[2]) << 16);
      const auto o = static_cast<int16x2_t>(h[1] | static_cast<uint32_t>(h[3]) << 16);
      pi[4 * full] = static_cast<uint32_t>(e);
      pi[4 * full + 1] = static_cast<uint32_t>(o);
      s2 = __smlad(e, kOnes, __smlad(o, kOnes, s2));
    }
    qsum[i] = s2 / 2;
  }
}

void qk_tile_s8(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                const int32_t* ksum, int32_t nkeys, int32_t n, int32_t* out,
                std::size_t out_stride) {
  (void)zp;
  (void)ksum;
  const int32_t groups = dsp::col_groups(n);
  for (int32_t i = 0; i < nq; i += 2) {
    const uint8_t* qp = u + static_cast<std::size_t>(i / 2) * dsp::qpair_bytes(n);
    int32_t* o0 = out + static_cast<std::size_t>(i) * out_stride;
    int32_t* o1 = i + 1 < nq ? o0 + out_stride : o0;
    // Rows of out hold round16(nkeys) entries: both keys of a pair fit.
    for (int32_t j = 0; j < nkeys; j += 2) {
      const int8_t* kp = kpacked + static_cast<std::size_t>(j / 2) * dsp::kpair_bytes(n);
      store_2x2(o0, o1, j, nkeys + 1, qk_2x2(qp, kp, groups), 1);  // the query tile is 2 (q - zp)
    }
  }
}

void pv_tile_s8(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                int32_t nrows, int32_t n, int32_t* acc, std::size_t acc_stride, void* work) {
  const int32_t blocks = (nrows + 15) / 16;
  const std::size_t block_bytes = dsp::vblock_bytes(n);
  auto* wp = static_cast<uint32_t*>(work);
  for (int32_t i = 0; i < nq; i += 2) {
    const uint8_t* w0 = w + static_cast<std::size_t>(i) * w_stride;
    dsp::split_weights(w0, i + 1 < nq ? w0 + w_stride : w0, 4 * blocks, false, wp);
    int32_t* o0 = acc + static_cast<std::size_t>(i) * acc_stride;
    int32_t* o1 = i + 1 < nq ? o0 + acc_stride : o0;
    // Rows of acc hold round16(n) entries: both columns of a pair fit.
    for (int32_t c = 0; c < n; c += 2) {
      const Acc2x2 s =
          pv_2x2(wp, vpacked + static_cast<std::size_t>(c / 2) * 32, blocks, block_bytes);
      store_2x2(o0, o1, c, n + 1, s, 0);
    }
  }
}

bool tile_s8_fast() { return true; }

}  // namespace detail
}  // namespace attn

#endif  // ATTN_S8_KERNELS_DSP && ATTN_S8_HAS_TILE_GEMMS
