// Decoder-layer model blobs (op mha_decode, see model.h for the format) through
// the decoder-step ops (mha_decode.h, mha_decode_s8.h) and a KV cache
// (kv_cache.h).
//
// The blob holds the layer's weights and its cache configuration: heads, kv
// heads, capacity, sliding window and rotary positions. The caller owns the
// cache storage and the scratch, sized from the model:
//
//   static attn::Model model;                                 // model_load(...)
//   const attn::KvCacheShape cs = attn::model_kv_cache_shape(model, attn::KvElement::kF32);
//   attn::kv_cache_init(cs, storage, attn::kv_cache_bytes(cs), &cache);
//   const attn::MhaDecodeShape s = attn::model_mha_decode_shape(model, max_tokens, cs.element);
//   attn::MhaDecodeF32Weights w;
//   attn::model_mha_decode_f32_weights(model, &w);
//   attn::mha_decode_f32(s, w, args, &cache, scratch);  // mha_decode_f32_scratch_bytes(s)
//
// An int8 model (weights int8 [out, in] with per-channel scales, activation
// parameters in MhaDecodeAct order) prepares mha_decode_s8 with
// model_mha_decode_s8_prepare and runs with an int8 cache (element kS8).
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/int8/quantize.h"
#include "attn/kv_cache.h"
#include "attn/mha_decode.h"
#include "attn/mha_decode_s8.h"
#include "attn/model.h"
#include "attn/status.h"

namespace attn {

// The decoder shape of a loaded mha_decode model (heads, kv heads, rotary
// configuration) for `max_tokens` new tokens per call and a cache of
// `element`. Every dimension is 0 for a model of another op.
MhaDecodeShape model_mha_decode_shape(const Model& model, int32_t max_tokens, KvElement element);

// The cache the model was converted for (capacity, window) with `element`.
// Every dimension is 0 for a model of another op.
KvCacheShape model_kv_cache_shape(const Model& model, KvElement element);

// Zero-copy weight views of a float mha_decode model. kNullPointer (weights
// null), kBadArgument (not a loaded mha_decode model), kUnsupported (int8).
Status model_mha_decode_f32_weights(const Model& model, MhaDecodeF32Weights* weights);

// Prepares mha_decode_s8 for a loaded int8 mha_decode model, `max_tokens` per
// call, for caches up to the model's capacity. channel_storage holds
// channel_count >= mha_decode_s8_channel_count(shape) entries and must outlive
// params. Statuses: kNullPointer, kBadArgument (not an mha_decode model),
// kUnsupported (a float model), kScratchTooSmall (channel_count too small),
// and those of mha_decode_s8_prepare (kUnsupported with rotary dims).
Status model_mha_decode_s8_prepare(const Model& model, int32_t max_tokens,
                                   QuantizedMultiplier* channel_storage, std::size_t channel_count,
                                   MhaDecodeS8Params* params);

}  // namespace attn
