// Multi-head attention, float32, with PyTorch nn.MultiheadAttention's weights.
//
// For each batch item b and head h (head_dim = embed_dim / num_heads):
//   Q_h = query[b] Wq_h^T + bq_h     [seq_q,  head_dim]   Wq_h = rows h*hd..(h+1)*hd of Wq
//   K_h = key[b]   Wk_h^T + bk_h     [seq_kv, head_dim]
//   V_h = value[b] Wv_h^T + bv_h     [seq_kv, head_dim]
//   O_h = softmax(Q_h K_h^T / sqrt(head_dim) + mask) V_h
//   out[b] = concat_h(O_h) Wo^T + bo                          [seq_q, embed_dim]
//
// Layout (row-major, batch first, i.e. PyTorch's batch_first=True):
//   query  [batch, seq_q,  embed_dim]
//   key    [batch, seq_kv, kdim]      (kdim = embed_dim unless set)
//   value  [batch, seq_kv, vdim]      (vdim = embed_dim unless set)
//   out    [batch, seq_q,  embed_dim]
//   probs  optional: the attention probabilities, [batch, seq_q, seq_kv]
//          averaged over heads (PyTorch's attention weights with its default
//          average_attn_weights=True) or [batch, num_heads, seq_q, seq_kv]
//          (MhaProbsMode::kPerHead)
// Self-attention passes the same pointer as query, key and value.
//
// Weights exactly as PyTorch stores them (state_dict names):
//   in_proj_weight   [3*E, E]  packed Wq;Wk;Wv (used when kdim == vdim == E)
//   q/k/v_proj_weight [E, E], [E, kdim], [E, vdim] (used when in_proj_weight is null;
//                     required when kdim or vdim differs from E)
//   in_proj_bias     [3*E] or null (bias=False)
//   out_proj_weight  [E, E];  out_proj_bias [E] or null
//
// Scratch (per batch item and head, reused):
//   mha_f32_scratch_bytes = align64(4*seq_q*hd) * 2 + align64(4*seq_kv*hd) * 2
//                         + sdpa_f32_scratch_bytes({1, seq_q, seq_kv, hd, hd})
// (projected Q_h, O_h, K_h, V_h and the attention core); never seq_q * seq_kv.
// With an executor of W > 1 workers, every head's Q, O, K, V and W cores:
//   mha_f32_scratch_bytes(shape, W) = align64(4*seq_q*E) * 2 + align64(4*seq_kv*E) * 2
//                         + sdpa_f32_scratch_bytes({1, seq_q, seq_kv, hd, hd}, W)
//
// Threads (args.executor, attn/parallel.h): batch item after batch item.
// When the heads share out evenly (W divides num_heads, or num_heads >= 4 W)
// and the probs are not averaged, two parallel phases: one task per head
// projects its Q, K, V (the serial op's calls) and attends it, so a head's
// data stays in the cache of the core that wrote it; then the output
// projection in blocks of rows. Otherwise
// three parallel phases: the input projections in tasks of (Q/K/V, head,
// block of rows); the heads' attention as sdpa_f32 splits its batch items,
// in (head, query tile) tasks (averaged probs, which every head adds to:
// tasks of query tiles, each running the heads in order); the output
// projection in blocks of rows. Each GEMM is the serial op's call on a block
// of its rows, and the SIMD GEMMs compute every row from the same products in
// the same order in any block of at least 4 rows (or one row at a time below
// 4 rows), so the result is bit-identical to the serial op, except where the
// attention phase splits a head by key range as sdpa_f32 does (at most 4
// queries and fewer (head, tile) tasks than workers, or averaged probs with
// a single query tile; attn/sdpa.h): then O_h is within the float32 bound for
// any summation order and out carries that through the output projection
// (tests/threads checks both against the double-precision reference). No
// task of less than kParallelMinTaskWork: a small call runs on this thread.
//
// Masks: see mask.h, shared by every head. A fully masked query row gives a zero
// attention output, so its out row is out_proj_bias (PyTorch gives NaN there).
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/mask.h"
#include "attn/parallel.h"
#include "attn/scratch.h"
#include "attn/sdpa.h"
#include "attn/status.h"

namespace attn {

struct MhaShape {
  int32_t batch = 1;
  int32_t seq_q = 0;
  int32_t seq_kv = 0;
  int32_t embed_dim = 0;
  int32_t num_heads = 1;
  int32_t kdim = 0;  // 0 = embed_dim
  int32_t vdim = 0;  // 0 = embed_dim
};

constexpr std::size_t mha_f32_scratch_bytes(const MhaShape& s, int32_t workers = 1) {
  if (s.embed_dim <= 0 || s.num_heads <= 0 || s.seq_q <= 0 || s.seq_kv <= 0 ||
      s.embed_dim % s.num_heads != 0 || workers <= 0) {
    return 0;
  }
  const int32_t hd = s.embed_dim / s.num_heads;
  // One head's Q, O, K, V; with more than one worker, every head's.
  const auto cols = static_cast<uint64_t>(workers == 1 ? hd : s.embed_dim);
  const auto sq = static_cast<uint64_t>(s.seq_q);
  const auto skv = static_cast<uint64_t>(s.seq_kv);
  const uint64_t own =
      sat::add(sat::mul(2, sat::f32_bytes(sq, cols)), sat::mul(2, sat::f32_bytes(skv, cols)));
  return sat::to_size(
      sat::add(own, sdpa_f32_scratch_bytes({1, s.seq_q, s.seq_kv, hd, hd}, workers)));
}

struct MhaF32Weights {
  const float* in_proj_weight = nullptr;
  const float* q_proj_weight = nullptr;
  const float* k_proj_weight = nullptr;
  const float* v_proj_weight = nullptr;
  const float* in_proj_bias = nullptr;
  const float* out_proj_weight = nullptr;
  const float* out_proj_bias = nullptr;
};

enum class MhaProbsMode : int32_t {
  kAveraged = 0,  // probs [batch, seq_q, seq_kv], mean over heads
  kPerHead = 1,   // probs [batch, num_heads, seq_q, seq_kv]
};

struct MhaF32Args {
  const float* query = nullptr;
  const float* key = nullptr;
  const float* value = nullptr;
  float* out = nullptr;
  float* probs = nullptr;  // optional
  MhaProbsMode probs_mode = MhaProbsMode::kAveraged;
  Mask mask{};
  // Optional: workers to spread the work over (default: this thread alone).
  Executor executor{};
};

// Returns kOk, or without writing anything:
//   kNullPointer     query/key/value/out/out_proj_weight null, or no input projection
//                    (neither in_proj_weight nor all three q/k/v_proj_weight)
//   kBadShape        a dimension <= 0 (kdim/vdim may be 0 = embed_dim)
//   kShapeMismatch   num_heads does not divide embed_dim; in_proj_weight given
//                    while kdim or vdim differ from embed_dim
//   kBadArgument     a key length outside [0, seq_kv], bad probs_mode, an
//                    executor that is not executor_valid
//   kScratchTooSmall scratch smaller than mha_f32_scratch_bytes(shape, executor.workers)
Status mha_f32(const MhaShape& shape, const MhaF32Weights& weights, const MhaF32Args& args,
               Scratch scratch);

}  // namespace attn
