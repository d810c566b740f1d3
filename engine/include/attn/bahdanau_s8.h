// Bahdanau (additive) attention, int8, bit-identical to the TensorFlow Lite
// op sequence (reference kernels, as TFLite Micro runs them):
//
//   A   = FULLY_CONNECTED(query, W1, b1)          -> int8 (query_proj quant)  [units]
//   B_j = FULLY_CONNECTED(h_j,   W2, b2)          -> int8 (keys_proj quant)   [units]
//   S_j = ADD(A, B_j)                             -> int8 (sum quant)
//   T_j = TANH(S_j)                               -> int8, scale 1/128, zero point 0
//   e_j = FULLY_CONNECTED(T_j, v, bv)             -> int8 (scores quant)
//   P   = SOFTMAX(e, beta)                        (beta defaults to 1)
//   context = BATCH_MATMUL(P, keys)               -> int8 (context quant)
//
// FULLY_CONNECTED: TFLite's per-channel int8 kernel (see attn/int8/layers_s8.h); weights in
// TFLite's [out, in] layout: W1 [units, query_dim], W2 [units, key_dim],
// v [1, units], each with per-output-channel float scales and an optional
// int32 bias. ADD: TFLite's int8 ADD (left shift 20, both inputs rescaled to
// twice the larger input scale, then to the output). TANH: TFLite's int8
// reference TANH (gemmlowp tanh on a Q4.27 input; inputs beyond the input
// radius saturate), evaluated through a 256-entry table built in prepare.
//
// Layout: query [batch, query_dim], keys [batch, seq, key_dim] (also the
// values), context [batch, key_dim], probs optional [batch, seq] codes.
// key_lengths [batch] optional; a batch item of length 0 outputs the context
// zero point (and probs -128).
//
// Scratch: bahdanau_s8_scratch_bytes = 64 + 2 * align64(units) + align64(4 * units)
//                                     + align64(4 * 256) + sdpa_s8_row_bytes(seq, 1, key_dim)
// (A, one row, ADD's rescaled A and its table of rescaled B codes, the core);
// with an executor of W workers, 64 + W * (the rest): one copy per worker.
//
// Threads (args.executor, attn/parallel.h; bahdanau_s8 and bahdanau_s8_step):
// with batch >= W the batch items are the tasks; else item after item, an
// item of enough keys split by key range in sdpa_s8's three passes (each
// range's scores B_j -> e_j and their maximum; the sums of table exps; the
// probabilities and int32 P.V partial sums), merged by integer max and sums.
// bahdanau_s8_memory splits its rows. Every int8 value is the serial op's:
// bit-identical at any worker count. No task of less than
// kParallelMinTaskWork.
//
// Prepared encoder memory: bahdanau_s8_memory computes the int8 B_j of every
// key once, into memory [batch, seq, units] (bahdanau_s8_memory_bytes = batch
// * seq * units bytes); bahdanau_s8_step then runs one decoder step from it,
// costing O(query_dim units + seq (units + key_dim)) instead of also
// O(seq key_dim units) for the B_j. bahdanau_s8 is the same code with each
// B_j computed into scratch: the step's outputs are the one-shot op's bits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/bahdanau.h"
#include "attn/context_args.h"
#include "attn/int8/layers_s8.h"
#include "attn/int8/quantize.h"
#include "attn/parallel.h"
#include "attn/scratch.h"
#include "attn/sdpa_s8.h"
#include "attn/status.h"

