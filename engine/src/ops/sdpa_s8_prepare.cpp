// Scaled dot-product attention, int8: prepare (see attn/sdpa_s8.h). Floating
// point is used here only, once per set of scales.
#include <cmath>

#include "attn/sdpa_s8.h"
#include "ops/op_helpers.h"

namespace attn {
namespace {

bool multiplier_ok(const QuantizedMultiplier& m) { return m.shift <= 30 && m.shift >= -31; }

}  // namespace

Status sdpa_s8_prepare(const SdpaShape& shape, const SdpaS8Quant& quant, SdpaS8Params* params) {
  if (params == nullptr) return Status::kNullPointer;
  if (!detail::dims_ok({shape.batch, shape.seq_q, shape.seq_kv, shape.dim_k, shape.dim_v})) {
    return Status::kBadShape;
  }
  if (shape.dim_k > kSdpaS8MaxDimK || shape.seq_kv > kSdpaS8MaxSeqKv) return Status::kOverflow;
  if (!quant_params_ok(quant.q) || !quant_params_ok(quant.k) || !quant_params_ok(quant.v) ||
      !quant_params_ok(quant.scores) || !quant_params_ok(quant.out)) {
    return Status::kBadArgument;
  }
  float beta = quant.beta;
  if (beta == 0.0f) {
    beta = static_cast<float>(1.0 / std::sqrt(static_cast<double>(shape.dim_k)));
  }
  SdpaS8Params p;
  p.shape = shape;
  const Status st = softmax_s8_prepare(quant.scores.scale, beta, &p.softmax);
  if (st != Status::kOk) return st;
  p.q_zero_point = quant.q.zero_point;
  p.k_zero_point = quant.k.zero_point;
  p.v_zero_point = quant.v.zero_point;
  p.scores_zero_point = quant.scores.zero_point;
  p.out_zero_point = quant.out.zero_point;
  // TFLite: the product of the input scales is rounded to float32 first.
  const float qk_scale = quant.q.scale * quant.k.scale;
  p.scores_multiplier =
      quantize_multiplier(static_cast<double>(qk_scale) / static_cast<double>(quant.scores.scale));
  const float pv_scale = (1.0f / 256.0f) * quant.v.scale;
  p.out_multiplier =
      quantize_multiplier(static_cast<double>(pv_scale) / static_cast<double>(quant.out.scale));
  if (!multiplier_ok(p.scores_multiplier) || !multiplier_ok(p.out_multiplier)) {
    return Status::kBadArgument;
  }
  *params = p;
  return Status::kOk;
}

}  // namespace attn
