// Bahdanau (additive) attention, float32, with the Keras layer's weights.
//
// For each batch item b, with Dense layers in Keras layout (x @ W + bias):
//   e_j   = v . tanh(query W1 + b1 + h_j W2 + b2) + bv     j < seq
//   a     = softmax(e)        (over keys j < key_lengths[b] when given)
//   context = sum_j a_j h_j
//
// Layout (row-major):
//   query    [batch, query_dim]
//   keys     [batch, seq, key_dim]   (the encoder outputs h_j, also the values)
//   w1 [query_dim, units], b1 [units] or null
//   w2 [key_dim, units],   b2 [units] or null
//   v  [units] (Keras V: Dense(1) kernel [units, 1]), bv its bias (0 if unused)
//   context  [batch, key_dim]
//   probs    [batch, seq] optional: the attention probabilities
//
// Scratch: bahdanau_f32_scratch_bytes = 64 + align64(4*units)
//                                      + align64(4*kBahdanauKeyTile*units)
//                                      + align64(4*kSdpaKeyBlock) + align64(4*key_dim)
// (the query projection, the projections of a tile of keys, one block of
// scores, the context accumulator); independent of seq. kBahdanauKeyTile is 1
// in ref and mcu builds (Cortex-M: RAM first) and kSdpaQueryTile (16 with
// Helium, 32 with the other SIMD backends) otherwise, where the keys of a tile
// are projected in one product.
//
// With an executor of W workers: 64 + W * (that - 64), one copy per worker.
//
// Threads (args.executor, attn/parallel.h; bahdanau_f32 and bahdanau_f32_step):
// with batch >= W the batch items are the tasks, each computed as in the
// serial op: bit-identical. With fewer items than workers, item after item,
// an item of enough keys is split into ranges of whole kSdpaKeyBlock blocks
// (at most 8): each range runs the online softmax over its keys (the same
// scores as the serial op) and the ranges' maxima, sums and accumulators are
// merged in key order, the probs rescaled per range. The same terms summed
// in another order, with one more rescaling exp per range: deterministic for
// a given worker count, within the float32 bound for any summation order
// (tests/threads checks it against the double-precision reference, and
// within twice that bound of the serial op). bahdanau_f32_memory splits its
// key tiles over the executor: bit-identical. No task of less than
// kParallelMinTaskWork: a small call runs on this thread.
//
// A batch item with key length 0 gives a zero context and zero probs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/context_args.h"
#include "attn/parallel.h"
#include "attn/scratch.h"
#include "attn/sdpa.h"
#include "attn/status.h"

namespace attn {

struct BahdanauShape {
  int32_t batch = 1;
  int32_t seq = 0;
  int32_t query_dim = 0;
  int32_t key_dim = 0;
  int32_t units = 0;
};

// Keys whose projections are computed in one product (see Scratch above).
inline constexpr int32_t kBahdanauKeyTile = kSdpaQueryTile % 16 == 0 ? kSdpaQueryTile : 1;

constexpr std::size_t bahdanau_f32_scratch_bytes(const BahdanauShape& s, int32_t workers = 1) {
  if (s.units <= 0 || s.key_dim <= 0 || workers <= 0) return 0;
  const auto u = static_cast<uint64_t>(s.units);
  const uint64_t tile = sat::mul(static_cast<uint64_t>(kBahdanauKeyTile), u);
  const uint64_t proj = sat::add(sat::f32_bytes(u), sat::f32_bytes(tile));
  const uint64_t slice =
      sat::add(proj, sat::add(sat::f32_bytes(static_cast<uint64_t>(kSdpaKeyBlock)),
                              sat::f32_bytes(static_cast<uint64_t>(s.key_dim))));
  return sat::to_size(sat::add(kAlign, sat::mul(slice, static_cast<uint64_t>(workers))));
}

struct BahdanauF32Weights {
  const float* w1 = nullptr;
  const float* b1 = nullptr;
  const float* w2 = nullptr;
  const float* b2 = nullptr;
  const float* v = nullptr;
  float bv = 0.0f;
};

// query, keys, context, optional probs and key lengths, executor
// (attn/context_args.h).
using BahdanauF32Args = ContextArgs<float>;

// Returns kOk, or without writing anything: kNullPointer (query, keys, context,
// w1, w2 or v null), kBadShape (a dimension <= 0), kBadArgument (key length out
// of [0, seq], bv not finite, an executor that is not executor_valid),
// kScratchTooSmall (below bahdanau_f32_scratch_bytes(shape, executor.workers)).
Status bahdanau_f32(const BahdanauShape& shape, const BahdanauF32Weights& weights,
                    const BahdanauF32Args& args, Scratch scratch);

// Prepared encoder memory, for a decoder that attends to one encoder output
// over many steps. bahdanau_f32_memory computes, once,
//   M_j = h_j W2 + b2                      memory [batch, seq, units] float32
// and bahdanau_f32_step then scores each decoder step against M:
//   e_j = v . tanh(query W1 + b1 + M_j) + bv,  a = softmax(e),  context = sum_j a_j h_j
// costing O(query_dim units + seq (units + key_dim)) per step instead of the
// O(seq key_dim units) of re-projecting the keys. bahdanau_f32 itself is this
// pair, the memory computed a tile of keys at a time into its scratch, with the
// same kernel calls on the same operands: the step's outputs equal the
// one-shot op's bit for bit.
//
// bahdanau_f32_memory_bytes = 4 * batch * seq * units (0 for a bad shape).
constexpr std::size_t bahdanau_f32_memory_bytes(const BahdanauShape& s) {
  if (s.batch <= 0 || s.seq <= 0 || s.units <= 0) return 0;
  return sat::to_size(
      sat::mul(sat::mul(static_cast<uint64_t>(s.batch), static_cast<uint64_t>(s.seq)),
               sat::mul(static_cast<uint64_t>(s.units), 4)));
}

// keys [batch, seq, key_dim]; reads w2 and b2 (or null) of the weights.
// Returns kOk, or without writing anything: kNullPointer (keys, memory or w2
// null), kBadShape (a dimension <= 0 or above the engine's limit),
// kBadArgument (an executor that is not executor_valid), kScratchTooSmall
// (memory_bytes < bahdanau_f32_memory_bytes(shape)).
Status bahdanau_f32_memory(const BahdanauShape& shape, const BahdanauF32Weights& weights,
                           const float* keys, float* memory, std::size_t memory_bytes,
                           const Executor& executor = Executor{});

// One decoder step against the memory of the same shape, keys and weights
// (w2 and b2 are not read and may be null). args as for bahdanau_f32 (keys are
// the values of the context). Scratch: bahdanau_f32_scratch_bytes(shape,
// args.executor.workers).
// Returns kOk, or without writing anything: kNullPointer (query, keys,
// context, memory, w1 or v null), kBadShape, kBadArgument (key length out of
// [0, seq], bv not finite), kScratchTooSmall (scratch, or memory_bytes <
// bahdanau_f32_memory_bytes(shape)).
Status bahdanau_f32_step(const BahdanauShape& shape, const BahdanauF32Weights& weights,
                         const BahdanauF32Args& args, const float* memory, std::size_t memory_bytes,
                         Scratch scratch);

}  // namespace attn
