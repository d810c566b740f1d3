// Multi-head attention, int8: prepare (see attn/mha_s8.h).
#include "attn/mha_s8.h"
#include "ops/fc_s8_prepare.h"
#include "ops/op_helpers.h"

namespace attn {

Status mha_s8_prepare(const MhaShape& shape, const MhaS8Quant& quant, const MhaS8Weights& weights,
                      QuantizedMultiplier* channel_storage, MhaS8Params* params) {
  if (params == nullptr || channel_storage == nullptr) return Status::kNullPointer;
  MhaShape s = shape;
  if (s.kdim == 0) s.kdim = s.embed_dim;
  if (s.vdim == 0) s.vdim = s.embed_dim;
  if (!detail::dims_ok({s.batch, s.seq_q, s.seq_kv, s.embed_dim, s.num_heads, s.kdim, s.vdim})) {
    return Status::kBadShape;
  }
  if (s.embed_dim % s.num_heads != 0) return Status::kShapeMismatch;
  if (s.embed_dim > kMhaS8MaxFeatures || s.kdim > kMhaS8MaxFeatures ||
      s.vdim > kMhaS8MaxFeatures) {
    return Status::kOverflow;
  }
  const QuantParams* all[] = {&quant.query, &quant.key, &quant.value, &quant.q,  &quant.k,
                              &quant.v,     &quant.scores, &quant.attn, &quant.out};
  for (const QuantParams* p : all) {
    if (!quant_params_ok(*p)) return Status::kBadArgument;
  }
  MhaS8Params p;
  p.shape = s;
  const int32_t hd = s.embed_dim / s.num_heads;
  SdpaS8Quant sq;
  sq.q = quant.q;
  sq.k = quant.k;
  sq.v = quant.v;
  sq.scores = quant.scores;
  sq.out = quant.attn;
  sq.beta = quant.beta;
  Status st = sdpa_s8_prepare({1, s.seq_q, s.seq_kv, hd, hd}, sq, &p.attend);
  if (st != Status::kOk) return st;
  // Every layer checked before any channel storage is written.
  const FcS8Weights* w[4] = {&weights.q, &weights.k, &weights.v, &weights.out};
  const int32_t in[4] = {s.embed_dim, s.kdim, s.vdim, s.embed_dim};
  const QuantParams* x[4] = {&quant.query, &quant.key, &quant.value, &quant.attn};
  const QuantParams* y[4] = {&quant.q, &quant.k, &quant.v, &quant.out};
  FcS8Layer* layer[4] = {&p.q, &p.k, &p.v, &p.out};
  for (int l = 0; l < 4; ++l) {
    st = detail::fc_s8_check(*w[l], s.embed_dim, *x[l], *y[l]);
    if (st != Status::kOk) return st;
  }
  const auto e = static_cast<std::size_t>(s.embed_dim);
  for (int l = 0; l < 4; ++l) {
    detail::fc_s8_prepare(*w[l], in[l], s.embed_dim, *x[l], *y[l],
                          channel_storage + static_cast<std::size_t>(l) * e, layer[l]);
  }
  *params = p;
  return Status::kOk;
}

}  // namespace attn
