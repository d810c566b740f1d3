// Decoder-layer model blobs as the decoder-step ops' shapes, weights and
// prepared int8 parameters (see attn/model_decode.h).
#include "attn/model_decode.h"

#include <cstring>

#include "attn/model_s8.h"
#include "model/model_views.h"

namespace attn {
namespace {

using model_views::act;
using model_views::fc_s8;

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
  if (weights == nullptr) return Status::kNullPointer;
  const Status st = model_views::check_model(model, ModelOp::kMhaDecode, ModelDtype::kF32);
  if (st != Status::kOk) return st;
  MhaDecodeF32Weights w;
  w.q_proj_weight = model.f32(TensorId::kMhaQProjWeight);
  w.k_proj_weight = model.f32(TensorId::kMhaKProjWeight);
  w.v_proj_weight = model.f32(TensorId::kMhaVProjWeight);
  w.q_proj_bias = model.f32(TensorId::kMhaQProjBias);
  w.k_proj_bias = model.f32(TensorId::kMhaKProjBias);
  w.v_proj_bias = model.f32(TensorId::kMhaVProjBias);
  w.out_proj_weight = model.f32(TensorId::kMhaOutProjWeight);
  w.out_proj_bias = model.f32(TensorId::kMhaOutProjBias);
  *weights = w;
  return Status::kOk;
}

Status model_mha_decode_s8_prepare(const Model& model, int32_t max_tokens,
                                   QuantizedMultiplier* channel_storage, std::size_t channel_count,
                                   MhaDecodeS8Params* params) {
  if (channel_storage == nullptr || params == nullptr) return Status::kNullPointer;
  const Status st = model_views::check_model(model, ModelOp::kMhaDecode, ModelDtype::kInt8);
  if (st != Status::kOk) return st;
  const MhaDecodeShape shape = model_mha_decode_shape(model, max_tokens, KvElement::kS8);
  if (channel_count < mha_decode_s8_channel_count(shape)) return Status::kScratchTooSmall;
  MhaDecodeS8Quant quant;
  quant.input = act(model, MhaDecodeAct::kInput);
  quant.q = act(model, MhaDecodeAct::kQ);
  quant.k = act(model, MhaDecodeAct::kK);
  quant.v = act(model, MhaDecodeAct::kV);
  quant.scores = act(model, MhaDecodeAct::kScores);
  quant.attn = act(model, MhaDecodeAct::kAttn);
  quant.out = act(model, MhaDecodeAct::kOut);
  MhaS8Weights w;
  w.q = fc_s8(model, TensorId::kMhaQProjWeight, TensorId::kMhaQProjWeightScale,
              TensorId::kMhaQProjBias);
  w.k = fc_s8(model, TensorId::kMhaKProjWeight, TensorId::kMhaKProjWeightScale,
              TensorId::kMhaKProjBias);
  w.v = fc_s8(model, TensorId::kMhaVProjWeight, TensorId::kMhaVProjWeightScale,
              TensorId::kMhaVProjBias);
  w.out = fc_s8(model, TensorId::kMhaOutProjWeight, TensorId::kMhaOutProjWeightScale,
                TensorId::kMhaOutProjBias);
  return mha_decode_s8_prepare(shape, model.params[3], quant, w, channel_storage, params);
}

}  // namespace attn
