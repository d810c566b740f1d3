// What the int8 multi-head attention prepares (mha_s8, mha_decode_s8) share.
#pragma once

#include "attn/sdpa_s8.h"

namespace attn {
namespace detail {

// The per-head attention's quantization from an int8 MHA op's (MhaS8Quant,
// MhaDecodeS8Quant): Q, K, V and the scores as they are, the concatenated
// head outputs (`attn`) as its output, the same softmax beta.
template <class MhaQuant>
SdpaS8Quant mha_head_quant(const MhaQuant& quant) {
  // SdpaS8Quant's fields in order: q, k, v, scores, out, beta.
  return SdpaS8Quant{quant.q, quant.k, quant.v, quant.scores, quant.attn, quant.beta};
}

}  // namespace detail
}  // namespace attn
