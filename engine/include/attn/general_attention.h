// General attention (seed: "The Attention Mechanism from Scratch"), float32.
//
// For each batch item b, with projections in NumPy layout (X @ W):
//   Q = X W_q   K = X W_k   V = X W_v
//   probs = softmax(Q K^T * scale + mask)        scale = 1/sqrt(dim_k) by default
//   out = probs V
//
// Layout (row-major):
//   x    [batch, seq, in_dim]
//   w_q  [in_dim, dim_k], w_k [in_dim, dim_k], w_v [in_dim, dim_v]
//   out  [batch, seq, dim_v]; probs [batch, seq, seq] optional
//
// Scratch: general_attention_f32_scratch_bytes = 2 * align64(4*seq*dim_k)
//          + align64(4*seq*dim_v) + sdpa_f32_scratch_bytes({1, seq, seq, dim_k, dim_v}, W)
// (one batch item's Q, K, V and the attention core, one per worker of an
// executor of W workers; W = 1 without one).
//
// Threads (args.executor, attn/parallel.h): batch item after batch item, the
// three projections in blocks of rows (dense_f32 computes each row alone),
// then the attention in tasks of query tiles: bit-identical to the serial op
// at any worker count. No task of less than kParallelMinTaskWork.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/mask.h"
#include "attn/parallel.h"
#include "attn/scratch.h"
#include "attn/sdpa.h"
#include "attn/status.h"

namespace attn {

struct GeneralAttentionShape {
  int32_t batch = 1;
  int32_t seq = 0;
  int32_t in_dim = 0;
  int32_t dim_k = 0;
  int32_t dim_v = 0;
};

constexpr std::size_t general_attention_f32_scratch_bytes(const GeneralAttentionShape& s,
                                                          int32_t workers = 1) {
  if (s.seq <= 0 || s.dim_k <= 0 || s.dim_v <= 0 || workers <= 0) return 0;
  const auto n = static_cast<uint64_t>(s.seq);
  const uint64_t own = sat::add(sat::mul(2, sat::f32_bytes(n, static_cast<uint64_t>(s.dim_k))),
                                sat::f32_bytes(n, static_cast<uint64_t>(s.dim_v)));
  return sat::to_size(
      sat::add(own, sdpa_f32_scratch_bytes({1, s.seq, s.seq, s.dim_k, s.dim_v}, workers)));
}

struct GeneralAttentionF32Weights {
  const float* w_q = nullptr;
  const float* w_k = nullptr;
  const float* w_v = nullptr;
};

struct GeneralAttentionF32Args {
  const float* x = nullptr;
  float* out = nullptr;
  float* probs = nullptr;  // optional
  float scale = 0.0f;      // 0 = 1/sqrt(dim_k)
  Mask mask{};
  // Optional: workers to spread the work over (default: this thread alone).
  Executor executor{};
};

// Returns kOk, or without writing anything: kNullPointer, kBadShape,
// kBadArgument (scale, key lengths, an executor that is not executor_valid),
// kScratchTooSmall (below general_attention_f32_scratch_bytes(shape, executor.workers)).
Status general_attention_f32(const GeneralAttentionShape& shape,
                             const GeneralAttentionF32Weights& weights,
                             const GeneralAttentionF32Args& args, Scratch scratch);

}  // namespace attn
