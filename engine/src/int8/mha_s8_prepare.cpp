// Multi-head attention, int8: prepare (see attn/mha_s8.h).
#include <cmath>

#include "attn/mha_s8.h"
#include "ops/validate.h"

namespace attn {
namespace {

Status prepare_fc(const FcS8Weights& w, int32_t in, int32_t out, const QuantParams& x,
                  const QuantParams& y, QuantizedMultiplier* storage, FcS8Layer* layer) {
  if (w.weight == nullptr || w.scales == nullptr) return Status::kNullPointer;
  for (int32_t c = 0; c < out; ++c) {
    const float s = w.scales[c];
    if (!(s > 0.0f) || std::isinf(s)) return Status::kBadArgument;
    // TFLite PopulateConvolutionQuantizationParams: in double, no float rounding.
    const QuantizedMultiplier m = quantize_multiplier(
        static_cast<double>(x.scale) * static_cast<double>(s) / static_cast<double>(y.scale));
    if (m.shift > 30) return Status::kBadArgument;
    storage[c] = m;
  }
  layer->weight = w.weight;
  layer->bias = w.bias;
  layer->multipliers = storage;
  layer->in_features = in;
  layer->out_features = out;
  layer->input_zero_point = x.zero_point;
  layer->output_zero_point = y.zero_point;
  return Status::kOk;
}

}  // namespace

Status mha_s8_prepare(const MhaShape& shape, const MhaS8Quant& quant, const MhaS8Weights& weights,
                      QuantizedMultiplier* channel_storage, MhaS8Params* params) {
  if (params == nullptr || channel_storage == nullptr) return Status::kNullPointer;
  MhaShape s = shape;
  if (s.kdim == 0) s.kdim = s.embed_dim;
  if (s.vdim == 0) s.vdim = s.embed_dim;
  if (!detail::dims_ok({s.batch, s.seq_q, s.seq_kv, s.embed_dim, s.num_heads, s.kdim, s.vdim})) {
    return Status::kBadShape;
  }
  if (s.embed_dim % s.num_heads != 0) return Status::kShapeMismatch;
  if (s.embed_dim > kMhaS8MaxFeatures || s.kdim > kMhaS8MaxFeatures ||
      s.vdim > kMhaS8MaxFeatures) {
    return Status::kOverflow;
  }
  const QuantParams* all[] = {&quant.query, &quant.key, &quant.value, &quant.q,  &quant.k,
                              &quant.v,     &quant.scores, &quant.attn, &quant.out};
  for (const QuantParams* p : all) {
    if (!quant_params_ok(*p)) return Status::kBadArgument;
  }
  MhaS8Params p;
  p.shape = s;
  const int32_t hd = s.embed_dim / s.num_heads;
  SdpaS8Quant sq;
  sq.q = quant.q;
  sq.k = quant.k;
  sq.v = quant.v;
  sq.scores = quant.scores;
  sq.out = quant.attn;
  sq.beta = quant.beta;
  Status st = sdpa_s8_prepare({1, s.seq_q, s.seq_kv, hd, hd}, sq, &p.attend);
  if (st != Status::kOk) return st;
  const auto e = static_cast<std::size_t>(s.embed_dim);
  st = prepare_fc(weights.q, s.embed_dim, s.embed_dim, quant.query, quant.q, channel_storage, &p.q);
  if (st != Status::kOk) return st;
  st = prepare_fc(weights.k, s.kdim, s.embed_dim, quant.key, quant.k, channel_storage + e, &p.k);
  if (st != Status::kOk) return st;
  st = prepare_fc(weights.v, s.vdim, s.embed_dim, quant.value, quant.v, channel_storage + 2 * e,
                  &p.v);
  if (st != Status::kOk) return st;
  st = prepare_fc(weights.out, s.embed_dim, s.embed_dim, quant.attn, quant.out,
                  channel_storage + 3 * e, &p.out);
  if (st != Status::kOk) return st;
  *params = p;
  return Status::kOk;
}

}  // namespace attn
