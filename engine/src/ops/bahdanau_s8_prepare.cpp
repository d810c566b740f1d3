// Bahdanau attention, int8: prepare (see attn/bahdanau_s8.h), with TFLite's
// ADD and TANH parameter derivations.
#include <algorithm>
#include <cmath>

#include "attn/bahdanau_s8.h"
#include "kernels/s8/fixedpoint.h"
#include "ops/fc_s8_prepare.h"
#include "ops/op_helpers.h"

namespace attn {
namespace {}  // namespace

Status add_s8_prepare(const QuantParams& in1, const QuantParams& in2, const QuantParams& out,
                      AddS8Params* params) {
  if (params == nullptr) return Status::kNullPointer;
  if (!quant_params_ok(in1) || !quant_params_ok(in2) || !quant_params_ok(out)) {
    return Status::kBadArgument;
  }
  // TFLite (Micro) add: left_shift = 20 for int8.
  const double twice_max = 2.0 * static_cast<double>(std::max(in1.scale, in2.scale));
  AddS8Params p;
  p.input1_zero_point = in1.zero_point;
  p.input2_zero_point = in2.zero_point;
  p.output_zero_point = out.zero_point;
  p.input1 = quantize_multiplier(static_cast<double>(in1.scale) / twice_max);
  p.input2 = quantize_multiplier(static_cast<double>(in2.scale) / twice_max);
  p.output = quantize_multiplier(twice_max / (1048576.0 * static_cast<double>(out.scale)));
  if (p.output.shift > 0 || p.output.shift < -31) return Status::kBadArgument;
  *params = p;
  return Status::kOk;
}

Status tanh_s8_table(const QuantParams& in, int8_t table[256]) {
  if (table == nullptr) return Status::kNullPointer;
  if (!quant_params_ok(in)) return Status::kBadArgument;
  // TFLite Micro int8 TANH prepare: kInputIntegerBits = 4.
  int shift = 0;
  const double q = std::frexp(static_cast<double>(in.scale) * 134217728.0, &shift);
  const auto mult = static_cast<int64_t>(std::round(q * 2147483648.0));
  if (shift < 0 || mult >= (int64_t{1} << 31)) return Status::kBadArgument;
  // CalculateInputRadius(4, shift, 31) = floor(15 * 2^27 / 2^shift).
  const auto radius = static_cast<int32_t>(std::floor(15.0 * 134217728.0 / std::ldexp(1.0, shift)));
  for (int32_t x = -128; x <= 127; ++x) {
    const int32_t input = x - in.zero_point;
    int32_t out = 0;
    if (input <= -radius) {
      out = -128;
    } else if (input >= radius) {
      out = 127;
    } else {
      const int32_t in_q4 =
          q::multiply_by_quantized_multiplier(input, static_cast<int32_t>(mult), shift);
      out = q::rounding_divide_by_pot(q::tanh_q4_27(in_q4), 31 - 7);
      out = out < -128 ? -128 : (out > 127 ? 127 : out);
    }
    table[x + 128] = static_cast<int8_t>(out);
  }
  return Status::kOk;
}

Status bahdanau_s8_prepare(const BahdanauShape& shape, const BahdanauS8Quant& quant,
                           const BahdanauS8Weights& weights, QuantizedMultiplier* channel_storage,
                           BahdanauS8Params* params) {
  if (params == nullptr || channel_storage == nullptr) return Status::kNullPointer;
  if (!detail::dims_ok({shape.batch, shape.seq, shape.query_dim, shape.key_dim, shape.units})) {
    return Status::kBadShape;
  }
  if (shape.query_dim > kFcS8MaxFeatures || shape.key_dim > kFcS8MaxFeatures ||
      shape.units > kFcS8MaxFeatures) {
    return Status::kOverflow;
  }
  const QuantParams* all[] = {&quant.query, &quant.keys,   &quant.query_proj, &quant.keys_proj,
                              &quant.sum,   &quant.scores, &quant.context};
  for (const QuantParams* p : all) {
    if (!quant_params_ok(*p)) return Status::kBadArgument;
  }
  BahdanauS8Params p;
  p.shape = shape;
  // Softmax and context: sdpa_s8's core with a dummy unit QK multiplier.
  SdpaS8Quant sq;
  sq.q = {quant.scores.scale, 0};
  sq.k = {1.0f, 0};
  sq.v = quant.keys;
  sq.scores = quant.scores;
  sq.out = quant.context;
  sq.beta = quant.beta == 0.0f ? 1.0f : quant.beta;
  Status st = sdpa_s8_prepare({1, 1, shape.seq, 1, shape.key_dim}, sq, &p.attend);
  if (st != Status::kOk) return st;
  const QuantParams tanh_out{1.0f / 128.0f, 0};
  const auto u = static_cast<std::size_t>(shape.units);
  st = detail::fc_s8_check(weights.w1, shape.units, quant.query, quant.query_proj);
  if (st != Status::kOk) return st;
  st = detail::fc_s8_check(weights.w2, shape.units, quant.keys, quant.keys_proj);
  if (st != Status::kOk) return st;
  st = detail::fc_s8_check(weights.v, 1, tanh_out, quant.scores);
  if (st != Status::kOk) return st;
  st = add_s8_prepare(quant.query_proj, quant.keys_proj, quant.sum, &p.add);
  if (st != Status::kOk) return st;
  st = tanh_s8_table(quant.sum, p.tanh_table);
  if (st != Status::kOk) return st;
  // Every check passed: now the channel storage.
  detail::fc_s8_prepare(weights.w1, shape.query_dim, shape.units, quant.query, quant.query_proj,
                        channel_storage, &p.w1);
  detail::fc_s8_prepare(weights.w2, shape.key_dim, shape.units, quant.keys, quant.keys_proj,
                        channel_storage + u, &p.w2);
  detail::fc_s8_prepare(weights.v, shape.units, 1, tanh_out, quant.scores, channel_storage + 2 * u,
                        &p.v);
  *params = p;
  return Status::kOk;
}

}  // namespace attn
