// int8 model blobs through the int8 ops (see attn/model_s8.h). Prepare-side:
// reads float scales from the blob; nothing here runs in an op's eval.
#include <cstring>

#include "attn/model_s8.h"
#include "model/model_views.h"

namespace attn {

using model_views::act;
using model_views::check_prepare;
using model_views::fc_s8;
using model_views::mha_separate_s8;

Status model_act_quant(const Model& model, int32_t index, QuantParams* out) {
  if (out == nullptr) return Status::kNullPointer;
  if (model.base == nullptr || model.dtype != ModelDtype::kInt8 || index < 0 ||
      index >= model_views::act_count(model.op)) {
    return Status::kBadArgument;
  }
  const auto* scales = static_cast<const unsigned char*>(model.tensor(TensorId::kActScale).data);
  const auto* zps = static_cast<const unsigned char*>(model.tensor(TensorId::kActZeroPoint).data);
  const auto i = static_cast<std::size_t>(index);
  // memcpy: the table is little-endian and 4-byte aligned; the loader checked it.
  std::memcpy(&out->scale, scales + 4 * i, 4);
  std::memcpy(&out->zero_point, zps + 4 * i, 4);
  return Status::kOk;
}

Status model_mha_s8_prepare(const Model& model, int32_t batch, int32_t seq_q, int32_t seq_kv,
                            QuantizedMultiplier* channel_storage, std::size_t channel_count,
                            MhaS8Params* params) {
  const MhaShape shape = model_mha_shape(model, batch, seq_q, seq_kv);
  const Status st = check_prepare(model, ModelOp::kMha, channel_storage, params, channel_count,
                                  mha_s8_channel_count(shape));
  if (st != Status::kOk) return st;

  MhaS8Quant quant;
  quant.query = act(model, MhaAct::kQuery);
  quant.key = act(model, MhaAct::kKey);
  quant.value = act(model, MhaAct::kValue);
  model_views::mha_s8_acts<MhaAct>(model, &quant);

  const auto e = static_cast<std::size_t>(shape.embed_dim);
  // Separate projections, or q, k and v as the three thirds of the packed
  // in-projection (weights, scales, and the bias the blob may carry).
  MhaS8Weights w = mha_separate_s8(model);
  FcS8Weights* fc[3] = {&w.q, &w.k, &w.v};
  const int8_t* packed = model.s8(TensorId::kMhaInProjWeight);
  const float* scales = model.f32(TensorId::kMhaInProjWeightScale);
  const int32_t* in_bias = model.s32(TensorId::kMhaInProjBias);
  for (std::size_t i = 0; i < 3; ++i) {
    if (packed != nullptr) {
      fc[i]->weight = packed + i * e * e;
      fc[i]->scales = scales + i * e;
    }
    if (in_bias != nullptr) fc[i]->bias = in_bias + i * e;
  }
  return mha_s8_prepare(shape, quant, w, channel_storage, params);
}

Status model_bahdanau_s8_prepare(const Model& model, int32_t batch, int32_t seq,
                                 QuantizedMultiplier* channel_storage, std::size_t channel_count,
                                 BahdanauS8Params* params) {
  const BahdanauShape shape = model_bahdanau_shape(model, batch, seq);
  const Status st = check_prepare(model, ModelOp::kBahdanau, channel_storage, params, channel_count,
                                  bahdanau_s8_channel_count(shape));
  if (st != Status::kOk) return st;
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
  const LuongGeneralShape shape = model_luong_general_shape(model, batch, seq);
  const Status st = check_prepare(model, ModelOp::kLuongGeneral, channel_storage, params,
                                  channel_count, static_cast<std::size_t>(shape.query_dim));
  if (st != Status::kOk) return st;
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
