// Bahdanau additive attention, float32 (see attn/bahdanau.h).
#include "attn/bahdanau.h"

#include <cmath>
#include <limits>

#include "kernels/kernels_f32.h"
#include "ops/attend_f32.h"
#include "ops/validate.h"

namespace attn {

Status bahdanau_f32(const BahdanauShape& shape, const BahdanauF32Weights& weights,
                    const BahdanauF32Args& args, Scratch scratch) {
  if (args.query == nullptr || args.keys == nullptr || args.context == nullptr ||
      weights.w1 == nullptr || weights.w2 == nullptr || weights.v == nullptr) {
    return Status::kNullPointer;
  }
  if (!detail::dims_ok({shape.batch, shape.seq, shape.query_dim, shape.key_dim, shape.units})) {
    return Status::kBadShape;
  }
  if (!std::isfinite(weights.bv)) return Status::kBadArgument;
  Mask lengths;
  lengths.key_lengths = args.key_lengths;
  const Status st = detail::check_mask(lengths, shape.batch, shape.seq);
  if (st != Status::kOk) return st;
  void* ws =
      detail::aligned_scratch(scratch.data, scratch.bytes, bahdanau_f32_scratch_bytes(shape));
  if (ws == nullptr) return Status::kScratchTooSmall;

  const auto u = static_cast<std::size_t>(shape.units);
  const auto dk = static_cast<std::size_t>(shape.key_dim);
  const auto t = static_cast<std::size_t>(shape.seq);
  auto* base = static_cast<unsigned char*>(ws);
  auto* query_proj = static_cast<float*>(static_cast<void*>(base));  // query W1 + b1 + b2
  base += f32_bytes(u);
  auto* key_proj = static_cast<float*>(static_cast<void*>(base));  // h_j W2, then tanh(...)
  base += f32_bytes(u);
  auto* scores = static_cast<float*>(static_cast<void*>(base));  // one block
  base += f32_bytes(static_cast<std::size_t>(kSdpaKeyBlock));
  auto* acc = static_cast<float*>(static_cast<void*>(base));

  for (int32_t b = 0; b < shape.batch; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    const float* keys = args.keys + ub * t * dk;
    kernels::dense_f32(args.query + ub * static_cast<std::size_t>(shape.query_dim), 1,
                       shape.query_dim, weights.w1, weights.b1, shape.units, query_proj);
    if (weights.b2 != nullptr) kernels::add_f32(query_proj, query_proj, weights.b2, shape.units);
    const int32_t len = args.key_lengths != nullptr ? args.key_lengths[b] : shape.seq;
    float m = -std::numeric_limits<float>::infinity();
    float l = 0.0f;
    for (std::size_t c = 0; c < dk; ++c) acc[c] = 0.0f;
    float* w = args.weights != nullptr ? args.weights + ub * t : nullptr;
    for (int32_t j0 = 0; j0 < len; j0 += kSdpaKeyBlock) {
      const int32_t nk = len - j0 < kSdpaKeyBlock ? len - j0 : kSdpaKeyBlock;
      for (int32_t j = 0; j < nk; ++j) {
        const float* h = keys + static_cast<std::size_t>(j0 + j) * dk;
        kernels::dense_f32(h, 1, shape.key_dim, weights.w2, query_proj, shape.units, key_proj);
        kernels::tanh_f32(key_proj, shape.units);
        scores[j] = kernels::dot_f32(weights.v, key_proj, shape.units) + weights.bv;
        if (w != nullptr) w[j0 + j] = scores[j];  // raw score, normalised below
      }
      detail::online_softmax_update(scores, 0, 1, nk, keys + static_cast<std::size_t>(j0) * dk,
                                    dk, shape.key_dim, &m, &l, acc, dk);
    }
    float* context = args.context + ub * dk;
    const float inv_l = len == 0 ? 0.0f : 1.0f / l;
    for (std::size_t c = 0; c < dk; ++c) context[c] = acc[c] * inv_l;
    if (w != nullptr) {
      for (int32_t j = 0; j < shape.seq; ++j) {
        w[j] = j < len ? std::exp(w[j] - m) * inv_l : 0.0f;
      }
    }
  }
  return Status::kOk;
}

}  // namespace attn
