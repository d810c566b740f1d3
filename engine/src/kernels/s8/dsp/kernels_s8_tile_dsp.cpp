// Cortex-M4/M7/M33 DSP-extension query-tile int8 kernels (see
// kernels/s8/kernels_s8.h): the Q K^T and P V GEMMs of the tiled core as
// 2 x 2 register blocks of SMLAD (2 MACs an instruction), every loaded
// operand used twice. K keeps the reference packing (kpack_s8_ref); the query
// tile and V are packed in this set's own layouts (below), so only this set's
// pack and GEMM kernels go together.
// Each is bit-identical to its *_ref version.
#include "kernels/s8/kernels_s8.h"

#if defined(ATTN_S8_KERNELS_DSP) && defined(ATTN_S8_HAS_TILE_GEMMS)

#include <cstring>

#include "kernels/s8/dsp/dsp_ops.h"

namespace attn {
namespace detail {

namespace {

// The packed query tile: per pair of query rows and group of 4 columns the
// words (a0, a2), (a1, a3), (b0, b2), (b1, b3) of int16 q - zp (rows a, b;
// SXTB16 / SXTB16 ROR #8 take those halves from a key word); 0 past n and
// in the partner of an odd last row.
std::size_t qpair_halfwords(int32_t n) { return 8 * static_cast<std::size_t>((n + 3) / 4); }

struct Acc2x2 {
  int32_t a00, a01, a10, a11;  // [query or weight row][key or column]
};

// Q K^T of a query pair (qp, qpair layout) and the keys r, r + 1 of a
// kpack_s8 block (kb = block + 4 r), over groups >= 1 column groups:
// 3 LDRD + 4 SXTB16 + 8 SMLAD per 16 MACs (14 registers).
inline Acc2x2 qk_2x2(const void* qp, const int8_t* kb, int32_t groups) {
  if (groups <= 0) return {0, 0, 0, 0};
  int32_t a00 = 0, a01 = 0, a10 = 0, a11 = 0;
  uint32_t q0e, q0o, q1e, q1o, k0, k1, e;
  __asm__ volatile(
      "1:\n\t"
      "ldrd %[q0e], %[q0o], [%[qp]], #8\n\t"
      "ldrd %[q1e], %[q1o], [%[qp]], #8\n\t"
      "ldrd %[k0], %[k1], [%[kb]], #64\n\t"
      "sxtb16 %[e], %[k0]\n\t"
      "sxtb16 %[k0], %[k0], ror #8\n\t"
      "smlad %[a00], %[q0e], %[e], %[a00]\n\t"
      "smlad %[a10], %[q1e], %[e], %[a10]\n\t"
      "smlad %[a00], %[q0o], %[k0], %[a00]\n\t"
      "smlad %[a10], %[q1o], %[k0], %[a10]\n\t"
      "sxtb16 %[e], %[k1]\n\t"
      "sxtb16 %[k1], %[k1], ror #8\n\t"
      "smlad %[a01], %[q0e], %[e], %[a01]\n\t"
      "smlad %[a11], %[q1e], %[e], %[a11]\n\t"
      "smlad %[a01], %[q0o], %[k1], %[a01]\n\t"
      "smlad %[a11], %[q1o], %[k1], %[a11]\n\t"
      "subs %[n], %[n], #1\n\t"
      "bne 1b\n\t"
      : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11), [qp] "+r"(qp),
        [kb] "+r"(kb), [n] "+r"(groups), [q0e] "=&r"(q0e), [q0o] "=&r"(q0o), [q1e] "=&r"(q1e),
        [q1o] "=&r"(q1o), [k0] "=&r"(k0), [k1] "=&r"(k1), [e] "=&r"(e)
      :
      : "cc", "memory");
  return {a00, a01, a10, a11};
}

// P V of the weight rows w0, w1 (unsigned bytes, 4 keys a word, 0 past the
// rows read up to a multiple of 16) and the columns c, c + 1 of a DSP
// vpack_s8 column pair (vp: its first 16-row block; the next block
// `block_bytes` further), over blocks >= 1 blocks of 16 rows. UXTB16 /
// SXTB16 split every word into the halves (keys 4g, 4g + 2) and (4g + 1,
// 4g + 3): 2 LDR + 1 LDRD + 8 UXTB16 / SXTB16 + 8 SMLAD per 16 MACs; the
// block count and stride live in memory (all 14 free registers hold
// operands).
#define ATTN_DSP_PV_GROUP \
        "ldr %[x], [%[w0]], #4\n\t" \
        "uxtb16 %[w0e], %[x]\n\t" \
        "uxtb16 %[w0o], %[x], ror #8\n\t" \
        "ldr %[x], [%[w1]], #4\n\t" \
        "uxtb16 %[w1e], %[x]\n\t" \
        "uxtb16 %[w1o], %[x], ror #8\n\t" \
        "ldrd %[x], %[y], [%[vp]], #8\n\t" \
        "sxtb16 %[t], %[x]\n\t" \
        "sxtb16 %[x], %[x], ror #8\n\t" \
        "smlad %[a00], %[w0e], %[t], %[a00]\n\t" \
        "smlad %[a10], %[w1e], %[t], %[a10]\n\t" \
        "smlad %[a00], %[w0o], %[x], %[a00]\n\t" \
        "smlad %[a10], %[w1o], %[x], %[a10]\n\t" \
        "sxtb16 %[t], %[y]\n\t" \
        "sxtb16 %[y], %[y], ror #8\n\t" \
        "smlad %[a01], %[w0e], %[t], %[a01]\n\t" \
        "smlad %[a11], %[w1e], %[t], %[a11]\n\t" \
        "smlad %[a01], %[w0o], %[y], %[a01]\n\t" \
        "smlad %[a11], %[w1o], %[y], %[a11]\n\t"
inline Acc2x2 pv_2x2(const uint8_t* w0, const uint8_t* w1, const int8_t* vp, int32_t blocks,
                     std::size_t block_bytes) {
  if (blocks <= 0) return {0, 0, 0, 0};
  int32_t a00 = 0, a01 = 0, a10 = 0, a11 = 0;
  uint32_t w0e, w0o, w1e, w1o, x, y, t;
  const uint32_t skip = static_cast<uint32_t>(block_bytes) - 32;  // to the next block
  uint32_t left = static_cast<uint32_t>(blocks);
  __asm__ volatile(
      "1:\n\t"
      ATTN_DSP_PV_GROUP ATTN_DSP_PV_GROUP ATTN_DSP_PV_GROUP ATTN_DSP_PV_GROUP
      "ldr %[x], %[skip]\n\t"
      "add %[vp], %[vp], %[x]\n\t"
      "ldr %[x], %[left]\n\t"
      "subs %[x], %[x], #1\n\t"
      "str %[x], %[left]\n\t"
      "bne 1b\n\t"
      : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11), [w0] "+r"(w0),
        [w1] "+r"(w1), [vp] "+r"(vp), [left] "+m"(left), [w0e] "=&r"(w0e), [w0o] "=&r"(w0o),
        [w1e] "=&r"(w1e), [w1o] "=&r"(w1o), [x] "=&r"(x), [y] "=&r"(y), [t] "=&r"(t)
      : [skip] "m"(skip)
      : "cc", "memory");
  return {a00, a01, a10, a11};
}
#undef ATTN_DSP_PV_GROUP

// Q K^T of the tile in 2 x 2 blocks (a PairStore: rows i, i + 1, keys j,
// j + 1), i < nq, j < nkeys (keys past nkeys in the last 16-key block are
// zero in kpack_s8).
template <class Store>
void qk_tile_dsp(const uint8_t* u, int32_t nq, const int8_t* kpacked, int32_t nkeys, int32_t n,
                 Store& store) {
  const int32_t groups = (n + 3) / 4;
  const auto* q = static_cast<const int16_t*>(static_cast<const void*>(u));
  for (int32_t i = 0; i < nq; i += 2) {
    const int16_t* qp = q + static_cast<std::size_t>(i / 2) * qpair_halfwords(n);
    const int8_t* kb = kpacked;
    store.rows(i);
    for (int32_t j = 0; j < nkeys; j += 2) {
      if (j > 0 && j % 16 == 0) kb += static_cast<std::size_t>(groups) * 64;
      const Acc2x2 s = qk_2x2(qp, kb + (j % 16) * 4, groups);
      store(j, s);
    }
  }
}

// P V of the tile in 2 x 2 blocks (a PairStore: rows i, i + 1, columns c,
// c + 1), i < nq, c < n.
// The DSP V packing holds 16-row blocks of ceil(n / 2) column pairs, 32
// bytes each.
template <class Store>
void pv_tile_dsp(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                 int32_t nrows, int32_t n, Store& store) {
  const int32_t blocks = (nrows + 15) / 16;
  const auto block_bytes = static_cast<std::size_t>((n + 1) / 2) * 32;
  for (int32_t i = 0; i < nq; i += 2) {
    const uint8_t* w0 = w + static_cast<std::size_t>(i) * w_stride;
    const uint8_t* w1 = i + 1 < nq ? w0 + w_stride : w0;  // odd tail: row i twice
    store.rows(i);
    for (int32_t c = 0; c < n; c += 2) {
      const Acc2x2 s = pv_2x2(w0, w1, vpacked + static_cast<std::size_t>(c / 2) * 32, blocks,
                              block_bytes);
      store(c, s);
    }
  }
}

// Writes 2 x 2 blocks of rows i, i + 1 (rows(i)) at columns j, j + 1 into
// rows of `stride` entries through convert(value - row offset). Row i + 1
// is stored first: past nrows it is row i again, then overwritten. Column
// j + 1 is written when below `ncols` (callers whose rows have room pass an
// even bound).
template <class T, class Convert>
struct PairStore {
  T* out;
  std::size_t stride;
  int32_t nrows, ncols;
  const int32_t* offsets;  // per row, or null (0)
  Convert convert;
  T* o0 = nullptr;
  T* o1 = nullptr;
  int32_t off0 = 0, off1 = 0;
  void rows(int32_t i) {
    o0 = out + static_cast<std::size_t>(i) * stride;
    const bool pair = i + 1 < nrows;
    o1 = pair ? o0 + stride : o0;
    off0 = offsets != nullptr ? offsets[i] : 0;
    off1 = offsets != nullptr && pair ? offsets[i + 1] : off0;
  }
  void operator()(int32_t j, const Acc2x2& s) {
    o1[j] = convert(s.a10 - off1);
    o0[j] = convert(s.a00 - off0);
    if (j + 1 < ncols) {
      o1[j + 1] = convert(s.a11 - off1);
      o0[j + 1] = convert(s.a01 - off0);
    }
  }
};
template <class T, class Convert>
PairStore<T, Convert> pair_store(T* out, std::size_t stride, int32_t nrows, int32_t ncols,
                                 const int32_t* offsets, Convert convert) {
  return {out, stride, nrows, ncols, offsets, convert};
}

}  // namespace