namespace attn {

struct BahdanauS8Quant {
  QuantParams query, keys;
  QuantParams query_proj, keys_proj;  // outputs of the W1 and W2 layers
  QuantParams sum;                    // the ADD output (TANH input)
  QuantParams scores;                 // the v layer's output
  QuantParams context;
  float beta = 0.0f;  // 0 = 1.0
};

struct BahdanauS8Weights {
  FcS8Weights w1, w2, v;
};

struct BahdanauS8Params {
  BahdanauShape shape{};
  FcS8Layer w1{}, w2{}, v{};
  AddS8Params add{};
  int8_t tanh_table[256] = {};  // TANH output code of sum code x at [x + 128]
  SdpaS8Params attend{};        // softmax and the context BATCH_MATMUL
};

constexpr std::size_t bahdanau_s8_channel_count(const BahdanauShape& s) {
  return s.units > 0 ? 2 * static_cast<std::size_t>(s.units) + 1 : 0;
}

constexpr std::size_t bahdanau_s8_scratch_bytes(const BahdanauShape& s, int32_t workers = 1) {
  if (s.units <= 0 || s.seq <= 0 || s.key_dim <= 0 || workers <= 0) return 0;
  const auto u = static_cast<uint64_t>(s.units);
  const uint64_t rows =
      sat::add(sat::mul(2, s8_bytes::block(u)), sat::add(sat::f32_bytes(u), sat::f32_bytes(256)));
  const uint64_t slice = sat::add(rows, sdpa_s8_row_bytes64(s.seq, 1, s.key_dim));
  return sat::to_size(sat::add(kAlign, sat::mul(slice, static_cast<uint64_t>(workers))));
}

constexpr std::size_t bahdanau_s8_memory_bytes(const BahdanauShape& s) {
  if (s.batch <= 0 || s.seq <= 0 || s.units <= 0) return 0;
  return sat::to_size(
      sat::mul(sat::mul(static_cast<uint64_t>(s.batch), static_cast<uint64_t>(s.seq)),
               static_cast<uint64_t>(s.units)));
}

// TFLite int8 TANH as a table: table[x + 128] = TANH(x) for every int8 x
// (output scale 1/128, zero point 0). kBadArgument if the input scale is
// below 2^-28 or its multiplier rounds to 2^31 (TFLite overflows there).
Status tanh_s8_table(const QuantParams& in, int8_t table[256]);

// Returns kOk, or kNullPointer (params/channel_storage/weights/scales null),
// kBadShape, kOverflow (a layer's input features > kFcS8MaxFeatures, seq >
// kSdpaS8MaxSeqKv), kBadArgument (invalid scales, zero points, beta).
// channel_storage: bahdanau_s8_channel_count(shape) entries, must outlive
// params. On error neither *params nor channel_storage is written.
Status bahdanau_s8_prepare(const BahdanauShape& shape, const BahdanauS8Quant& quant,
                           const BahdanauS8Weights& weights, QuantizedMultiplier* channel_storage,
                           BahdanauS8Params* params);

// query, keys, context, optional probs (codes) and key lengths, executor
// (attn/context_args.h).
using BahdanauS8Args = ContextArgs<int8_t>;

// Returns kOk, or without writing anything: kNullPointer, kBadArgument (key
// length outside [0, seq], an executor that is not executor_valid),
// kScratchTooSmall (below bahdanau_s8_scratch_bytes(shape, executor.workers)).
Status bahdanau_s8(const BahdanauS8Params& params, const BahdanauS8Args& args, Scratch scratch);

// keys [batch, seq, key_dim] -> memory [batch, seq, units], the int8 B_j.
// Returns kOk, or without writing anything: kNullPointer (keys or memory
// null), kBadShape (params not prepared), kBadArgument (an invalid executor),
// kScratchTooSmall (memory_bytes < bahdanau_s8_memory_bytes(params.shape)).
Status bahdanau_s8_memory(const BahdanauS8Params& params, const int8_t* keys, int8_t* memory,
                          std::size_t memory_bytes, const Executor& executor = Executor{});

// One decoder step against the memory of the same params and keys (keys are
// the values of the context); args and scratch as for bahdanau_s8. Returns
// kOk, or without writing anything: kNullPointer (query, keys, context or
// memory null), kBadArgument (a key length outside [0, seq]),
// kScratchTooSmall (scratch, or memory_bytes < bahdanau_s8_memory_bytes).
Status bahdanau_s8_step(const BahdanauS8Params& params, const BahdanauS8Args& args,
                        const int8_t* memory, std::size_t memory_bytes, Scratch scratch);

}  // namespace attn
