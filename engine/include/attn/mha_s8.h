// Multi-head attention, int8, bit-identical to the TensorFlow Lite op sequence
//
//   Q = FULLY_CONNECTED(query, Wq, bq)      -> int8 (q quant)      [seq_q,  E]
//   K = FULLY_CONNECTED(key,   Wk, bk)      -> int8 (k quant)      [seq_kv, E]
//   V = FULLY_CONNECTED(value, Wv, bv)      -> int8 (v quant)      [seq_kv, E]
//   per head h (columns h*hd .. (h+1)*hd of Q, K, V; hd = E / num_heads):
//     O_h = sdpa_s8(Q_h, K_h, V_h)  (scores quant, beta, attn quant) -> columns of O
//   out = FULLY_CONNECTED(O, Wo, bo)        -> int8 (out quant)    [seq_q,  E]
//
// FULLY_CONNECTED is TFLite's int8 per-channel kernel: weights int8 [out, in]
// symmetric (zero point 0) with one float32 scale per output channel, bias
// int32 [out] (scale input_scale * weight_scale[c]) or null;
//   acc_c = sum_k (x_k - x_zp) * W[c, k] + bias[c]   (int32, wrapping as TFLite)
//   y_c   = requantize(acc_c, M_c) + y_zp, clamped to int8
// with M_c = QuantizeMultiplier((double)x_scale * (double)w_scale[c] /
// (double)y_scale), exactly TFLite's PopulateConvolutionQuantizationParams
// (in double, without rounding the scale product to float32).
// The attention core is sdpa_s8's (see sdpa_s8.h for masks and limits); the
// head split and concatenation are reshapes (no requantization).
//
// Layout (row-major, batch first):
//   query [batch, seq_q, E], key [batch, seq_kv, kdim], value [batch, seq_kv, vdim]
//   out   [batch, seq_q, E]
//   probs optional [batch, num_heads, seq_q, seq_kv] int8 softmax codes
//
// Memory: prepare stores 4 * E per-channel (multiplier, shift) pairs in
// caller storage (mha_s8_channel_count(shape) QuantizedMultiplier entries),
// which must outlive the params. Eval scratch:
//   mha_s8_scratch_bytes = 64 + 2 * align64(seq_q * E) + 2 * align64(seq_kv * E)
//                        + sdpa_s8_core_bytes(seq_kv, hd, hd)
// (projected Q, K, V, the concatenated head outputs, and the attention core's
// per-row buffers); with an executor of W workers, W cores:
//   mha_s8_scratch_bytes(shape, W) = the same with W * sdpa_s8_core_bytes.
//
// Threads (args.executor, attn/parallel.h): batch item after batch item, the
// three input projections in blocks of rows, the heads as sdpa_s8 splits its
// batch items (head x query chunk tasks, or a decode row's exact key split),
// the output projection in blocks of rows: every int8 value is computed as
// in the serial op, so the output is bit-identical at any worker count. No
// task of less than kParallelMinTaskWork.
// Exactness: input features (E, kdim, vdim) <= kMhaS8MaxFeatures = 65793
// (in * 255 * 128 < 2^31), head_dim and seq_kv within sdpa_s8's limits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/int8/layers_s8.h"
#include "attn/int8/quantize.h"
#include "attn/mask.h"
#include "attn/mha.h"
#include "attn/parallel.h"
#include "attn/scratch.h"
#include "attn/sdpa_s8.h"
#include "attn/status.h"

namespace attn {

inline constexpr int32_t kMhaS8MaxFeatures = kFcS8MaxFeatures;

struct MhaS8Quant {
  QuantParams query, key, value;  // the op's inputs
  QuantParams q, k, v;            // the projections' outputs
  QuantParams scores;             // Q_h K_h^T, every head
  QuantParams attn;               // the concatenated head outputs
  QuantParams out;
  float beta = 0.0f;  // 0 = (float)(1 / sqrt(head_dim))
};

struct MhaS8Weights {
  FcS8Weights q, k, v, out;
};

struct MhaS8Params {
  MhaShape shape{};
  FcS8Layer q, k, v, out;
  SdpaS8Params attend{};  // shape {1, seq_q, seq_kv, hd, hd}
};

constexpr std::size_t mha_s8_channel_count(const MhaShape& s) {
  return s.embed_dim > 0 ? 4 * static_cast<std::size_t>(s.embed_dim) : 0;
}

constexpr std::size_t mha_s8_scratch_bytes(const MhaShape& s, int32_t workers = 1) {
  if (s.embed_dim <= 0 || s.num_heads <= 0 || s.seq_q <= 0 || s.seq_kv <= 0 ||
      s.embed_dim % s.num_heads != 0 || workers <= 0) {
    return 0;
  }
  const auto e = static_cast<uint64_t>(s.embed_dim);
  const auto sq = static_cast<uint64_t>(s.seq_q);
  const auto skv = static_cast<uint64_t>(s.seq_kv);
  const int32_t hd = s.embed_dim / s.num_heads;
  uint64_t n = sat::add(kAlign, sat::mul(2, s8_bytes::block(sq, e)));
  n = sat::add(n, sat::mul(2, s8_bytes::block(skv, e)));
  return sat::to_size(sat::add(
      n, sat::mul(sdpa_s8_core_bytes64(s.seq_kv, hd, hd), static_cast<uint64_t>(workers))));
}

// Returns kOk, or kNullPointer (params, channel storage, a weight or scale
// array null), kBadShape, kShapeMismatch (num_heads does not divide E),
// kOverflow (see above), kBadArgument (a scale or zero point invalid, a
// weight scale not finite and > 0, a multiplier >= 2^30, beta invalid).
// On error neither *params nor the channel storage is written.
Status mha_s8_prepare(const MhaShape& shape, const MhaS8Quant& quant, const MhaS8Weights& weights,
                      QuantizedMultiplier* channel_storage, MhaS8Params* params);

struct MhaS8Args {
  const int8_t* query = nullptr;
  const int8_t* key = nullptr;
  const int8_t* value = nullptr;
  int8_t* out = nullptr;
  int8_t* probs = nullptr;  // optional, per head
  Mask mask{};
  // Optional: workers to spread the work over (default: this thread alone).
  Executor executor{};
};

// Returns kOk, or without writing anything: kNullPointer, kBadArgument (key
// length outside [0, seq_kv], an executor that is not executor_valid),
// kUnsupported (additive mask value other than 0 or <= -1e9), kScratchTooSmall
// (below mha_s8_scratch_bytes(shape, executor.workers)).
Status mha_s8(const MhaS8Params& params, const MhaS8Args& args, Scratch scratch);

}  // namespace attn
