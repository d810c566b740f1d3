// Luong attention, float32: dot and general scores.
//
//   dot:      e_j = q . h_j
//   general:  e_j = q . (h_j W + b)        (Keras Dense on the keys: W [key_dim, query_dim])
//   a = softmax(e) over j < key_lengths[b] (all j when null), context = sum_j a_j h_j
//
// Layout (row-major):
//   query    [batch, query_dim]            (dot: query_dim == key_dim == dim)
//   keys     [batch, seq, key_dim]         (encoder outputs h_j, also the values)
//   context  [batch, key_dim]
//   probs    [batch, seq] optional: the attention probabilities
//
// Luong general is computed as e_j = (W q) . h_j: one [key_dim x query_dim]
// product per query instead of one per key. The term q . b is the same for
// every key, so it cancels in the softmax: b is accepted (it is part of the
// Keras layer's weights) but does not change context or probs.
//
// Scratch: luong_dot_f32_scratch_bytes = sdpa_f32_scratch_bytes({1, 1, seq, dim, dim})
//          luong_general_f32_scratch_bytes = that with dim = key_dim, + align64(4*key_dim)
// independent of seq (of it, one block of kSdpaQueryTile * kSdpaKeyBlock scores and
// the context accumulator are used). A batch item with key length 0 gives zeros.
// With an executor of W workers each formula takes W (one copy per worker:
// sdpa_f32_scratch_bytes(..., W), and W * align64(4*key_dim) for general).
//
// Threads (args.executor, attn/parallel.h; every op below but the memory's):
// with batch >= W the batch items are the tasks, each computed as in the
// serial op: bit-identical. With fewer items than workers, item after item,
// an item of enough keys is split into ranges of whole score blocks (the
// serial op's blocks, at most 8 ranges): each range runs the online softmax
// over its keys and the ranges' maxima, sums and accumulators are merged in
// key order, the probs rescaled per range. The same terms summed in another
// order, with one more rescaling exp per range: deterministic for a given
// worker count, within the float32 bound for any summation order
// (tests/threads checks it against the double-precision reference, and
// within twice that bound of the serial op). luong_general_f32_memory splits
// its rows: bit-identical. No task of less than kParallelMinTaskWork.
//
// Prepared encoder memory (Luong general): luong_general_f32_memory computes
// K'_j = h_j W once, into memory [batch, seq, query_dim] float32
// (luong_general_f32_memory_bytes = 4 * batch * seq * query_dim); then
// luong_general_f32_step runs one decoder step from it:
//   e_j = q . K'_j,  a = softmax(e),  context = sum_j a_j h_j
// costing O(seq (query_dim + key_dim)) per step, without the one-shot op's
// O(query_dim key_dim) product W q. b is left out of K' (q . b cancels in the
// softmax, as above). The one-shot op computes (W q) . h_j, the step q . (h_j
// W): the same sums, rounded in another order, so the two agree within float
// rounding of the scores, not bit for bit. Step scratch:
// luong_general_f32_step_scratch_bytes = luong_dot_f32_scratch_bytes({batch, seq, key_dim}).
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/context_args.h"
#include "attn/parallel.h"
#include "attn/scratch.h"
#include "attn/sdpa.h"
#include "attn/status.h"

namespace attn {

struct LuongDotShape {
  int32_t batch = 1;
  int32_t seq = 0;
  int32_t dim = 0;
};

struct LuongGeneralShape {
  int32_t batch = 1;
  int32_t seq = 0;
  int32_t query_dim = 0;
  int32_t key_dim = 0;
};

constexpr std::size_t luong_dot_f32_scratch_bytes(const LuongDotShape& s, int32_t workers = 1) {
  return sdpa_f32_scratch_bytes({1, 1, s.seq, s.dim, s.dim}, workers);
}

constexpr std::size_t luong_general_f32_scratch_bytes(const LuongGeneralShape& s,
                                                      int32_t workers = 1) {
  if (s.key_dim <= 0 || workers <= 0) return 0;
  const uint64_t proj =
      sat::mul(sat::f32_bytes(static_cast<uint64_t>(s.key_dim)), static_cast<uint64_t>(workers));
  return sat::to_size(
      sat::add(sdpa_f32_scratch_bytes({1, 1, s.seq, s.key_dim, s.key_dim}, workers), proj));
}

constexpr std::size_t luong_general_f32_step_scratch_bytes(const LuongGeneralShape& s,
                                                           int32_t workers = 1) {
  return luong_dot_f32_scratch_bytes({s.batch, s.seq, s.key_dim}, workers);
}

constexpr std::size_t luong_general_f32_memory_bytes(const LuongGeneralShape& s) {
  if (s.batch <= 0 || s.seq <= 0 || s.query_dim <= 0) return 0;
  return sat::to_size(
      sat::mul(sat::mul(static_cast<uint64_t>(s.batch), static_cast<uint64_t>(s.seq)),
               sat::mul(static_cast<uint64_t>(s.query_dim), 4)));
}

// query, keys, context, optional probs and key lengths, executor
// (attn/context_args.h).
using LuongF32Args = ContextArgs<float>;

// Luong general's Dense on the keys: w [key_dim, query_dim], b [query_dim] or null.
struct LuongGeneralF32Weights {
  const float* w = nullptr;
  const float* b = nullptr;
};

// Both return kOk, or without writing anything: kNullPointer, kBadShape,
// kBadArgument (key length outside [0, seq], an executor that is not
// executor_valid), kScratchTooSmall (below the scratch formula for
// args.executor.workers).
Status luong_dot_f32(const LuongDotShape& shape, const LuongF32Args& args, Scratch scratch);
Status luong_general_f32(const LuongGeneralShape& shape, const LuongGeneralF32Weights& weights,
                         const LuongF32Args& args, Scratch scratch);

// keys [batch, seq, key_dim] -> memory [batch, seq, query_dim] (reads w; b is
// not used), its rows split over `executor` (bit-identical). Returns kOk, or
// without writing anything: kNullPointer (keys, memory or w null), kBadShape,
// kBadArgument (an executor that is not executor_valid), kScratchTooSmall
// (memory_bytes < luong_general_f32_memory_bytes(shape)).
Status luong_general_f32_memory(const LuongGeneralShape& shape,
                                const LuongGeneralF32Weights& weights, const float* keys,
                                float* memory, std::size_t memory_bytes,
                                const Executor& executor = Executor{});

// One decoder step against the memory of the same shape and keys (keys are
// the values). Returns kOk, or without writing anything: kNullPointer (query,
// keys, context or memory null), kBadShape, kBadArgument (key length outside
// [0, seq], an invalid executor), kScratchTooSmall (scratch below
// luong_general_f32_step_scratch_bytes(shape, args.executor.workers), or
// memory_bytes below luong_general_f32_memory_bytes).
Status luong_general_f32_step(const LuongGeneralShape& shape, const LuongF32Args& args,
                              const float* memory, std::size_t memory_bytes, Scratch scratch);

}  // namespace attn
