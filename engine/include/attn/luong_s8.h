// Luong attention, int8, bit-identical to the TensorFlow Lite op sequence:
//
//   dot:      S = BATCH_MATMUL(query, keys, adj_y)                 -> int8 (scores quant)
//   general:  K' = FULLY_CONNECTED(keys, W, b) -> int8 (keys_proj quant),
//             S = BATCH_MATMUL(query, K')
//   P = SOFTMAX(S, beta) (scale 1/256, zero point -128; beta defaults to 1: Luong has no 1/sqrt(d))
//   context = BATCH_MATMUL(P, keys)                                   -> int8 (context quant)
//
// i.e. sdpa_s8 with a single query and values = keys (see sdpa_s8.h for the
// masking rule and exactness limits). Luong general's Dense is TFLite's int8
// per-channel FULLY_CONNECTED (see attn/int8/layers_s8.h): W int8 [query_dim, key_dim]
// (TFLite's [out, in] layout; Keras stores the transpose), per-output-channel
// float scales, int32 bias or null. Unlike the float op (where q . b cancels
// in the softmax), the int8 bias changes K' and its rounding, so it is applied.
//
// Layout: query [batch, query_dim], keys [batch, seq, key_dim],
//         context [batch, key_dim], probs optional [batch, seq] (int8 codes).
// key_lengths [batch] optional: keys j >= key_lengths[b] are removed; a batch
// item with length 0 outputs the context zero point.
//
// Scratch: luong_s8_scratch_bytes = 64 + align64(seq * query_dim) (general only)
//                                   + sdpa_s8_core_bytes(seq, query_dim, key_dim)
//
// Prepared encoder memory (Luong general): luong_general_s8_memory computes K'
// once, into memory [batch, seq, query_dim] (luong_general_s8_memory_bytes =
// batch * seq * query_dim bytes); luong_general_s8_step then runs one decoder
// step from it in O(seq (query_dim + key_dim)) instead of also O(seq key_dim
// query_dim) for K'. luong_s8 is the same code with K' computed into scratch:
// the step's outputs are the one-shot op's bits. Step scratch:
// luong_general_s8_step_scratch_bytes = 64 + sdpa_s8_core_bytes(seq, query_dim, key_dim).
// With an executor of W workers each formula is 64 + W * (the rest): one copy
// per worker.
//
// Threads (args.executor, attn/parallel.h): the batch items as sdpa_s8 splits
// its items (items as tasks, or a long row's exact three-pass key split);
// Luong general's one-shot op with batch >= W projects each item's K' in its
// worker's copy, else item after item in blocks of rows;
// luong_general_s8_memory splits its rows. Every int8 value is the serial
// op's: bit-identical at any worker count. No task of less than
// kParallelMinTaskWork.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/context_args.h"
#include "attn/int8/layers_s8.h"
#include "attn/int8/quantize.h"
#include "attn/luong.h"
#include "attn/parallel.h"
#include "attn/scratch.h"
#include "attn/sdpa_s8.h"
#include "attn/status.h"

namespace attn {

struct LuongS8Quant {
  QuantParams query, keys;
  QuantParams keys_proj;  // general only: the FULLY_CONNECTED output
  QuantParams scores, context;
  float beta = 0.0f;  // 0 = 1.0
};

struct LuongS8Params {
  LuongGeneralShape shape{};  // dot: query_dim == key_dim == dim
  bool general = false;
  FcS8Layer proj{};
  SdpaS8Params attend{};
};

constexpr std::size_t luong_s8_scratch_bytes(const LuongGeneralShape& s, bool general,
                                             int32_t workers = 1) {
  if (s.seq <= 0 || s.key_dim <= 0 || s.query_dim <= 0 || workers <= 0) return 0;
  const uint64_t proj =
      general ? s8_bytes::block(static_cast<uint64_t>(s.seq), static_cast<uint64_t>(s.query_dim))
              : 0;
  const uint64_t slice = sat::add(proj, sdpa_s8_core_bytes64(s.seq, s.query_dim, s.key_dim));
  return sat::to_size(sat::add(kAlign, sat::mul(slice, static_cast<uint64_t>(workers))));
}
constexpr std::size_t luong_dot_s8_scratch_bytes(const LuongDotShape& s, int32_t workers = 1) {
  return luong_s8_scratch_bytes({s.batch, s.seq, s.dim, s.dim}, false, workers);
}
constexpr std::size_t luong_general_s8_scratch_bytes(const LuongGeneralShape& s,
                                                     int32_t workers = 1) {
  return luong_s8_scratch_bytes(s, true, workers);
}
constexpr std::size_t luong_general_s8_step_scratch_bytes(const LuongGeneralShape& s,
                                                          int32_t workers = 1) {
  return luong_s8_scratch_bytes(s, false, workers);
}
constexpr std::size_t luong_general_s8_memory_bytes(const LuongGeneralShape& s) {
  if (s.batch <= 0 || s.seq <= 0 || s.query_dim <= 0) return 0;
  return sat::to_size(
      sat::mul(sat::mul(static_cast<uint64_t>(s.batch), static_cast<uint64_t>(s.seq)),
               static_cast<uint64_t>(s.query_dim)));
}

// Both return kOk, or kNullPointer, kBadShape, kOverflow (key_dim/query_dim
// or seq beyond sdpa_s8's limits), kBadArgument (invalid scale, zero point,
// beta or weight scale). general: channel_storage holds query_dim multipliers
// and must outlive the params. On error neither *params nor channel_storage
// is written.
Status luong_dot_s8_prepare(const LuongDotShape& shape, const LuongS8Quant& quant,
                            LuongS8Params* params);
Status luong_general_s8_prepare(const LuongGeneralShape& shape, const LuongS8Quant& quant,
                                const FcS8Weights& weights, QuantizedMultiplier* channel_storage,
                                LuongS8Params* params);

// query, keys, context, optional probs (codes) and key lengths, executor
// (attn/context_args.h).
using LuongS8Args = ContextArgs<int8_t>;

// Returns kOk, or without writing anything: kNullPointer, kBadArgument (a key
// length outside [0, seq], an executor that is not executor_valid),
// kScratchTooSmall (below the scratch formula for args.executor.workers).
Status luong_s8(const LuongS8Params& params, const LuongS8Args& args, Scratch scratch);

// keys [batch, seq, key_dim] -> memory [batch, seq, query_dim], the int8 K'.
// Returns kOk, or without writing anything: kNullPointer (keys or memory
// null), kBadArgument (Luong dot params: no projection; an invalid executor),
// kBadShape (params not prepared), kScratchTooSmall (memory_bytes <
// luong_general_s8_memory_bytes).
Status luong_general_s8_memory(const LuongS8Params& params, const int8_t* keys, int8_t* memory,
                               std::size_t memory_bytes, const Executor& executor = Executor{});

// One decoder step against the memory of the same params and keys (keys are
// the values). Returns kOk, or without writing anything: kNullPointer (query,
// keys, context or memory null), kBadArgument (Luong dot params, a key length
// outside [0, seq], an invalid executor), kScratchTooSmall (scratch below
// luong_general_s8_step_scratch_bytes(shape, workers), or memory_bytes below
// luong_general_s8_memory_bytes).
Status luong_general_s8_step(const LuongS8Params& params, const LuongS8Args& args,
                             const int8_t* memory, std::size_t memory_bytes, Scratch scratch);

}  // namespace attn
