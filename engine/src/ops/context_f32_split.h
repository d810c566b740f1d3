// The parallel runs of the float single-query ops (Bahdanau, Luong) with an
// executor of more than one worker (internal). Scratch: 64-byte aligned,
// workers slices of op.slice_bytes, slice w the serial op's scratch.
//
//   batch >= workers: batch items as tasks (runs of consecutive items, each
//     run at least kParallelMinTaskWork), each the serial item in its
//     worker's slice: bit-identical to the serial op;
//   else, item after item: an item of enough keys is split into key ranges of
//     whole blocks (op.align keys: the serial loop's blocks, so every score is
//     the serial one), blocks shared evenly, at most min(workers,
//     kOneQueryMaxParts) ranges, each at least kParallelMinTaskWork; range p
//     runs the online softmax over its keys in slice p and one_query_merge
//     merges them (within the float bound for any summation order, see
//     one_query_f32.h); a shorter item runs serially in slice 0.
//
// Op provides (ContextF32Batch below: the sizes, len, context and weights):
// slice_bytes, batch, seq, dim_v (the context's width), align (a multiple of
// 16), key_work (work per key);
//   len(b)                          the item's key length;
//   item(b, slice)                  the serial item;
//   prepare(b, slice0)              the split item's shared part (a query projection);
//   part(b, begin, end, &q, slice, slice0)   one_query_start + blocks over
//                                   [begin, end), weights at their columns;
//   context(b), weights(b)          the item's outputs (weights may be null).
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/context_args.h"
#include "attn/parallel.h"
#include "core/one_query_f32.h"
#include "core/split.h"
#include "ops/op_helpers.h"

namespace attn {
namespace detail {

// The part of the Op interface that a float context op's args give (see
// attn/context_args.h): its sizes and each item's key length and outputs.
struct ContextF32Batch {
  const ContextArgs<float>* args;
  std::size_t slice_bytes;
  int32_t batch, seq, dim_v, align;
  int64_t key_work;

  int32_t len(int32_t b) const { return item_length(args->key_lengths, b, seq); }
  float* context(int32_t b) const {
    return args->context + static_cast<std::size_t>(b) * static_cast<std::size_t>(dim_v);
  }
  float* weights(int32_t b) const { return item_row(args->probs, b, seq); }
};

template <class Op>
void context_f32_run(const Executor& ex, const Op& op, void* scratch) {
  auto* base = static_cast<unsigned char*>(scratch);
  const auto slice = [&](int32_t w) { return base + static_cast<std::size_t>(w) * op.slice_bytes; };
  if (op.batch >= ex.workers) {
    const int32_t n = split_count(op.batch, op.seq * op.key_work, op.batch);
    auto items = [&](int32_t t, int32_t worker) {
      int64_t b = 0;
      int64_t end = 0;
      split_range(op.batch, t, n, &b, &end);
      for (; b < end; ++b) op.item(static_cast<int32_t>(b), slice(worker));
    };
    parallel_for(ex, n, items);
    return;
  }
  const int32_t max_parts = ex.workers < kOneQueryMaxParts ? ex.workers : kOneQueryMaxParts;
  for (int32_t b = 0; b < op.batch; ++b) {
    const int32_t len = op.len(b);
    const int32_t parts = split_count(len / op.align, op.align * op.key_work, max_parts);
    if (parts < 2) {
      op.item(b, slice(0));
      continue;
    }
    op.prepare(b, slice(0));
    OneQuery q[kOneQueryMaxParts];
    int32_t begins[kOneQueryMaxParts];
    int32_t ends[kOneQueryMaxParts];
    const int32_t blocks = (len + op.align - 1) / op.align;
    auto range = [&](int32_t p, int32_t) {
      int64_t first = 0;
      int64_t last = 0;
      split_range(blocks, p, parts, &first, &last);
      begins[p] = static_cast<int32_t>(first) * op.align;
      ends[p] = last * op.align < len ? static_cast<int32_t>(last) * op.align : len;
      op.part(b, begins[p], ends[p], &q[p], slice(p), slice(0));
    };
    parallel_for(ex, parts, range);
    one_query_merge(q, begins, ends, parts, len, op.seq, op.dim_v, op.context(b), op.weights(b));
  }
}

}  // namespace detail
}  // namespace attn
