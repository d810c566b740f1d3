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

using dsp::PtrPair;

// What the asm reads between blocks (a stack record: the loop needs every
// free register). One per call, updated per weight-row pair.
struct PvRq {
  const uint32_t* wp0;  // the split weight pair (P layout)
  int32_t blocks;       // 16-row blocks
  uint32_t skip;        // V bytes from a block's end to the next block
  uint32_t back;        // from the last block's end back to the next column pair
  dsp::RqRecord rq;
  int8_t last[4];  // the pair (n - 1, n) of an odd n: rows i, i + 1 at 0, 2
};

// The outputs of a split weight pair at the column pairs from vp up to
// st.rq.o_end.
inline void pv_rows_rq(PvRq& st, const int8_t* vp) {
  const uint32_t* wp;
  int32_t a00, a01, a10, a11, n;
  uint32_t w0e, w0o, w1e, w1o, x, y, t;
  __asm__ volatile(
      "0:\n\t"
      "ldr %[wp], %[wp0]\n\t"
      "ldrd %[a00], %[a01], %[init0]\n\t"
      "ldrd %[a10], %[a11], %[init1]\n\t"
      "ldr %[n], %[blocks]\n\t"
      "1:\n\t" ATTN_DSP_PV_GROUP ATTN_DSP_PV_GROUP ATTN_DSP_PV_GROUP ATTN_DSP_PV_GROUP
      "ldr %[t], %[skip]\n\t"
      "add %[vp], %[vp], %[t]\n\t"
      "subs %[n], %[n], #1\n\t"
      "bne 1b\n\t"
      "ldr %[t], %[back]\n\t"
      "sub %[vp], %[vp], %[t]\n\t" ATTN_DSP_RQ_STORE_2X2("w0e", "w0o", "w1e", "t", "x",
                                                         "y") "bne 0b\n\t"
      : [a00] "=&r"(a00), [a01] "=&r"(a01), [a10] "=&r"(a10), [a11] "=&r"(a11), [wp] "=&r"(wp),
        [vp] "+r"(vp), [n] "=&r"(n), [w0e] "=&r"(w0e), [w0o] "=&r"(w0o), [w1e] "=&r"(w1e),
        [w1o] "=&r"(w1o), [x] "=&r"(x), [y] "=&r"(y), [t] "=&r"(t), [o] "+m"(st.rq.o)
      : [wp0] "m"(st.wp0), [init0] "m"(st.rq.init0), [init1] "m"(st.rq.init1),
        [blocks] "m"(st.blocks), [skip] "m"(st.skip), [back] "m"(st.back), [mb] "m"(st.rq.mb),
        [right] "m"(st.rq.right), [o_end] "m"(st.rq.o_end)
      : "cc", "memory");
}

}  // namespace

bool pv_tile_s8_rq(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                   int32_t nrows, int32_t n, const int32_t* offsets, int32_t multiplier,
                   int32_t shift, int32_t out_zp, int8_t* out, std::size_t out_stride, void* work) {
  // |sum_j w_j (v_jc - v_zp)| <= nrows * 255 * 255.
  if (!dsp::RqDouble::fits(static_cast<uint64_t>(nrows) * 65025u, shift, multiplier)) return false;
  if (nrows <= 0) return false;
  const dsp::RqDouble rq(multiplier, shift, out_zp);
  const std::size_t block_bytes = dsp::vblock_bytes(n);
  PvRq st;
  st.wp0 = static_cast<uint32_t*>(work);
  st.blocks = (nrows + 15) / 16;
  st.skip = static_cast<uint32_t>(block_bytes) - 32;
  st.back = static_cast<uint32_t>(st.blocks) * static_cast<uint32_t>(block_bytes) - 32;
  st.rq.set_rq(rq);
  for (int32_t i = 0; i < nq; i += 2) {
    const uint8_t* w0 = w + static_cast<std::size_t>(i) * w_stride;
    const bool pair = i + 1 < nq;
    dsp::split_weights(w0, pair ? w0 + w_stride : w0, 4 * st.blocks, true,
                       static_cast<uint32_t*>(work));
    int8_t* o0 = out + static_cast<std::size_t>(i) * out_stride;
    int8_t* o1 = pair ? o0 + out_stride : o0;
    st.rq.start_rows(offsets, i, pair);
    // The whole column pairs into the rows, then for an odd n the pair (n - 1,
    // n) into st.last (row i + 1's byte copied first: for an odd nq o1 is o0).
    for (int32_t part = 0; part < 2; ++part) {
      const int32_t pairs = part == 0 ? n / 2 : n % 2;
      if (pairs == 0) continue;
      st.rq.o = part == 0 ? PtrPair{o0, o1} : PtrPair{st.last, st.last + 2};
      st.rq.o_end = st.rq.o.o0 + 2 * pairs;
      pv_rows_rq(st, vpacked + static_cast<std::size_t>(part == 0 ? 0 : n / 2) * 32);
    }
    if (n % 2 != 0) {
      o1[n - 1] = st.last[2];
      o0[n - 1] = st.last[0];
    }
  }
  return true;
}

}  // namespace detail
}  // namespace attn

#endif  // ATTN_S8_KERNELS_DSP && ATTN_S8_HAS_TILE_GEMMS
