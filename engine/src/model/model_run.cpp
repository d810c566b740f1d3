// Views of a loaded model as the ops' weights and shapes, and running it.
#include "attn/model.h"
#include "attn/model_decode.h"
#include "model/model_views.h"

namespace attn {
namespace {

using model_views::check_view;

// Runs `op` with the weights `view` reads from a float model.
template <class Weights, class Op>
Status run_with_weights(const Model& model, Status (*view)(const Model&, Weights*), Op op) {
  Weights w;
  const Status st = view(model, &w);
  if (st != Status::kOk) return st;
  return op(w);
}

// The shape of a context op (Bahdanau, Luong general): batch and seq as
// given, query_dim and key_dim (params[0], params[1]) when the model is `op`.
template <class Shape>
Shape context_shape(const Model& model, ModelOp op, int32_t batch, int32_t seq) {
  Shape s;
  s.batch = batch;
  s.seq = seq;
  if (model.op == op) {
    s.query_dim = model.params[0];
    s.key_dim = model.params[1];
  }
  return s;
}

}  // namespace

MhaShape model_mha_shape(const Model& model, int32_t batch, int32_t seq_q, int32_t seq_kv) {
  MhaShape s;
  s.batch = batch;
  s.seq_q = seq_q;
  s.seq_kv = seq_kv;
  if (model.op == ModelOp::kMha) {
    s.embed_dim = model.params[0];
    s.num_heads = model.params[1];
    s.kdim = model.params[2];
    s.vdim = model.params[3];
  } else {
    s.embed_dim = 0;
    s.num_heads = 0;
  }
  return s;
}

BahdanauShape model_bahdanau_shape(const Model& model, int32_t batch, int32_t seq) {
  BahdanauShape s = context_shape<BahdanauShape>(model, ModelOp::kBahdanau, batch, seq);
  if (model.op == ModelOp::kBahdanau) s.units = model.params[2];
  return s;
}

LuongGeneralShape model_luong_general_shape(const Model& model, int32_t batch, int32_t seq) {
  return context_shape<LuongGeneralShape>(model, ModelOp::kLuongGeneral, batch, seq);
}

Status model_mha_f32_weights(const Model& model, MhaF32Weights* weights) {
  const Status st = check_view(model, ModelOp::kMha, weights);
  if (st != Status::kOk) return st;
  MhaF32Weights w;
  model_views::mha_f32_projections(model, &w);
  *weights = w;
  return Status::kOk;
}

Status model_bahdanau_f32_weights(const Model& model, BahdanauF32Weights* weights) {
  const Status st = check_view(model, ModelOp::kBahdanau, weights);
  if (st != Status::kOk) return st;
  BahdanauF32Weights w;
  w.w1 = model.f32(TensorId::kBahdanauW1);
  w.b1 = model.f32(TensorId::kBahdanauB1);
  w.w2 = model.f32(TensorId::kBahdanauW2);
  w.b2 = model.f32(TensorId::kBahdanauB2);
  w.v = model.f32(TensorId::kBahdanauV);
  const float* bv = model.f32(TensorId::kBahdanauBv);
  w.bv = bv != nullptr ? bv[0] : 0.0f;
  *weights = w;
  return Status::kOk;
}

Status model_luong_general_f32_weights(const Model& model, LuongGeneralF32Weights* weights) {
  const Status st = check_view(model, ModelOp::kLuongGeneral, weights);
  if (st != Status::kOk) return st;
  weights->w = model.f32(TensorId::kLuongW);
  weights->b = model.f32(TensorId::kLuongB);
  return Status::kOk;
}

std::size_t model_scratch_bytes(const Model& model, int32_t batch, int32_t seq_q, int32_t seq_kv,
                                int32_t workers) {
  if (model.base == nullptr || batch <= 0 || seq_kv <= 0 || workers <= 0) return 0;
  switch (model.op) {
    case ModelOp::kMha:
      if (seq_q <= 0) return 0;
      return mha_f32_scratch_bytes(model_mha_shape(model, batch, seq_q, seq_kv), workers);
    case ModelOp::kBahdanau:
      return bahdanau_f32_scratch_bytes(model_bahdanau_shape(model, batch, seq_kv), workers);
    case ModelOp::kLuongGeneral:
      return luong_general_f32_scratch_bytes(model_luong_general_shape(model, batch, seq_kv),
                                             workers);
    case ModelOp::kMhaDecode:
      if (seq_q <= 0 || model.dtype != ModelDtype::kF32) return 0;
      return mha_decode_f32_scratch_bytes(model_mha_decode_shape(model, seq_q, KvElement::kF32));
    default: return 0;
  }
}

Status model_run_mha_f32(const Model& model, int32_t batch, int32_t seq_q, int32_t seq_kv,
                         const MhaF32Args& args, Scratch scratch) {
  return run_with_weights(model, model_mha_f32_weights, [&](const MhaF32Weights& w) {
    return mha_f32(model_mha_shape(model, batch, seq_q, seq_kv), w, args, scratch);
  });
}

Status model_run_bahdanau_f32(const Model& model, int32_t batch, int32_t seq,
                              const BahdanauF32Args& args, Scratch scratch) {
  return run_with_weights(model, model_bahdanau_f32_weights, [&](const BahdanauF32Weights& w) {
    return bahdanau_f32(model_bahdanau_shape(model, batch, seq), w, args, scratch);
  });
}

Status model_run_luong_general_f32(const Model& model, int32_t batch, int32_t seq,
                                   const LuongF32Args& args, Scratch scratch) {
  return run_with_weights(
      model, model_luong_general_f32_weights, [&](const LuongGeneralF32Weights& w) {
        return luong_general_f32(model_luong_general_shape(model, batch, seq), w, args, scratch);
      });
}

}  // namespace attn
