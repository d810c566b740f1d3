// Bahdanau additive attention, float32 (see attn/bahdanau.h).
#include "attn/bahdanau.h"

#include <cmath>

#include "kernels/f32/kernels_f32.h"
#include "core/attend_f32.h"
#include "core/one_query_f32.h"
#include "ops/op_helpers.h"

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
  auto* scores = static_cast<float*>(static_cast<void*>(base));  // one block
  base += f32_bytes(static_cast<std::size_t>(kSdpaKeyBlock));
  auto* acc = static_cast<float*>(static_cast<void*>(base));
  base += f32_bytes(dk);
  // tanh(h_j W2 + query_proj) for kBahdanauKeyTile keys
  auto* key_proj = static_cast<float*>(static_cast<void*>(base));

  for (int32_t b = 0; b < shape.batch; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    const float* keys = args.keys + ub * t * dk;
    kernels::dense_f32(args.query + ub * static_cast<std::size_t>(shape.query_dim), 1,
                       shape.query_dim, weights.w1, weights.b1, shape.units, query_proj);
    if (weights.b2 != nullptr) kernels::add_f32(query_proj, query_proj, weights.b2, shape.units);
    const int32_t len = args.key_lengths != nullptr ? args.key_lengths[b] : shape.seq;
    float* w = args.weights != nullptr ? args.weights + ub * t : nullptr;
    detail::OneQuery one;
    detail::one_query_start(&one, acc, shape.key_dim);
    for (int32_t j0 = 0; j0 < len; j0 += kSdpaKeyBlock) {
      const int32_t nk = len - j0 < kSdpaKeyBlock ? len - j0 : kSdpaKeyBlock;
      for (int32_t t0 = 0; t0 < nk; t0 += kBahdanauKeyTile) {
        const int32_t nt = nk - t0 < kBahdanauKeyTile ? nk - t0 : kBahdanauKeyTile;
        kernels::dense_f32(keys + static_cast<std::size_t>(j0 + t0) * dk, nt, shape.key_dim,
                           weights.w2, query_proj, shape.units, key_proj);
        kernels::tanh_f32(key_proj, nt * shape.units);
        // scores = v . key_proj rows: v as the one query, the rows as keys.
        kernels::qk_tile_f32(weights.v, u, 1, key_proj, u, nt, shape.units, scores + t0,
                             static_cast<std::size_t>(nt));
        for (int32_t r = 0; r < nt; ++r) scores[t0 + r] += weights.bv;
      }
      detail::one_query_block(&one, scores, nk, keys + static_cast<std::size_t>(j0) * dk, dk,
                              shape.key_dim, w, j0);
    }
    detail::one_query_finish(one, len, shape.seq, shape.key_dim, args.context + ub * dk, w);
  }
  return Status::kOk;
}

}  // namespace attn
