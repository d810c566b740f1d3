// int8 softmax: prepare (see attn/softmax_s8.h): the TFLite multiplier, shift,
// diff_min and the 256-entry exp table.
#include <cmath>

#include "attn/int8/quantize.h"
#include "attn/softmax_s8.h"
#include "kernels/s8/fixedpoint.h"

namespace attn {

Status softmax_s8_prepare(float input_scale, float beta, SoftmaxS8Params* params) {
  if (params == nullptr) return Status::kNullPointer;
  if (!(input_scale > 0.0f) || std::isinf(input_scale) || !(beta > 0.0f) || std::isinf(beta)) {
    return Status::kBadArgument;
  }
  // kScaledDiffIntegerBits = 5: the scaled difference is Q5.26.
  double real = static_cast<double>(beta) * static_cast<double>(input_scale) * 67108864.0;
  if (real > 2147483647.0) real = 2147483647.0;
  const QuantizedMultiplier qm = quantize_multiplier(real);
  if (qm.shift < 1 || qm.multiplier == 0) return Status::kBadArgument;  // real < 1
  SoftmaxS8Params p;
  p.input_multiplier = qm.multiplier;
  p.input_left_shift = qm.shift;
  // -floor(31 * 2^26 / 2^shift), exactly, in integers.
  p.diff_min = -static_cast<int32_t>((int64_t{31} << 26) >> qm.shift);
  for (int32_t i = 0; i < 256; ++i) {
    const int32_t diff = -i;
    if (diff < p.diff_min) {
      p.exp_table[i] = 0;
      continue;
    }
    // |diff| * 2^shift <= 31 * 2^26 < 2^31 whenever diff >= diff_min.
    const int32_t scaled = q::srdhm(q::wrap_shl(diff, qm.shift), qm.multiplier);
    p.exp_table[i] = q::exp_on_negative_values_q5_26(scaled);
  }
  *params = p;
  return Status::kOk;
}

}  // namespace attn
