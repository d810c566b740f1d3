// Cortex-M55 Helium (MVE) query-tile int8 kernels (see kernels/s8/kernels_s8.h):
// the Q K^T and P V GEMMs of the tiled core as VMLADAVA dot products of
// 16-byte vectors (16 MACs an instruction) in 2 x 2 blocks, every loaded
// vector used twice. The packings are this set's own:
//   K      key rows of round4(n) bytes (0 past n; zero rows past nkeys), key
//          sums; Q K^T = sum q k - zp ksum (VMLADAVA.S8 on the raw bytes)
//   Q      the raw int8 rows, round4(n) bytes each (0 past n)
//   V      V^T as unsigned bytes v ^ 0x80 = v + 128 in 16-row blocks:
//            packed[((r / 16) * round16(n) + c) * 16 + r % 16] = v[r][c] + 128
//          so P V = sum w (v + 128) - 128 sum w (VMLADAVA.U8: w and v + 128
//          both unsigned; sum <= 255 * 255 * 4095 < 2^31)
// Column and key tails are predicated (VCTP). Each is bit-identical to its
// *_ref version.
#include "kernels/s8/kernels_s8.h"

#if defined(ATTN_S8_KERNELS_MVE)

#include <arm_mve.h>

#include <type_traits>

namespace attn {
namespace detail {

namespace {
std::size_t row4(int32_t n) { return round_up_s8(static_cast<std::size_t>(n), 4); }

// The row loop of both GEMMs: f(NU, x0, x1, o0, o1) for each pair of rows
// i, i + 1 of x (stride xs; query or weight rows) and out (stride os), an
// odd last row paired with itself; NU (an integral_constant) is unroll when
// in 1..4 (the asm unrolled that many times), else 0 (the asm loop).
template <typename F>
inline void row_pairs(const uint8_t* x, std::size_t xs, int32_t nq, int32_t* out, std::size_t os,
                      int32_t unroll, F f) {
  for (int32_t i = 0; i < nq; i += 2) {
    const uint8_t* x0 = x + static_cast<std::size_t>(i) * xs;
    const uint8_t* x1 = i + 1 < nq ? x0 + xs : x0;  // odd tail: row i twice
    int32_t* o0 = out + static_cast<std::size_t>(i) * os;
    int32_t* o1 = i + 1 < nq ? o0 + os : o0;
    switch (unroll) {
      case 1: f(std::integral_constant<int, 1>{}, x0, x1, o0, o1); break;
      case 2: f(std::integral_constant<int, 2>{}, x0, x1, o0, o1); break;
      case 3: f(std::integral_constant<int, 3>{}, x0, x1, o0, o1); break;
      case 4: f(std::integral_constant<int, 4>{}, x0, x1, o0, o1); break;
      default: f(std::integral_constant<int, 0>{}, x0, x1, o0, o1); break;
    }
  }
}
}  // namespace

namespace {

// Copies n int8 values to dst (zero from n up to round4(n)) and returns
// their sum: whole vectors, then the tail under VCTP.
int32_t copy_row_s8(const int8_t* src, int32_t n, int8_t* dst) {
  int32_t s = 0;
  int32_t c = 0;
  for (; c + 16 <= n; c += 16) {
    const int8x16_t x = vldrbq_s8(src + c);
    vstrbq_s8(dst + c, x);
    s = vaddvaq_s8(s, x);
  }
  const auto row = static_cast<int32_t>(row4(n));
  if (c < row) {
    const int8x16_t x = vldrbq_z_s8(src + c, vctp8q(static_cast<uint32_t>(n - c)));
    vstrbq_p_s8(dst + c, x, vctp8q(static_cast<uint32_t>(row - c)));
    s = vaddvaq_s8(s, x);
  }
  return s;
}

}  // namespace

void kpack_s8(const int8_t* k, std::size_t k_stride, int32_t nkeys, int32_t n, int8_t* packed,
              int32_t* ksum) {
  const std::size_t row = row4(n);
  const int32_t keys16 = (nkeys + 15) / 16 * 16;
  for (int32_t j = 0; j < nkeys; ++j) {
    ksum[j] = copy_row_s8(k + static_cast<std::size_t>(j) * k_stride, n,
                          packed + static_cast<std::size_t>(j) * row);
  }
  for (int32_t j = nkeys; j < keys16; ++j) {  // zero keys up to the 16-key block
    int8_t* pj = packed + static_cast<std::size_t>(j) * row;
    for (std::size_t c = 0; c < row; ++c) pj[c] = 0;
    ksum[j] = 0;
  }
}

void qtile_s8_pack(const int8_t* q, std::size_t q_stride, int32_t nq, int32_t zp, int32_t n,
                   uint8_t* u, int32_t* qsum) {
  const std::size_t row = row4(n);
  for (int32_t i = 0; i < nq; ++i) {
    qsum[i] = copy_row_s8(q + static_cast<std::size_t>(i) * q_stride, n,
                          reinterpret_cast<int8_t*>(u + static_cast<std::size_t>(i) * row)) -
              zp * n;
  }
}

namespace {

// The 2 x 2 block of Q K^T (query rows q0, q1, key rows k0, k1): NC whole
// 16-byte vectors unrolled (4 VLDRB + 4 VMLADAV(A) each; the first VMLADAV
// starts the sums; qk_rows passes no tail then), or with NC = 0 `chunks` of
// them in a loop (in asm: GCC 12 keeps the query vectors live across key
// pairs and spills them), then a tail of `tail` columns (< 16) under VCTP.
// clang-format off
#define ATTN_MVE_QK_LOADS                 \
  "vldrb.u8 q0, [%[q0]], #16\n\t"         \
  "vldrb.u8 q1, [%[q1]], #16\n\t"         \
  "vldrb.u8 q2, [%[k0]], #16\n\t"         \
  "vldrb.u8 q3, [%[k1]], #16\n\t"
#define ATTN_MVE_QK_MACS(a)               \
  "vmladav" a ".s8 %[a00], q0, q2\n\t"    \
  "vmladav" a ".s8 %[a01], q0, q3\n\t"    \
  "vmladav" a ".s8 %[a10], q1, q2\n\t"    \
  "vmladav" a ".s8 %[a11], q1, q3\n\t"
// clang-format on
template <int NC>
inline void qk_2x2(const int8_t* q0, const int8_t* q1, const int8_t* k0, const int8_t* k1,
                   int32_t chunks, int32_t tail, int32_t* a) {
  int32_t a00 = 0, a01 = 0, a10 = 0, a11 = 0;
  if (NC > 0) {
    // clang-format off
    __asm__ volatile(
        ATTN_MVE_QK_LOADS ATTN_MVE_QK_MACS("")
        ".rept %c[more]\n\t" ATTN_MVE_QK_LOADS ATTN_MVE_QK_MACS("a") ".endr\n\t"
        : [a00] "=&Te"(a00), [a01] "=&Te"(a01), [a10] "=&Te"(a10), [a11] "=&Te"(a11), [q0] "+r"(q0),
          [q1] "+r"(q1), [k0] "+r"(k0), [k1] "+r"(k1)
        : [more] "i"(NC > 0 ? NC - 1 : 0)
        : "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7");
    // clang-format on
  } else if (chunks > 0) {
    // clang-format off
    __asm__ volatile("1:\n\t" ATTN_MVE_QK_LOADS ATTN_MVE_QK_MACS("a")
                     "subs %[n], %[n], #1\n\t"
                     "bne 1b\n\t"
                     : [a00] "+Te"(a00), [a01] "+Te"(a01), [a10] "+Te"(a10), [a11] "+Te"(a11),
                       [q0] "+r"(q0), [q1] "+r"(q1), [k0] "+r"(k0), [k1] "+r"(k1), [n] "+r"(chunks)
                     :
                     : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7");
    // clang-format on
  }
  if (tail > 0) {
    const mve_pred16_t p = vctp8q(static_cast<uint32_t>(tail));
    const int8x16_t x0 = vldrbq_z_s8(q0, p), x1 = vldrbq_z_s8(q1, p);
    const int8x16_t y0 = vldrbq_z_s8(k0, p), y1 = vldrbq_z_s8(k1, p);
    a00 = vmladavaq_s8(a00, x0, y0);
    a01 = vmladavaq_s8(a01, x0, y1);
    a10 = vmladavaq_s8(a10, x1, y0);
    a11 = vmladavaq_s8(a11, x1, y1);
  }
  a[0] = a00;
  a[1] = a01;
  a[2] = a10;
  a[3] = a11;
}
#undef ATTN_MVE_QK_LOADS
#undef ATTN_MVE_QK_MACS

// Q K^T of a pair of query rows against every key pair (see qk_tile_s8).
template <int NC>
void qk_rows(const int8_t* q0, const int8_t* q1, const int8_t* kpacked, const int32_t* ksum,
             int32_t zp, int32_t nkeys, int32_t n, int32_t* o0, int32_t* o1) {
  const std::size_t row = row4(n);
  const int8_t* k0 = kpacked;
  // kpack has zero keys up to round16, rows of out round16(nkeys) entries:
  // the pair's second key is always there.
  for (int32_t j = 0; j < nkeys; j += 2, k0 += 2 * row) {
    int32_t a[4];
    qk_2x2<NC>(q0, q1, k0, k0 + row, n / 16, NC > 0 ? 0 : n % 16, a);
    const int32_t z0 = zp * ksum[j], z1 = zp * ksum[j + 1];
    o1[j] = a[2] - z0;
    o1[j + 1] = a[3] - z1;
    o0[j] = a[0] - z0;
    o0[j + 1] = a[1] - z1;
  }
}

}  // namespace

void qk_tile_s8(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                const int32_t* ksum, int32_t nkeys, int32_t n, int32_t* out,
                std::size_t out_stride) {
  // Up to 64 whole vectors unrolled.
  row_pairs(u, row4(n), nq, out, out_stride, n % 16 == 0 ? n / 16 : 0,
            [=](auto nc, const uint8_t* u0, const uint8_t* u1, int32_t* o0, int32_t* o1) {
              // A named constant: cppcheck 2.10 breaks on decltype(nc)::value
              // substituted into qk_rows' `NC > 0 ? ..`.
              constexpr int kNc = decltype(nc)::value;
              qk_rows<kNc>(reinterpret_cast<const int8_t*>(u0), reinterpret_cast<const int8_t*>(u1),
                           kpacked, ksum, zp, nkeys, n, o0, o1);
            });
}

void vpack_s8(const int8_t* v, std::size_t stride, int32_t nrows, int32_t n, int8_t* packed) {
  const auto n16 = round_up_s8(static_cast<std::size_t>(n), 16);
  // Byte offsets of 16 consecutive columns in V^T: 16 apart.
  const uint8x16_t offsets = vmulq_n_u8(vidupq_n_u8(0, 1), 16);
  const int32_t rows16 = (nrows + 15) / 16 * 16;
  for (int32_t r = 0; r < rows16; ++r) {
    uint8_t* base = reinterpret_cast<uint8_t*>(packed) +
                    static_cast<std::size_t>(r / 16) * n16 * 16 + static_cast<std::size_t>(r % 16);
    const int8_t* vr = v + static_cast<std::size_t>(r) * stride;
    int32_t c = 0;
    for (; r < nrows && c + 16 <= n; c += 16) {  // whole vectors of a real row
      const uint8x16_t x = vreinterpretq_u8_s8(vldrbq_s8(vr + c));
      vstrbq_scatter_offset_u8(base + static_cast<std::size_t>(c) * 16, offsets,
                               veorq_u8(x, vdupq_n_u8(0x80)));
    }
    for (; c < n; c += 16) {
      const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n - c));
      // Rows past nrows: v = 0 (weights there are 0 too).
      const uint8x16_t x = vreinterpretq_u8_s8(vldrbq_z_s8(vr + c, r < nrows ? p : 0));
      vstrbq_scatter_offset_p_u8(base + static_cast<std::size_t>(c) * 16, offsets,
                                 veorq_u8(x, vdupq_n_u8(0x80)), p);
    }
  }
}

namespace {

// The 2 x 2 block of P V: weight rows w0, w1 against the V^T columns t, t + 16
// bytes, over NB 16-row blocks (NB > 0: unrolled, the first VMLADAV
// starting the sums; 0: `blocks` in a loop), in asm (4 VLDRB + 4
// VMLADAV(A) + the stride add a block).
// clang-format off
#define ATTN_MVE_PV_LOADS                 \
  "vldrb.u8 q0, [%[w0]], #16\n\t"         \
  "vldrb.u8 q1, [%[w1]], #16\n\t"         \
  "vldrb.u8 q3, [%[t], #16]\n\t"          \
  "vldrb.u8 q2, [%[t]]\n\t"               \
  "add %[t], %[t], %[ts]\n\t"
#define ATTN_MVE_PV_MACS(a)               \
  "vmladav" a ".u8 %[a00], q0, q2\n\t"    \
  "vmladav" a ".u8 %[a01], q0, q3\n\t"    \
  "vmladav" a ".u8 %[a10], q1, q2\n\t"    \
  "vmladav" a ".u8 %[a11], q1, q3\n\t"
// clang-format on
template <int NB>
inline void pv_2x2(const uint8_t* w0, const uint8_t* w1, const uint8_t* t, std::size_t tstride,
                   int32_t blocks, uint32_t* a) {
  uint32_t a00 = 0, a01 = 0, a10 = 0, a11 = 0;
  if (NB > 0) {
    // clang-format off
    __asm__ volatile(
        ATTN_MVE_PV_LOADS ATTN_MVE_PV_MACS("")
        ".rept %c[more]\n\t" ATTN_MVE_PV_LOADS ATTN_MVE_PV_MACS("a") ".endr\n\t"
        : [a00] "=&Te"(a00), [a01] "=&Te"(a01), [a10] "=&Te"(a10), [a11] "=&Te"(a11), [w0] "+r"(w0),
          [w1] "+r"(w1), [t] "+r"(t)
        : [ts] "r"(tstride), [more] "i"(NB > 0 ? NB - 1 : 0)
        : "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7");
    // clang-format on
  } else if (blocks > 0) {
    // clang-format off
    __asm__ volatile("1:\n\t" ATTN_MVE_PV_LOADS ATTN_MVE_PV_MACS("a")
                     "subs %[n], %[n], #1\n\t"
                     "bne 1b\n\t"
                     : [a00] "+Te"(a00), [a01] "+Te"(a01), [a10] "+Te"(a10), [a11] "+Te"(a11),
                       [w0] "+r"(w0), [w1] "+r"(w1), [t] "+r"(t), [n] "+r"(blocks)
                     : [ts] "r"(tstride)
                     : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7");
    // clang-format on
  }
  a[0] = a00;
  a[1] = a01;
  a[2] = a10;
  a[3] = a11;
}
#undef ATTN_MVE_PV_LOADS
#undef ATTN_MVE_PV_MACS

// P V of a pair of weight rows over every column pair (see pv_tile_s8).
template <int NB>
void pv_rows(const uint8_t* w0, const uint8_t* w1, const uint8_t* vt, int32_t blocks, int32_t n,
             int32_t* o0, int32_t* o1) {
  const auto n16 = round_up_s8(static_cast<std::size_t>(n), 16);
  uint32_t s0 = 0, s1 = 0;  // sum w
  for (int32_t r = 0; r < blocks; ++r) {
    s0 = vaddvaq_u8(s0, vldrbq_u8(w0 + 16 * r));
    s1 = vaddvaq_u8(s1, vldrbq_u8(w1 + 16 * r));
  }
  s0 *= 128;
  s1 *= 128;
  for (int32_t c = 0; c < n; c += 2) {  // rows of acc hold round16(n) entries
    uint32_t a[4];
    pv_2x2<NB>(w0, w1, vt + static_cast<std::size_t>(c) * 16, n16 * 16, blocks, a);
    o1[c] = static_cast<int32_t>(a[2] - s1);
    o1[c + 1] = static_cast<int32_t>(a[3] - s1);
    o0[c] = static_cast<int32_t>(a[0] - s0);
    o0[c + 1] = static_cast<int32_t>(a[1] - s0);
  }
}

}  // namespace

void pv_tile_s8(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                int32_t nrows, int32_t n, int32_t* acc, std::size_t acc_stride, void* /*work*/) {
  const int32_t blocks = (nrows + 15) / 16;  // weight rows are 0 up to here
  const auto* vt = reinterpret_cast<const uint8_t*>(vpacked);
  // Up to 64 keys unrolled.
  row_pairs(w, w_stride, nq, acc, acc_stride, blocks,
            [=](auto nb, const uint8_t* w0, const uint8_t* w1, int32_t* o0, int32_t* o1) {
              pv_rows<decltype(nb)::value>(w0, w1, vt, blocks, n, o0, o1);
            });
}

// No fused requantization: the core runs requantize_row_s8 (vector) on the
// int32 tiles.
bool qk_tile_s8_rq(const uint8_t*, int32_t, int32_t, const int8_t*, const int32_t*, int32_t,
                   int32_t, const int32_t*, int32_t, int32_t, int32_t, int8_t*, std::size_t) {
  return false;
}
bool pv_tile_s8_rq(const uint8_t*, std::size_t, int32_t, const int8_t*, int32_t, int32_t,
                   const int32_t*, int32_t, int32_t, int32_t, int8_t*, std::size_t, void*) {
  return false;
}

bool tile_s8_fast() { return true; }

}  // namespace detail
}  // namespace attn

#endif  // ATTN_S8_KERNELS_MVE
