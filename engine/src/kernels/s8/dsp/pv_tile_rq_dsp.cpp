// Cortex-M4/M7/M33 DSP-extension P V with the output requantization fused
// (pv_tile_s8_rq of kernels/s8/kernels_s8.h), bit-identical to
// pv_tile_s8_ref + requantize_row_s8_ref. Per pair of weight rows: the rows
// split once into int16 2 w in `work` (dsp/tile_dsp.h, P layout), then one
// asm loop runs every column pair: the 2 x 2 block's SMLAD loop (3 LDRD + 4
// SXTB16 + 8 SMLAD per 16 MACs, the weights never split again), then its
// epilogue, 4 instructions an output (RqDouble) and a byte store. The
// accumulators start at -2 v_zp sum(w), so each ends as x2 = 2 (pv - offset).
// The loop needs all 14 free registers; what the epilogue and the next block
// need lives in a stack record, read through memory operands.
#include "kernels/s8/kernels_s8.h"

#if defined(ATTN_S8_KERNELS_DSP) && defined(ATTN_S8_HAS_TILE_GEMMS)

#include "kernels/s8/dsp/tile_dsp.h"

namespace attn {
namespace detail {

namespace {

struct Pair {
  int32_t a, b;
};
struct PtrPair {
  int8_t* o0;  // row i
  int8_t* o1;  // row i + 1 (row i again for an odd last row: written first)
};

// One group of 4 rows of a 2 x 2 block: the split weights (w0e, w0o, w1e,
// w1o), V words x, y of the two columns split by SXTB16 into halves
// matching them.
#define ATTN_DSP_PV_GROUP                  \
  "ldrd %[w1e], %[w1o], [%[wp], #8]\n\t"   \
  "ldrd %[w0e], %[w0o], [%[wp]], #16\n\t"  \
  "ldrd %[x], %[y], [%[vp]], #8\n\t"       \
  "sxtb16 %[t], %[x]\n\t"                  \
  "sxtb16 %[x], %[x], ror #8\n\t"          \
  "smlad %[a00], %[w0e], %[t], %[a00]\n\t" \
  "smlad %[a10], %[w1e], %[t], %[a10]\n\t" \
  "smlad %[a00], %[w0o], %[x], %[a00]\n\t" \
  "smlad %[a10], %[w1o], %[x], %[a10]\n\t" \
  "sxtb16 %[t], %[y]\n\t"                  \
  "sxtb16 %[y], %[y], ror #8\n\t"          \
  "smlad %[a01], %[w0e], %[t], %[a01]\n\t" \
  "smlad %[a11], %[w1e], %[t], %[a11]\n\t" \
  "smlad %[a01], %[w0o], %[y], %[a01]\n\t" \
  "smlad %[a11], %[w1o], %[y], %[a11]\n\t"

// RqDouble of accumulator a in place: m, b, r in registers.
// clang-format off
#define ATTN_DSP_RQ(a, m, b, r, t)                      \
  "add %[" t "], %[" b "], %[" a "], asr #31\n\t"       \
  "smmlar %[" a "], %[" a "], %[" m "], %[" t "]\n\t"   \
  "asr %[" a "], %[" a "], %[" r "]\n\t"                \
  "ssat %[" a "], #8, %[" a "]\n\t"
// clang-format on

// The outputs of a split weight pair (wp0) at `pairs` >= 1 column pairs from
// vp, over blocks >= 1 blocks of 16 rows of block_bytes.
void pv_rows_rq(const uint32_t* wp0, const int8_t* vp, int32_t blocks, std::size_t block_bytes,
                Pair init0, Pair init1, const dsp::RqDouble& rq, PtrPair o, int32_t pairs) {
  const uint32_t* wp;
  int32_t a00, a01, a10, a11, n;
  uint32_t w0e, w0o, w1e, w1o, x, y, t;
  const uint32_t skip = static_cast<uint32_t>(block_bytes) - 32;  // to the next block
  // From the last block back to the next column pair.
  const uint32_t back = static_cast<uint32_t>(blocks) * static_cast<uint32_t>(block_bytes) - 32;
  const Pair mb{rq.multiplier, rq.bias};
  const int32_t right = rq.right;
  const int8_t* o_end = o.o0 + 2 * pairs;
  __asm__ volatile(
      "0:\n\t"
      "ldr %[wp], %[wp0]\n\t"
      "ldrd %[a00], %[a01], %[init0]\n\t"
      "ldrd %[a10], %[a11], %[init1]\n\t"
      "ldr %[n], %[blocks]\n\t"
      "1:\n\t"
      ATTN_DSP_PV_GROUP ATTN_DSP_PV_GROUP ATTN_DSP_PV_GROUP ATTN_DSP_PV_GROUP
      "ldr %[t], %[skip]\n\t"
      "add %[vp], %[vp], %[t]\n\t"
      "subs %[n], %[n], #1\n\t"
      "bne 1b\n\t"
      "ldr %[t], %[back]\n\t"
      "sub %[vp], %[vp], %[t]\n\t"
      "ldrd %[w0e], %[w0o], %[mb]\n\t"
      "ldr %[w1e], %[right]\n\t"
      ATTN_DSP_RQ("a10", "w0e", "w0o", "w1e", "t")
      ATTN_DSP_RQ("a11", "w0e", "w0o", "w1e", "t")
      ATTN_DSP_RQ("a00", "w0e", "w0o", "w1e", "t")
      ATTN_DSP_RQ("a01", "w0e", "w0o", "w1e", "t")
      "ldrd %[x], %[y], %[o]\n\t"
      "strb %[a10], [%[y]], #1\n\t"
      "strb %[a11], [%[y]], #1\n\t"
      "strb %[a00], [%[x]], #1\n\t"
      "strb %[a01], [%[x]], #1\n\t"
      "strd %[x], %[y], %[o]\n\t"
      "ldr %[t], %[o_end]\n\t"
      "cmp %[x], %[t]\n\t"
      "bne 0b\n\t"
      : [a00] "=&r"(a00), [a01] "=&r"(a01), [a10] "=&r"(a10), [a11] "=&r"(a11), [wp] "=&r"(wp),
        [vp] "+r"(vp), [n] "=&r"(n), [w0e] "=&r"(w0e), [w0o] "=&r"(w0o), [w1e] "=&r"(w1e),
        [w1o] "=&r"(w1o), [x] "=&r"(x), [y] "=&r"(y), [t] "=&r"(t), [o] "+m"(o)
      : [wp0] "m"(wp0), [init0] "m"(init0), [init1] "m"(init1), [blocks] "m"(blocks),
        [skip] "m"(skip), [back] "m"(back), [mb] "m"(mb), [right] "m"(right), [o_end] "m"(o_end)
      : "cc", "memory");
}

// The last column of an odd n: the pair (n - 1, n), only n - 1 stored.
void pv_last_column(const uint32_t* wp, const int8_t* vp, int32_t blocks, std::size_t block_bytes,
                    Pair init, const dsp::RqDouble& rq, PtrPair o) {
  int32_t a0 = init.a, a1 = init.b;
  for (int32_t b = 0; b < blocks; ++b, vp += block_bytes) {
    for (int32_t g = 0; g < 4; ++g, wp += 4) {
      const uint32_t x = dsp::load4(vp + 8 * g);
      const int16x2_t e = dsp::sxtb16(x), od = dsp::sxtb16_ror8(x);
      a0 =
          __smlad(static_cast<int16x2_t>(wp[0]), e, __smlad(static_cast<int16x2_t>(wp[1]), od, a0));
      a1 =
          __smlad(static_cast<int16x2_t>(wp[2]), e, __smlad(static_cast<int16x2_t>(wp[3]), od, a1));
    }
  }
  *o.o1 = static_cast<int8_t>(rq(a1));
  *o.o0 = static_cast<int8_t>(rq(a0));
}

}  // namespace

bool pv_tile_s8_rq(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                   int32_t nrows, int32_t n, const int32_t* offsets, int32_t multiplier,
                   int32_t shift, int32_t out_zp, int8_t* out, std::size_t out_stride, void* work) {
  // |sum_j w_j (v_jc - v_zp)| <= nrows * 255 * 255.
  if (!dsp::RqDouble::fits(static_cast<uint64_t>(nrows) * 65025u, shift, multiplier)) return false;
  if (nrows <= 0) return false;
  const dsp::RqDouble rq(multiplier, shift, out_zp);
  const int32_t blocks = (nrows + 15) / 16;
  const std::size_t block_bytes = dsp::vblock_bytes(n);
  auto* wp = static_cast<uint32_t*>(work);
  for (int32_t i = 0; i < nq; i += 2) {
    const uint8_t* w0 = w + static_cast<std::size_t>(i) * w_stride;
    const bool pair = i + 1 < nq;
    dsp::split_weights(w0, pair ? w0 + w_stride : w0, 4 * blocks, true, wp);
    int8_t* o0 = out + static_cast<std::size_t>(i) * out_stride;
    const PtrPair o{o0, pair ? o0 + out_stride : o0};
    // -2 offset, wrapping as the accumulators do (the final sums fit).
    const auto m0 = static_cast<int32_t>(0u - 2u * static_cast<uint32_t>(offsets[i]));
    const int32_t m1 = pair ? static_cast<int32_t>(0u - 2u * static_cast<uint32_t>(offsets[i + 1]))
                            : m0;
    const int32_t pairs = n / 2;
    if (pairs > 0) pv_rows_rq(wp, vpacked, blocks, block_bytes, {m0, m0}, {m1, m1}, rq, o, pairs);
    if (n % 2 != 0) {
      const auto c = static_cast<std::size_t>(n - 1);
      pv_last_column(wp, vpacked + c / 2 * 32, blocks, block_bytes, {m0, m1}, rq,
                     {o.o0 + c, o.o1 + c});
    }
  }
  return true;
}

}  // namespace detail
}  // namespace attn

#endif  // ATTN_S8_KERNELS_DSP && ATTN_S8_HAS_TILE_GEMMS
