// What the model runners and int8 prepare functions share: the op and dtype
// check every view starts with, the activation table's length, and an int8
// model's activation parameters and fully connected layers read from the blob.
#pragma once

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

}  // namespace model_views
}  // namespace attn
