// Decoder-layer model blobs as the decoder-step ops' shapes, weights and
// prepared int8 parameters (see attn/model_decode.h).
#include "attn/model_decode.h"

#include <cstring>

#include "attn/model_s8.h"
#include "model/model_views.h"

namespace attn {
namespace {

using model_views::act;

bool is_decode(const Model& m) { return m.base != nullptr && m.op == ModelOp::kMhaDecode; }

}  // namespace

MhaDecodeShape model_mha_decode_shape(const Model& model, int32_t max_tokens, KvElement element) {
  MhaDecodeShape s;
  s.max_tokens = max_tokens;
  s.cache_element = element;
  if (!is_decode(model)) {
    s.embed_dim = 0;
    s.num_heads = 0;
    return s;
  }
  const int32_t* p = model.params;
  s.embed_dim = p[0];
  s.num_heads = p[1];
  s.num_kv_heads = p[2];
  s.rope.dims = p[5];
  s.rope.style = p[6] == 1 ? RopeStyle::kInterleaved : RopeStyle::kHalfSplit;
  if (p[5] > 0) std::memcpy(&s.rope.theta, &p[7], sizeof s.rope.theta);
  return s;
}

KvCacheShape model_kv_cache_shape(const Model& model, KvElement element) {
  KvCacheShape c;
  c.element = element;
  if (!is_decode(model)) return c;
  const int32_t* p = model.params;
  c.capacity = p[3];
  c.num_kv_heads = p[2];
  c.head_dim = p[0] / p[1];
  c.window = p[4] == 1;
  return c;
}

Status model_mha_decode_f32_weights(const Model& model, MhaDecodeF32Weights* weights) {
  const Status st = model_views::check_view(model, ModelOp::kMhaDecode, weights);
  if (st != Status::kOk) return st;
  MhaDecodeF32Weights w;
  model_views::mha_f32_projections(model, &w);  // no packed in-projection in a decoder blob
  w.q_proj_bias = model.f32(TensorId::kMhaQProjBias);
  w.k_proj_bias = model.f32(TensorId::kMhaKProjBias);
  w.v_proj_bias = model.f32(TensorId::kMhaVProjBias);
  *weights = w;
  return Status::kOk;
}

Status model_mha_decode_s8_prepare(const Model& model, int32_t max_tokens,
                                   QuantizedMultiplier* channel_storage, std::size_t channel_count,
                                   MhaDecodeS8Params* params) {
  const MhaDecodeShape shape = model_mha_decode_shape(model, max_tokens, KvElement::kS8);
  const Status st = model_views::check_prepare(model, ModelOp::kMhaDecode, channel_storage, params,
                                               channel_count, mha_decode_s8_channel_count(shape));
  if (st != Status::kOk) return st;
  MhaDecodeS8Quant quant;
  quant.input = act(model, MhaDecodeAct::kInput);
  model_views::mha_s8_acts<MhaDecodeAct>(model, &quant);
  return mha_decode_s8_prepare(shape, model.params[3], quant, model_views::mha_separate_s8(model),
                               channel_storage, params);
}

}  // namespace attn