// The reference K packing (kernels_s8.h), one word per key and column group:
// the key sums from USADA8 over the bytes as unsigned (x ^ 0x80 = x + 128).
void kpack_s8(const int8_t* k, std::size_t k_stride, int32_t nkeys, int32_t n, int8_t* packed,
              int32_t* ksum) {
  const int32_t groups = (n + 3) / 4;
  const int32_t full = n / 4;
  const int32_t blocks = (nkeys + 15) / 16;
  for (int32_t j = 0; j < 16 * blocks; ++j) {
    int8_t* pj = packed + static_cast<std::size_t>(j / 16) * static_cast<std::size_t>(groups) * 64 +
                 static_cast<std::size_t>(j % 16) * 4;
    const int8_t* kj = k + static_cast<std::size_t>(j) * k_stride;
    uint32_t usum = 0;
    for (int32_t g = 0; g < groups; ++g) {
      uint32_t x = 0;
      if (j < nkeys && g < full) {
        x = dsp::load4(kj + 4 * g);
      } else if (j < nkeys) {
        for (int32_t t = 0; 4 * g + t < n; ++t) {
          x |= static_cast<uint32_t>(static_cast<uint8_t>(kj[4 * g + t])) << (8 * t);
        }
      }
      std::memcpy(pj + static_cast<std::size_t>(g) * 64, &x, 4);
      usum = __usada8(x ^ 0x80808080u, 0u, usum);
    }
    ksum[j] = static_cast<int32_t>(usum) - 128 * 4 * groups;
  }
}

