// Decoder-step multi-head attention, int8: prepare (see attn/mha_decode_s8.h).
#include <cmath>

#include "attn/mha_decode_s8.h"
#include "core/rope_s8.h"
#include "ops/fc_s8_prepare.h"
#include "ops/mha_s8_quant.h"
#include "ops/op_helpers.h"

namespace attn {

Status mha_decode_s8_prepare(const MhaDecodeShape& shape, int32_t capacity,
                             const MhaDecodeS8Quant& quant, const MhaS8Weights& weights,
                             QuantizedMultiplier* channel_storage, MhaDecodeS8Params* params) {
  if (params == nullptr || channel_storage == nullptr) return Status::kNullPointer;
  MhaDecodeShape s = shape;
  if (s.num_kv_heads == 0) s.num_kv_heads = s.num_heads;
  if (!detail::dims_ok({s.embed_dim, s.num_heads, s.num_kv_heads, s.max_tokens, capacity})) {
    return Status::kBadShape;
  }
  if (s.embed_dim % s.num_heads != 0 || s.num_heads % s.num_kv_heads != 0) {
    return Status::kShapeMismatch;
  }
  if (s.embed_dim > kMhaS8MaxFeatures || capacity > kSdpaS8MaxSeqKv) return Status::kOverflow;
  if (s.cache_element != KvElement::kS8) return Status::kBadArgument;
  const RopeConfig& r = s.rope;
  if (r.dims < 0 || r.dims % 2 != 0 || r.dims > s.embed_dim / s.num_heads ||
      !std::isfinite(r.theta) || !(r.theta > 1.0f) ||
      (r.style != RopeStyle::kHalfSplit && r.style != RopeStyle::kInterleaved)) {
    return Status::kBadArgument;
  }
  const QuantParams* all[] = {&quant.input,  &quant.q,    &quant.k,  &quant.v,
                              &quant.scores, &quant.attn, &quant.out};
  for (const QuantParams* p : all) {
    if (!quant_params_ok(*p)) return Status::kBadArgument;
  }
  MhaDecodeS8Params p;
  p.shape = s;
  p.capacity = capacity;
  if (r.dims > 0) p.rope_ratio = detail::rope_s8_ratio(r);
  const int32_t hd = s.embed_dim / s.num_heads;
  Status st = sdpa_s8_prepare({1, s.max_tokens, capacity, hd, hd}, detail::mha_head_quant(quant),
                              &p.attend);
  if (st != Status::kOk) return st;
  const int32_t e = s.embed_dim, kvd = s.num_kv_heads * hd;
  const detail::FcS8LayerArgs layers[4] = {{&weights.q, e, e, &quant.input, &quant.q, &p.q},
                                           {&weights.k, e, kvd, &quant.input, &quant.k, &p.k},
                                           {&weights.v, e, kvd, &quant.input, &quant.v, &p.v},
                                           {&weights.out, e, e, &quant.attn, &quant.out, &p.out}};
  st = detail::fc_s8_prepare_layers(layers, 4, channel_storage);
  if (st != Status::kOk) return st;
  *params = p;
  return Status::kOk;
}

}  // namespace attn
