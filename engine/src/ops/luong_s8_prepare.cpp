// Luong attention, int8: prepare (see attn/luong_s8.h).
#include "attn/luong_s8.h"
#include "ops/fc_s8_prepare.h"
#include "ops/op_helpers.h"

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
                                const FcS8Weights& weights, QuantizedMultiplier* channel_storage,
                                LuongS8Params* params) {
  if (params == nullptr || channel_storage == nullptr || weights.weight == nullptr ||
      weights.scales == nullptr) {
    return Status::kNullPointer;
  }
  if (!detail::dims_ok({shape.batch, shape.seq, shape.query_dim, shape.key_dim})) {
    return Status::kBadShape;
  }
  if (shape.key_dim > kFcS8MaxFeatures) return Status::kOverflow;
  if (!quant_params_ok(quant.keys_proj) || !quant_params_ok(quant.keys)) {
    return Status::kBadArgument;
  }
  LuongS8Params p;
  p.shape = shape;
  p.general = true;
  Status st = prepare_core(shape, shape.query_dim, quant, quant.keys_proj, &p);
  if (st != Status::kOk) return st;
  st = detail::fc_s8_check(weights, shape.query_dim, quant.keys, quant.keys_proj);
  if (st != Status::kOk) return st;
  detail::fc_s8_prepare(weights, shape.key_dim, shape.query_dim, quant.keys, quant.keys_proj,
                        channel_storage, &p.proj);
  *params = p;
  return Status::kOk;
}

}  // namespace attn
