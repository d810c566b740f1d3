// Bahdanau attention, int8, one batch item from its key memory (internal): the
// part that bahdanau_s8 and bahdanau_s8_step share (see attn/bahdanau_s8.h),
// and their common run. Integer only.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/bahdanau_s8.h"
#include "attn/config.h"
#include "core/attend_s8.h"
#include "kernels/s8/fixedpoint.h"
#include "ops/fc_s8.h"
#include "ops/op_helpers.h"

namespace attn {
namespace detail {

// The scratch of bahdanau_s8_scratch_bytes, carved from its 64-byte aligned start.
struct BahdanauS8Work {
  int8_t* query_proj;   // A = FULLY_CONNECTED(query, W1, b1)           [units]
  int8_t* row;          // B_j (one-shot)                              [units]
  int32_t* query_term;  // ADD's rescaled A[u], doubled                 [units]
  int32_t* key_term;    // ADD's rescaled B code x, doubled, at [x + 128] [256]
  void* core;           // the softmax / context core (its score row first)
};

inline BahdanauS8Work bahdanau_s8_work(const BahdanauShape& s, void* ws) {
  const auto units = static_cast<std::size_t>(s.units);
  BahdanauS8Work w;
  w.query_proj = static_cast<int8_t*>(ws);
  w.row = w.query_proj + align_up(units);
  w.query_term = static_cast<int32_t*>(static_cast<void*>(w.row + align_up(units)));
  w.key_term = w.query_term + f32_bytes(units) / 4;
  w.core = w.key_term + f32_bytes(256) / 4;
  return w;
}

// TFLite int8 ADD's first stage for one input code: the code minus its zero
// point, shifted left by 20, rescaled to twice the larger input scale.
inline int32_t add_s8_rescale(int32_t code, int32_t zero_point, const QuantizedMultiplier& m) {
  return q::multiply_by_quantized_multiplier((code - zero_point) * (1 << 20), m.multiplier,
                                             m.shift);
}

// The key terms of every B code: the ADD's rescaling of its second input,
// doubled (add_tanh_dot_s8's form), as a table (one rescaling per code
// instead of one per key and unit). |term| <= 255 * 2^20 / 2: no overflow.
inline void bahdanau_s8_key_terms(const BahdanauS8Params& p, int32_t* key_term) {
  for (int32_t x = -128; x <= 127; ++x) {
    key_term[x + 128] = 2 * add_s8_rescale(x, p.add.input2_zero_point, p.add.input2);
  }
}

// e_j code of one key from its memory row B_j: T_j[u] = TANH(ADD(A[u],
// B_j[u])) and their products with v (add_tanh_dot_s8), then the v layer's
// output (FULLY_CONNECTED(T_j, v, bv)); sum_v = sum_u v[u].
inline void bahdanau_s8_score(const BahdanauS8Params& p, const BahdanauS8Work& w,
                              const int8_t* b_row, int32_t sum_v, int8_t* score) {
  const AddS8Params& add = p.add;
  const int32_t dot = add_tanh_dot_s8(w.query_term, w.key_term, b_row, p.v.weight, p.shape.units,
                                      add.output.multiplier, add.output.shift,
                                      add.output_zero_point, p.tanh_table);
  *score = fc_s8_output(p.v, 0, dot, sum_v);
}

// A = FULLY_CONNECTED(query, W1, b1) into w.query_proj and ADD's rescaling of
// it, doubled (as the key terms), into w.query_term. Returns sum_v.
__attribute__((always_inline)) inline int32_t bahdanau_query_s8(const BahdanauS8Params& p,
                                                                const BahdanauS8Work& w,
                                                                const int8_t* query) {
  const BahdanauShape& s = p.shape;
  fc_s8(p.w1, query, static_cast<std::size_t>(s.query_dim), 1, w.query_proj,
        static_cast<std::size_t>(s.units));
  int32_t sum_v = 0;
  for (int32_t u = 0; u < s.units; ++u) {
    w.query_term[u] = 2 * add_s8_rescale(w.query_proj[u], p.add.input1_zero_point, p.add.input1);
    sum_v += p.v.weight[u];
  }
  return sum_v;
}

// context (and the optional weights row) of one batch item over keys j <
// limit. memory_row(j, buf) returns B_j (in buf = w.row, or where it keeps it).
// w.key_term must hold bahdanau_s8_key_terms.
// static: each op's translation unit keeps its own copy, which GCC then
// specialises for its one caller (as it did before the ops shared their
// run); a shared weak copy cost the Cortex-M4 step 200-280 instructions.
template <class MemoryRow>
static void bahdanau_item_s8(const BahdanauS8Params& p, const BahdanauS8Work& w,
                             const int8_t* query, const int8_t* keys, int32_t limit, int8_t* ctx,
                             int8_t* wrow, MemoryRow memory_row) {
  const BahdanauShape& s = p.shape;
  const auto kd = static_cast<std::size_t>(s.key_dim);
  if (limit == 0) {
    for (std::size_t c = 0; c < kd; ++c) ctx[c] = static_cast<int8_t>(p.attend.out_zero_point);
    if (wrow != nullptr) {
      for (int32_t j = 0; j < s.seq; ++j) wrow[j] = -128;
    }
    return;
  }
  const int32_t sum_v = bahdanau_query_s8(p, w, query);
  auto* scores = static_cast<int8_t*>(w.core);  // the core's score row
  for (int32_t j = 0; j < limit; ++j) {
    bahdanau_s8_score(p, w, memory_row(j, w.row), sum_v, scores + j);
  }
  softmax_pv_row_s8(p.attend, scores, limit, nullptr, keys, kd, s.key_dim, s.seq, ctx, wrow,
                    w.core);
}

// Runs f with batch item b's memory_row (as bahdanau_item_s8 takes it): B_j
// projected into the buffer it is given (memory null: bahdanau_s8), or read
// from memory [batch, seq, units] (bahdanau_s8_step).
template <class F>
__attribute__((always_inline)) inline void bahdanau_with_memory_s8(const BahdanauS8Params& p,
                                                                   const BahdanauS8Args& args,
                                                                   const int8_t* memory, int32_t b,
                                                                   F&& f) {
  const auto item = static_cast<std::size_t>(b) * static_cast<std::size_t>(p.shape.seq);
  const auto units = static_cast<std::size_t>(p.shape.units);
  if (memory == nullptr) {
    const auto kd = static_cast<std::size_t>(p.shape.key_dim);
    const int8_t* keys = args.keys + item * kd;
    const FcS8Layer* w2 = &p.w2;
    f([w2, keys, kd, units](int32_t j, int8_t* buf) {
      fc_s8(*w2, keys + static_cast<std::size_t>(j) * kd, kd, 1, buf, units);
      return static_cast<const int8_t*>(buf);
    });
  } else {
    const int8_t* m = memory + item * units;
    f([m, units](int32_t j, int8_t*) { return m + static_cast<std::size_t>(j) * units; });
  }
}

// bahdanau_s8 (memory null) and bahdanau_s8_step through an executor of
// more than one worker (bahdanau_s8_parallel.cpp). scratch: 64-byte aligned,
// workers slices of bahdanau_s8_scratch_bytes(shape) - 64 bytes.
void bahdanau_s8_parallel(const Executor& ex, const BahdanauS8Params& params,
                          const BahdanauS8Args& args, const int8_t* memory, void* scratch);

// bahdanau_s8 (memory null) and bahdanau_s8_step after their entry checks:
// through `ex` (bahdanau_s8_parallel with more than one worker), else item
// after item on this thread. scratch: bahdanau_s8_scratch_bytes(shape,
// ex.workers) - 64 bytes, 64-byte aligned. Inlined into each op, whose
// constant memory (null or not) then keeps one of the two paths (and no frame
// is added to the Cortex-M stack budgets).
__attribute__((always_inline)) inline void bahdanau_s8_run([[maybe_unused]] const Executor& ex,
                                                           const BahdanauS8Params& params,
                                                           const BahdanauS8Args& args,
                                                           const int8_t* memory, void* scratch) {
#if ATTN_PARALLEL
  if (ex.workers > 1) {
    bahdanau_s8_parallel(ex, params, args, memory, scratch);
    return;
  }
#endif
  const BahdanauShape& s = params.shape;
  const BahdanauS8Work work = bahdanau_s8_work(s, scratch);
  bahdanau_s8_key_terms(params, work.key_term);
  for (int32_t b = 0; b < s.batch; ++b) {
    const QueryItem<int8_t> it = query_item(args, b, s.seq, s.query_dim, s.key_dim);
    bahdanau_with_memory_s8(params, args, memory, b, [&](auto row) {
      bahdanau_item_s8(params, work, it.query, it.keys, it.len, it.context, it.wrow, row);
    });
  }
}

}  // namespace detail
}  // namespace attn
