// int8 model blobs (see model.h for the format) through the int8 ops.
//
// A loaded int8 MHA model becomes mha_s8's prepared parameters: the weight
// views point into the blob (zero-copy), the per-channel (multiplier, shift)
// pairs go to caller storage, the activation parameters come from the blob's
// act_scale / act_zero_point table (MhaAct order; the softmax output's 1/256,
// -128 is fixed by the op, beta is 1/sqrt(head_dim)).
//
//   static attn::Model model;                 // model_load(blob, size, &model)
//   attn::MhaS8Params params;
//   static attn::QuantizedMultiplier channels[attn::mha_s8_channel_count(shape)];
//   attn::model_mha_s8_prepare(model, 1, seq_q, seq_kv, channels, count, &params);
//   attn::mha_s8(params, args, scratch);    // scratch: mha_s8_scratch_bytes(params.shape)
//
// Bahdanau and Luong general likewise (model_bahdanau_s8_prepare + bahdanau_s8,
// model_luong_general_s8_prepare + luong_s8).
//
// Float inputs are quantized with model_act_quant(model, MhaAct::kQuery, ...)
// (q = clamp(round(x / scale) + zero_point, -128, 127)), outputs dequantized with
// MhaAct::kOut's parameters.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/bahdanau_s8.h"
#include "attn/int8/quantize.h"
#include "attn/luong_s8.h"
#include "attn/mha_s8.h"
#include "attn/model.h"
#include "attn/status.h"

namespace attn {

// Activation `index` (an MhaAct / BahdanauAct / LuongAct value) of an int8
// model. kBadArgument for a model not loaded, not int8, or index out of range.
Status model_act_quant(const Model& model, int32_t index, QuantParams* out);

// Prepares mha_s8 for a loaded int8 MHA model and run-time sizes.
// channel_storage holds channel_count >= mha_s8_channel_count(shape) entries and
// must outlive params. Statuses: kNullPointer, kBadArgument (not an MHA model),
// kUnsupported (a float model: use model_run_mha_f32), kScratchTooSmall
// (channel_count too small), and those of mha_s8_prepare.
Status model_mha_s8_prepare(const Model& model, int32_t batch, int32_t seq_q, int32_t seq_kv,
                            QuantizedMultiplier* channel_storage, std::size_t channel_count,
                            MhaS8Params* params);

// Prepares bahdanau_s8 for a loaded int8 Bahdanau model (weights in the blob
// in TFLite [out, in] layout, zero-copy; BahdanauAct parameters; softmax beta
// 1). channel_count >= bahdanau_s8_channel_count(shape). Statuses as above and
// those of bahdanau_s8_prepare.
Status model_bahdanau_s8_prepare(const Model& model, int32_t batch, int32_t seq,
                                 QuantizedMultiplier* channel_storage, std::size_t channel_count,
                                 BahdanauS8Params* params);

// Prepares luong_s8 (general) for a loaded int8 Luong general model (W in the
// blob as TFLite [query_dim, key_dim], zero-copy; LuongAct parameters; softmax
// beta 1). channel_count >= the model's query_dim.
Status model_luong_general_s8_prepare(const Model& model, int32_t batch, int32_t seq,
                                      QuantizedMultiplier* channel_storage,
                                      std::size_t channel_count, LuongS8Params* params);

}  // namespace attn
