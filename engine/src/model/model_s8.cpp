// int8 model blobs through the int8 ops (see attn/model_s8.h). Prepare-side:
// reads float scales from the blob; nothing here runs in an op's eval.
#include <cstring>

#include "attn/model_s8.h"
#include "model/model_views.h"

namespace attn {

using model_views::act;
using model_views::check_model;
using model_views::fc_s8;

Status model_act_quant(const Model& model, int32_t index, QuantParams* out) {
  if (out == nullptr) return Status::kNullPointer;
  if (model.base == nullptr || model.dtype != ModelDtype::kInt8 || index < 0 ||
      index >= model_views::act_count(model.op)) {
    return Status::kBadArgument;
  }
  const auto* scales =
      static_cast<const unsigned char*>(model.tensor(TensorId::kActScale).data);
  const auto* zps =
      static_cast<const unsigned char*>(model.tensor(TensorId::kActZeroPoint).data);
  const auto i = static_cast<std::size_t>(index);
  // memcpy: the table is little-endian and 4-byte aligned; the loader checked it.
  std::memcpy(&out->scale, scales + 4 * i, 4);
  std::memcpy(&out->zero_point, zps + 4 * i, 4);
  return Status::kOk;
}

Status model_mha_s8_prepare(const Model& model, int32_t batch, int32_t seq_q, int32_t seq_kv,
                            QuantizedMultiplier* channel_storage, std::size_t channel_count,
                            MhaS8Params* params) {
  if (channel_storage == nullptr || params == nullptr) return Status::kNullPointer;
  const Status st = check_model(model, ModelOp::kMha, ModelDtype::kInt8);
  if (st != Status::kOk) return st;
  const MhaShape shape = model_mha_shape(model, batch, seq_q, seq_kv);
  if (channel_count < mha_s8_channel_count(shape)) return Status::kScratchTooSmall;

  MhaS8Quant quant;
  quant.query = act(model, MhaAct::kQuery);
  quant.key = act(model, MhaAct::kKey);
  quant.value = act(model, MhaAct::kValue);
  quant.q = act(model, MhaAct::kQ);
  quant.k = act(model, MhaAct::kK);
  quant.v = act(model, MhaAct::kV);
  quant.scores = act(model, MhaAct::kScores);
  quant.attn = act(model, MhaAct::kAttn);
  quant.out = act(model, MhaAct::kOut);

  const auto e = static_cast<std::size_t>(shape.embed_dim);
  MhaS8Weights w;
  const int32_t* in_bias = model.s32(TensorId::kMhaInProjBias);
  if (const int8_t* packed = model.s8(TensorId::kMhaInProjWeight)) {
    const float* scales = model.f32(TensorId::kMhaInProjWeightScale);
    FcS8Weights* fc[3] = {&w.q, &w.k, &w.v};
    for (std::size_t i = 0; i < 3; ++i) {
      fc[i]->weight = packed + i * e * e;
      fc[i]->scales = scales + i * e;
    }
  } else {
    w.q.weight = model.s8(TensorId::kMhaQProjWeight);
    w.k.weight = model.s8(TensorId::kMhaKProjWeight);
    w.v.weight = model.s8(TensorId::kMhaVProjWeight);
    w.q.scales = model.f32(TensorId::kMhaQProjWeightScale);
    w.k.scales = model.f32(TensorId::kMhaKProjWeightScale);
    w.v.scales = model.f32(TensorId::kMhaVProjWeightScale);
  }
  if (in_bias != nullptr) {
    w.q.bias = in_bias;
    w.k.bias = in_bias + e;
    w.v.bias = in_bias + 2 * e;
  }
  w.out = fc_s8(model, TensorId::kMhaOutProjWeight, TensorId::kMhaOutProjWeightScale,
                TensorId::kMhaOutProjBias);
  return mha_s8_prepare(shape, quant, w, channel_storage, params);
}

Status model_bahdanau_s8_prepare(const Model& model, int32_t batch, int32_t seq,
                                 QuantizedMultiplier* channel_storage, std::size_t channel_count,
                                 BahdanauS8Params* params) {
  if (channel_storage == nullptr || params == nullptr) return Status::kNullPointer;
  const Status st = check_model(model, ModelOp::kBahdanau, ModelDtype::kInt8);
  if (st != Status::kOk) return st;
  const BahdanauShape shape = model_bahdanau_shape(model, batch, seq);
  if (channel_count < bahdanau_s8_channel_count(shape)) return Status::kScratchTooSmall;
  BahdanauS8Quant quant;
  quant.query = act(model, BahdanauAct::kQuery);
  quant.keys = act(model, BahdanauAct::kKeys);
  quant.query_proj = act(model, BahdanauAct::kQueryProj);
  quant.keys_proj = act(model, BahdanauAct::kKeysProj);
  quant.sum = act(model, BahdanauAct::kSum);
  quant.scores = act(model, BahdanauAct::kScores);
  quant.context = act(model, BahdanauAct::kContext);
  BahdanauS8Weights w;
  w.w1 = fc_s8(model, TensorId::kBahdanauW1, TensorId::kBahdanauW1Scale, TensorId::kBahdanauB1);
  w.w2 = fc_s8(model, TensorId::kBahdanauW2, TensorId::kBahdanauW2Scale, TensorId::kBahdanauB2);
  w.v = fc_s8(model, TensorId::kBahdanauV, TensorId::kBahdanauVScale, TensorId::kBahdanauBv);
  return bahdanau_s8_prepare(shape, quant, w, channel_storage, params);
}

Status model_luong_general_s8_prepare(const Model& model, int32_t batch, int32_t seq,
                                      QuantizedMultiplier* channel_storage,
                                      std::size_t channel_count, LuongS8Params* params) {
  if (channel_storage == nullptr || params == nullptr) return Status::kNullPointer;
  const Status st = check_model(model, ModelOp::kLuongGeneral, ModelDtype::kInt8);
  if (st != Status::kOk) return st;
  const LuongGeneralShape shape = model_luong_general_shape(model, batch, seq);
  if (channel_count < static_cast<std::size_t>(shape.query_dim)) return Status::kScratchTooSmall;
  LuongS8Quant quant;
  quant.query = act(model, LuongAct::kQuery);
  quant.keys = act(model, LuongAct::kKeys);
  quant.keys_proj = act(model, LuongAct::kKeysProj);
  quant.scores = act(model, LuongAct::kScores);
  quant.context = act(model, LuongAct::kContext);
  const FcS8Weights w = fc_s8(model, TensorId::kLuongW, TensorId::kLuongWScale, TensorId::kLuongB);
  return luong_general_s8_prepare(shape, quant, w, channel_storage, params);
}

}  // namespace attn
