// What the model runners and int8 prepare functions share: the op and dtype
// check every view starts with (and the null and channel-count checks around
// it), the activation table's length, and an int8 model's activation
// parameters, fully connected layers and MHA projections read from the blob.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/model.h"
#include "attn/model_s8.h"

namespace attn {
namespace model_views {

// kBadArgument unless `model` is loaded and of op `op`, then kUnsupported
// unless its dtype is `dtype`.
inline Status check_model(const Model& model, ModelOp op, ModelDtype dtype) {
  if (model.base == nullptr || model.op != op) return Status::kBadArgument;
  if (model.dtype != dtype) return Status::kUnsupported;
  return Status::kOk;
}

// The checks a float model's weights view starts with: kNullPointer for a
// null output, then check_model's (dtype float32).
inline Status check_view(const Model& model, ModelOp op, const void* out) {
  if (out == nullptr) return Status::kNullPointer;
  return check_model(model, op, ModelDtype::kF32);
}

// The checks an int8 prepare starts with: kNullPointer for a null output,
// check_model's (dtype int8), then kScratchTooSmall when channel_count is
// below `needed` (the op's channel count for the model's shape).
inline Status check_prepare(const Model& model, ModelOp op, const void* storage, const void* params,
                            std::size_t channel_count, std::size_t needed) {
  if (storage == nullptr || params == nullptr) return Status::kNullPointer;
  const Status st = check_model(model, op, ModelDtype::kInt8);
  if (st != Status::kOk) return st;
  return channel_count < needed ? Status::kScratchTooSmall : Status::kOk;
}

// Entries of act_scale / act_zero_point an int8 model of `op` carries: the
// op's activation enum's kCount (0 for an unknown op).
inline int32_t act_count(ModelOp op) {
  switch (op) {
    case ModelOp::kMha: return static_cast<int32_t>(MhaAct::kCount);
    case ModelOp::kBahdanau: return static_cast<int32_t>(BahdanauAct::kCount);
    case ModelOp::kLuongGeneral: return static_cast<int32_t>(LuongAct::kCount);
    case ModelOp::kMhaDecode: return static_cast<int32_t>(MhaDecodeAct::kCount);
    default: return 0;
  }
}

// Activation `a` of an int8 model (MhaAct, BahdanauAct, ...); the loader has
// checked the table, so the caller has only to check the op.
template <class Act>
QuantParams act(const Model& model, Act a) {
  QuantParams q;
  model_act_quant(model, static_cast<int32_t>(a), &q);
  return q;
}

// One int8 fully connected layer: its weights, per-channel scales and int32
// bias (null when the blob has none).
inline FcS8Weights fc_s8(const Model& model, TensorId weight, TensorId scale, TensorId bias) {
  FcS8Weights fc;
  fc.weight = model.s8(weight);
  fc.scales = model.f32(scale);
  fc.bias = model.s32(bias);
  return fc;
}

// The float tensors of an MHA-like weights struct W (MhaF32Weights,
// MhaDecodeF32Weights) that both name alike: q / k / v / out projection
// weights, the packed in-projection (weights and bias, instead of q, k and
// v) and the output bias; null where the blob has none.
template <class W>
void mha_f32_projections(const Model& model, W* w) {
  w->in_proj_weight = model.f32(TensorId::kMhaInProjWeight);
  w->q_proj_weight = model.f32(TensorId::kMhaQProjWeight);
  w->k_proj_weight = model.f32(TensorId::kMhaKProjWeight);
  w->v_proj_weight = model.f32(TensorId::kMhaVProjWeight);
  w->in_proj_bias = model.f32(TensorId::kMhaInProjBias);
  w->out_proj_weight = model.f32(TensorId::kMhaOutProjWeight);
  w->out_proj_bias = model.f32(TensorId::kMhaOutProjBias);
}

// The activations an MHA-like int8 op's Quant (MhaS8Quant,
// MhaDecodeS8Quant) and its activation enum Act (MhaAct, MhaDecodeAct) name
// alike: the q / k / v projections, the scores, the concatenated heads and
// the output.
template <class Act, class Quant>
void mha_s8_acts(const Model& model, Quant* quant) {
  quant->q = act(model, Act::kQ);
  quant->k = act(model, Act::kK);
  quant->v = act(model, Act::kV);
  quant->scores = act(model, Act::kScores);
  quant->attn = act(model, Act::kAttn);
  quant->out = act(model, Act::kOut);
}

// An int8 MHA's four projections from the separate q / k / v / out
// tensors (a bias the blob does not carry: null).
inline MhaS8Weights mha_separate_s8(const Model& model) {
  MhaS8Weights w;
  w.q = fc_s8(model, TensorId::kMhaQProjWeight, TensorId::kMhaQProjWeightScale,
              TensorId::kMhaQProjBias);
  w.k = fc_s8(model, TensorId::kMhaKProjWeight, TensorId::kMhaKProjWeightScale,
              TensorId::kMhaKProjBias);
  w.v = fc_s8(model, TensorId::kMhaVProjWeight, TensorId::kMhaVProjWeightScale,
              TensorId::kMhaVProjBias);
  w.out = fc_s8(model, TensorId::kMhaOutProjWeight, TensorId::kMhaOutProjWeightScale,
                TensorId::kMhaOutProjBias);
  return w;
}

}  // namespace model_views
}  // namespace attn