// This set's V packing: blocks of 16 rows; in each, per pair of columns
// (c, c + 1) and group of 4 rows the words (v[4g..4g+3][c]) and
// (v[4g..4g+3][c + 1]):
//   packed[((r / 16) * CP + c / 2) * 32 + ((r % 16) / 4) * 8 + (c % 2) * 4 + r % 4] = v[r][c]
// (CP = ceil(n / 2); 0 past nrows or n): round16(nrows) * round2(n) bytes,
// within vpack_s8_bytes. Whole 4 x 4 byte blocks are transposed in registers.
void vpack_s8(const int8_t* v, std::size_t stride, int32_t nrows, int32_t n, int8_t* packed) {
  const int32_t groups = (nrows + 15) / 16 * 4;
  const auto block_bytes = static_cast<std::size_t>((n + 1) / 2) * 32;
  for (int32_t g = 0; g < groups; ++g) {
    const int8_t* r0 = v + static_cast<std::size_t>(4 * g) * stride;
    int8_t* pg = packed + static_cast<std::size_t>(g / 4) * block_bytes + static_cast<std::size_t>(g % 4) * 8;
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
        d[t] = r < nrows && c < n ? v[static_cast<std::size_t>(r) * stride + static_cast<std::size_t>(c)]
                                  : int8_t{0};
      }
    }
  }
}

