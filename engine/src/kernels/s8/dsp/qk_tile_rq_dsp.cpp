// Cortex-M4/M7/M33 DSP-extension Q K^T with the score requantization fused
// (qk_tile_s8_rq of kernels/s8/kernels_s8.h), bit-identical to
// qk_tile_s8_ref + requantize_row_s8_ref. Per pair of query rows, one asm
// loop runs every key pair: the 2 x 2 block's SMLAD loop (dsp/tile_dsp.h
// layouts; two column groups a pass: 6 LDRD + 8 SXTB16 + 16 SMLAD + 2 per 32
// MACs), then its epilogue, 4 instructions a score (RqDouble) and a byte
// store. The accumulators start at -2 k_zp sum(q - q_zp) and the query tile
// holds 2 (q - zp), so each ends as the doubled score x2 = 2 (qk - offset)
// RqDouble takes. The loop needs all 14 free registers; what the epilogue
// and the next block need lives in a stack record (QkRq), read through
// memory operands.
#include "kernels/s8/kernels_s8.h"

#if defined(ATTN_S8_KERNELS_DSP) && defined(ATTN_S8_HAS_TILE_GEMMS)

#include "kernels/s8/dsp/tile_dsp.h"

namespace attn {
namespace detail {

namespace {

// What the asm reads between blocks (a stack record: the loop needs every
// free register). One per call, updated per query pair.
struct QkRq {
  const void* qp0;  // the query pair's packed rows
  int32_t groups;   // column groups
  dsp::RqRecord rq;
};

// The scores of a query pair against the key pairs from kp up to st.rq.o_end.
inline void qk_rows_rq(QkRq& st, const int8_t* kp) {
  const void* qp;
  int32_t a00, a01, a10, a11, n;
  uint32_t q0e, q0o, q1e, q1o, k0, k1, e;
  __asm__ volatile(
      "0:\n\t"
      "ldr %[qp], %[qp0]\n\t"
      "ldrd %[a00], %[a01], %[init0]\n\t"
      "ldrd %[a10], %[a11], %[init1]\n\t"
      "ldr %[n], %[groups]\n\t"
      "lsrs %[n], %[n], #1\n\t"  // C: an odd group first; Z: no pair of groups
      "bcc 2f\n\t" ATTN_DSP_QK_GROUP
      "beq 3f\n\t"
      "2:\n\t" ATTN_DSP_QK_GROUP ATTN_DSP_QK_GROUP
      "subs %[n], %[n], #1\n\t"
      "bne 2b\n\t"
      "3:\n\t" ATTN_DSP_RQ_STORE_2X2("q0e", "q0o", "q1e", "e", "k0", "k1") "bne 0b\n\t"
      : [a00] "=&r"(a00), [a01] "=&r"(a01), [a10] "=&r"(a10), [a11] "=&r"(a11), [qp] "=&r"(qp),
        [kp] "+r"(kp), [n] "=&r"(n), [q0e] "=&r"(q0e), [q0o] "=&r"(q0o), [q1e] "=&r"(q1e),
        [q1o] "=&r"(q1o), [k0] "=&r"(k0), [k1] "=&r"(k1), [e] "=&r"(e), [o] "+m"(st.rq.o)
      : [qp0] "m"(st.qp0), [init0] "m"(st.rq.init0), [init1] "m"(st.rq.init1),
        [groups] "m"(st.groups), [mb] "m"(st.rq.mb), [right] "m"(st.rq.right),
        [o_end] "m"(st.rq.o_end)
      : "cc", "memory");
}

}  // namespace

bool qk_tile_s8_rq(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                   const int32_t* ksum, int32_t nkeys, int32_t n, const int32_t* offsets,
                   int32_t multiplier, int32_t shift, int32_t out_zp, int8_t* out,
                   std::size_t out_stride) {
  (void)zp;
  (void)ksum;
  // |sum (q - q_zp)(k - k_zp)| <= n * 255 * 255.
  if (!dsp::RqDouble::fits(static_cast<uint64_t>(n) * 65025u, shift, multiplier)) return false;
  if (nkeys <= 0) return true;
  const dsp::RqDouble rq(multiplier, shift, out_zp);
  QkRq st;
  st.groups = dsp::col_groups(n);
  st.rq.set_rq(rq);
  for (int32_t i = 0; i < nq; i += 2) {
    int8_t* o0 = out + static_cast<std::size_t>(i) * out_stride;
    const bool pair = i + 1 < nq;
    // rq.start_rows written out: through it GCC 12 gives the asm loop other
    // registers and the row setup more instructions.
    const auto m0 = static_cast<int32_t>(0u - 2u * static_cast<uint32_t>(offsets[i]));
    const int32_t m1 = pair ? static_cast<int32_t>(0u - 2u * static_cast<uint32_t>(offsets[i + 1]))
                            : m0;
    st.qp0 = u + static_cast<std::size_t>(i / 2) * dsp::qpair_bytes(n);
    st.rq.init0 = {m0, m0};
    st.rq.init1 = {m1, m1};
    st.rq.o = {o0, pair ? o0 + out_stride : o0};
    // Rows of out hold round16(nkeys) entries: both keys of the last pair fit.
    st.rq.o_end = o0 + 2 * ((nkeys + 1) / 2);
    qk_rows_rq(st, kpacked);
  }
  return true;
}

}  // namespace detail
}  // namespace attn

#endif  // ATTN_S8_KERNELS_DSP && ATTN_S8_HAS_TILE_GEMMS
