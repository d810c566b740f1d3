// Multi-head attention, int8: prepare (see attn/mha_s8.h).
#include "attn/mha_s8.h"
#include "ops/fc_s8_prepare.h"
#include "ops/mha_s8_quant.h"
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
  if (s.embed_dim > kMhaS8MaxFeatures || s.kdim > kMhaS8MaxFeatures || s.vdim > kMhaS8MaxFeatures) {
    return Status::kOverflow;
  }
  const QuantParams* all[] = {&quant.query, &quant.key,    &quant.value, &quant.q,  &quant.k,
                              &quant.v,     &quant.scores, &quant.attn,  &quant.out};
  for (const QuantParams* p : all) {
    if (!quant_params_ok(*p)) return Status::kBadArgument;
  }
  MhaS8Params p;
  p.shape = s;
  const int32_t hd = s.embed_dim / s.num_heads;
  Status st =
      sdpa_s8_prepare({1, s.seq_q, s.seq_kv, hd, hd}, detail::mha_head_quant(quant), &p.attend);
  if (st != Status::kOk) return st;
  const detail::FcS8LayerArgs layers[4] = {
      {&weights.q, s.embed_dim, s.embed_dim, &quant.query, &quant.q, &p.q},
      {&weights.k, s.kdim, s.embed_dim, &quant.key, &quant.k, &p.k},
      {&weights.v, s.vdim, s.embed_dim, &quant.value, &quant.v, &p.v},
      {&weights.out, s.embed_dim, s.embed_dim, &quant.attn, &quant.out, &p.out}};
  st = detail::fc_s8_prepare_layers(layers, 4, channel_storage);
  if (st != Status::kOk) return st;
  *params = p;
  return Status::kOk;
}

}  // namespace attn
