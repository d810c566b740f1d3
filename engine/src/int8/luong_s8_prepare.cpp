// Luong attention, int8: prepare (see attn/luong_s8.h).
#include <cmath>

#include "attn/luong_s8.h"
#include "ops/validate.h"

namespace attn {
namespace {

Status prepare_core(const LuongGeneralShape& s, int32_t dim_k, const LuongS8Quant& quant,
                    const QuantParams& k_quant, LuongS8Params* p) {
  SdpaS8Quant sq;
  sq.q = quant.query;
  sq.k = k_quant;
  sq.v = quant.keys;
  sq.scores = quant.scores;
  sq.out = quant.context;
  sq.beta = quant.beta == 0.0f ? 1.0f : quant.beta;
  return sdpa_s8_prepare({1, 1, s.seq, dim_k, s.key_dim}, sq, &p->attend);
}

}  // namespace

Status luong_dot_s8_prepare(const LuongDotShape& shape, const LuongS8Quant& quant,
                            LuongS8Params* params) {
  if (params == nullptr) return Status::kNullPointer;
  if (!detail::dims_ok({shape.batch, shape.seq, shape.dim})) return Status::kBadShape;
  LuongS8Params p;
  p.shape = {shape.batch, shape.seq, shape.dim, shape.dim};
  const Status st = prepare_core(p.shape, shape.dim, quant, quant.keys, &p);
  if (st != Status::kOk) return st;
  *params = p;
  return Status::kOk;
}

Status luong_general_s8_prepare(const LuongGeneralShape& shape, const LuongS8Quant& quant,
                                const FcS8Weights& weights, QuantizedMultiplier* storage,
                                LuongS8Params* params) {
  if (params == nullptr || storage == nullptr || weights.weight == nullptr ||
      weights.scales == nullptr) {
    return Status::kNullPointer;
  }
  if (!detail::dims_ok({shape.batch, shape.seq, shape.query_dim, shape.key_dim})) {
    return Status::kBadShape;
  }
  if (shape.key_dim > kMhaS8MaxFeatures) return Status::kOverflow;
  if (!quant_params_ok(quant.keys_proj) || !quant_params_ok(quant.keys)) {
    return Status::kBadArgument;
  }
  LuongS8Params p;
  p.shape = shape;
  p.general = true;
  Status st = prepare_core(shape, shape.query_dim, quant, quant.keys_proj, &p);
  if (st != Status::kOk) return st;
  for (int32_t c = 0; c < shape.query_dim; ++c) {
    const float s = weights.scales[c];
    if (!(s > 0.0f) || std::isinf(s)) return Status::kBadArgument;
    // TFLite PopulateConvolutionQuantizationParams: in double.
    const QuantizedMultiplier m =
        quantize_multiplier(static_cast<double>(quant.keys.scale) * static_cast<double>(s) /
                            static_cast<double>(quant.keys_proj.scale));
    if (m.shift > 30) return Status::kBadArgument;
    storage[c] = m;
  }
  p.proj.weight = weights.weight;
  p.proj.bias = weights.bias;
  p.proj.multipliers = storage;
  p.proj.in_features = shape.key_dim;
  p.proj.out_features = shape.query_dim;
  p.proj.input_zero_point = quant.keys.zero_point;
  p.proj.output_zero_point = quant.keys_proj.zero_point;
  *params = p;
  return Status::kOk;
}

}  // namespace attn
