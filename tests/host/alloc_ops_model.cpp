// alloc_ops.h: model_load and the model helpers and runners, float and int8,
// on the committed blobs (run-time sizes batch 1, seq_q 3, seq_kv 5).
#include "alloc_ops.h"
#include "attn/model.h"
#include "attn/model_s8.h"

namespace alloc_ops {

namespace {

constexpr int32_t kSeqQ = 3;
constexpr int32_t kSeqKv = 5;

attn::Status load(const Blobs::Blob& b, attn::Model* m) {
  attn::ModelError why = attn::ModelError::kNone;
  return attn::model_load(b.data, b.size, m, &why);
}

// Every buffer the run reads or writes fits the Inputs' arrays.
attn::Status fits(const attn::MhaShape& s, std::size_t n) {
  const auto e = static_cast<std::size_t>(s.embed_dim);
  const std::size_t kv = static_cast<std::size_t>(s.kdim > s.vdim ? s.kdim : s.vdim);
  const std::size_t d = e > kv ? e : kv;
  return static_cast<std::size_t>(s.seq_kv) * d <= n ? attn::Status::kOk : attn::Status::kBadShape;
}

void float_models(const Blobs& blobs, Inputs& in, const attn::Scratch& s, Results* r) {
  attn::Model m;
  r->add("model_load (mha)", load(blobs.mha, &m));
  attn::MhaF32Weights mw;
  r->add("model_mha_f32_weights", attn::model_mha_f32_weights(m, &mw));
  r->add("model_mha_shape fits", fits(attn::model_mha_shape(m, 1, kSeqQ, kSeqKv), Inputs::kN));
  r->add("model_scratch_bytes", attn::model_scratch_bytes(m, 1, kSeqQ, kSeqKv) <= s.bytes
                                    ? attn::Status::kOk
                                    : attn::Status::kScratchTooSmall);
  attn::MhaF32Args ma;
  ma.query = in.a.data();
  ma.key = in.b.data();
  ma.value = in.c.data();
  ma.out = in.out.data();
  ma.probs = in.weights.data();
  ma.mask.causal = true;
  r->add("model_run_mha_f32", attn::model_run_mha_f32(m, 1, kSeqQ, kSeqKv, ma, s));
  attn::BahdanauF32Weights bw;
  r->add("model_bahdanau_f32_weights (an MHA model)", attn::model_bahdanau_f32_weights(m, &bw),
         attn::Status::kBadArgument);

  r->add("model_load (bahdanau)", load(blobs.bahdanau, &m));
  r->add("model_bahdanau_f32_weights", attn::model_bahdanau_f32_weights(m, &bw));
  const attn::BahdanauShape bs = attn::model_bahdanau_shape(m, 1, kSeqKv);
  r->add("model_bahdanau_shape", bs.units > 0 ? attn::Status::kOk : attn::Status::kBadShape);
  attn::BahdanauF32Args ba;
  ba.query = in.a.data();
  ba.keys = in.b.data();
  ba.context = in.out.data();
  ba.probs = in.weights.data();
  r->add("model_run_bahdanau_f32", attn::model_run_bahdanau_f32(m, 1, kSeqKv, ba, s));

  r->add("model_load (luong)", load(blobs.luong, &m));
  attn::LuongGeneralF32Weights lw;
  r->add("model_luong_general_f32_weights", attn::model_luong_general_f32_weights(m, &lw));
  const attn::LuongGeneralShape ls = attn::model_luong_general_shape(m, 1, kSeqKv);
  r->add("model_luong_general_shape", ls.key_dim > 0 ? attn::Status::kOk : attn::Status::kBadShape);
  attn::LuongF32Args la;
  la.query = in.a.data();
  la.keys = in.b.data();
  la.context = in.out.data();
  la.probs = in.weights.data();
  r->add("model_run_luong_general_f32", attn::model_run_luong_general_f32(m, 1, kSeqKv, la, s));
}

attn::MhaS8Args mha_s8_args(Inputs& in) {
  attn::MhaS8Args a;
  a.query = in.qa.data();
  a.key = in.qb.data();
  a.value = in.qc.data();
  a.out = in.qout.data();
  a.probs = in.qweights.data();
  return a;
}

void int8_models(const Blobs& blobs, Inputs& in, const attn::Scratch& s, Results* r) {
  attn::Model m;
  r->add("model_load (mha int8)", load(blobs.mha_s8, &m));
  attn::QuantParams q;
  r->add("model_act_quant", attn::model_act_quant(m, static_cast<int32_t>(attn::MhaAct::kOut), &q));
  r->add("model_mha_shape fits (int8)",
         fits(attn::model_mha_shape(m, 1, kSeqQ, kSeqKv), Inputs::kN));
  attn::MhaS8Params mp;
  r->add("model_mha_s8_prepare", attn::model_mha_s8_prepare(m, 1, kSeqQ, kSeqKv, in.channels.data(),
                                                            in.channels.size(), &mp));
  r->add("mha_s8 (model)", attn::mha_s8(mp, mha_s8_args(in), s));
  attn::MhaF32Args fa;
  r->add("model_run_mha_f32 (an int8 model)", attn::model_run_mha_f32(m, 1, 1, 1, fa, s),
         attn::Status::kUnsupported);

  r->add("model_load (bahdanau int8)", load(blobs.bahdanau_s8, &m));
  attn::BahdanauS8Params bp;
  r->add(
      "model_bahdanau_s8_prepare",
      attn::model_bahdanau_s8_prepare(m, 1, kSeqKv, in.channels.data(), in.channels.size(), &bp));
  attn::BahdanauS8Args ba;
  ba.query = in.qa.data();
  ba.keys = in.qb.data();
  ba.context = in.qout.data();
  ba.probs = in.qweights.data();
  r->add("bahdanau_s8 (model)", attn::bahdanau_s8(bp, ba, s));

  r->add("model_load (luong int8)", load(blobs.luong_s8, &m));
  attn::LuongS8Params lp;
  r->add("model_luong_general_s8_prepare",
         attn::model_luong_general_s8_prepare(m, 1, kSeqKv, in.channels.data(), in.channels.size(),
                                              &lp));
  attn::LuongS8Args la;
  la.query = in.qa.data();
  la.keys = in.qb.data();
  la.context = in.qout.data();
  la.probs = in.qweights.data();
  r->add("luong_s8 (model)", attn::luong_s8(lp, la, s));
}

// The printing helpers and the CRC: plain functions, called for completeness.
void helpers(const Blobs& blobs, Results* r) {
  const char* names[] = {attn::model_error_str(attn::ModelError::kBadCrc),
                         attn::model_op_str(attn::ModelOp::kMha),
                         attn::model_dtype_str(attn::ModelDtype::kInt8),
                         attn::tensor_dtype_str(attn::TensorDtype::kF32),
                         attn::tensor_id_str(attn::TensorId::kMhaOutProjWeight)};
  bool all = true;
  for (const char* n : names) all = all && n != nullptr;
  r->add("*_str", all ? attn::Status::kOk : attn::Status::kNullPointer);
  const uint32_t crc = attn::model_crc32(0, blobs.mha.data, blobs.mha.size);
  const uint32_t blob_crc = attn::model_blob_crc(blobs.mha.data, blobs.mha.size);
  r->add("model_crc32 / model_blob_crc",
         crc != 0 && blob_crc != 0 ? attn::Status::kOk : attn::Status::kBadModel);
}

}  // namespace

void model_ops(const Blobs& blobs, Inputs& in, Results* r) {
  const attn::Scratch s{in.scratch.data() + 1, in.scratch.size() - 1};
  float_models(blobs, in, s, r);
  int8_models(blobs, in, s, r);
  helpers(blobs, r);
  attn::Model m;
  attn::ModelError why = attn::ModelError::kNone;
  r->add("model_load (corrupt)",
         attn::model_load(blobs.corrupt.data(), blobs.corrupt.size(), &m, &why),
         attn::Status::kBadModel);
  r->add("model_load (null)", attn::model_load(nullptr, 128, &m, &why), attn::Status::kNullPointer);
}

}  // namespace alloc_ops