// This set's query tile (qpair_halfwords above): int16 q - zp (SXTB16 and
// SSUB16 of each word); qsum[i] = sum_c (q[i][c] - zp). The Q K^T kernels
// then need no key sums.
void qtile_s8_pack(const int8_t* q, std::size_t q_stride, int32_t nq, int32_t zp, int32_t n,
                   uint8_t* u, int32_t* qsum) {
  const int32_t groups = (n + 3) / 4;
  const int32_t full = n / 4;
  const uint32_t zz = (static_cast<uint32_t>(zp) & 0xffffu) * 0x00010001u;
  constexpr int16x2_t kOnes = 0x00010001;
  for (int32_t i = 0; i < nq + (nq & 1); ++i) {
    const int8_t* qi = q + static_cast<std::size_t>(i) * q_stride;
    auto* pi = static_cast<uint32_t*>(static_cast<void*>(u)) +
               static_cast<std::size_t>(i / 2) * qpair_halfwords(n) / 2 + static_cast<std::size_t>(i % 2) * 2;
    int32_t s = 0;
    for (int32_t g = 0; g < groups; ++g, pi += 4) {
      if (i >= nq) {
        pi[0] = pi[1] = 0;
        continue;
      }
      if (g < full) {
        const uint32_t x = dsp::load4(qi + 4 * g);
        pi[0] = static_cast<uint32_t>(__ssub16(dsp::sxtb16(x), static_cast<int16x2_t>(zz)));
        pi[1] = static_cast<uint32_t>(__ssub16(dsp::sxtb16_ror8(x), static_cast<int16x2_t>(zz)));
      } else {
        uint16_t h[4] = {0, 0, 0, 0};
        for (int32_t t = 0; 4 * g + t < n; ++t) h[t] = static_cast<uint16_t>(qi[4 * g + t] - zp);
        pi[0] = h[0] | static_cast<uint32_t>(h[2]) << 16;
        pi[1] = h[1] | static_cast<uint32_t>(h[3]) << 16;
      }
      s = __smlad(static_cast<int16x2_t>(pi[0]), kOnes, __smlad(static_cast<int16x2_t>(pi[1]), kOnes, s));
    }
    if (i < nq) qsum[i] = s;
  }
}

void qk_tile_s8(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                const int32_t* ksum, int32_t nkeys, int32_t n, int32_t* out,
                std::size_t out_stride) {
  (void)zp;
  (void)ksum;
  // Rows of out hold round16(nkeys) entries: both keys of a pair fit.
  auto store = pair_store(out, out_stride, nq, nkeys + 1, nullptr, [](int32_t s) { return s; });
  qk_tile_dsp(u, nq, kpacked, nkeys, n, store);
}

bool qk_tile_s8_rq(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                   const int32_t* ksum, int32_t nkeys, int32_t n, const int32_t* offsets,
                   int32_t multiplier, int32_t shift, int32_t out_zp, int8_t* out,
                   std::size_t out_stride) {
  (void)zp;
  (void)ksum;
  // |sum (q - q_zp)(k - k_zp)| <= n * 255 * 255.
  if (!dsp::RequantSmall::fits(static_cast<uint64_t>(n) * 65025u, shift)) return false;
  const dsp::RequantSmall rq(multiplier, shift, out_zp);
  // Rows of out hold round16(nkeys) entries: both keys of a pair fit.
  auto store = pair_store(out, out_stride, nq, nkeys + 1, offsets,
                          [rq](int32_t s) { return static_cast<int8_t>(rq(s)); });
  qk_tile_dsp(u, nq, kpacked, nkeys, n, store);
  return true;
}

void pv_tile_s8(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                int32_t nrows, int32_t n, int32_t* acc, std::size_t acc_stride) {
  // Rows of acc hold round16(n) entries: both columns of a pair fit.
  auto store = pair_store(acc, acc_stride, nq, n + 1, nullptr, [](int32_t s) { return s; });
  pv_tile_dsp(w, w_stride, nq, vpacked, nrows, n, store);
}

bool pv_tile_s8_rq(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                   int32_t nrows, int32_t n, const int32_t* offsets, int32_t multiplier,
                   int32_t shift, int32_t out_zp, int8_t* out, std::size_t out_stride) {
  // |sum_j w_j (v_jc - v_zp)| <= nrows * 255 * 255.
  if (!dsp::RequantSmall::fits(static_cast<uint64_t>(nrows) * 65025u, shift)) return false;
  const dsp::RequantSmall rq(multiplier, shift, out_zp);
  auto store = pair_store(out, out_stride, nq, n, offsets,
                          [rq](int32_t s) { return static_cast<int8_t>(rq(s)); });
  pv_tile_dsp(w, w_stride, nq, vpacked, nrows, n, store);
  return true;
}

bool tile_s8_fast() { return true; }

}  // namespace detail
}  // namespace attn

#endif  // ATTN_S8_KERNELS_DSP && ATTN_S8_HAS_TILE_GEMMS
