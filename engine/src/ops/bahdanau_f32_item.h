// Bahdanau attention, float32, one batch item from its key memory (internal):
// the part that bahdanau_f32 and bahdanau_f32_step share (see attn/bahdanau.h),
// and their common run.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/bahdanau.h"
#include "attn/config.h"
#include "core/one_query_f32.h"
#include "kernels/f32/kernels_f32.h"
#include "ops/op_helpers.h"

namespace attn {
namespace detail {

static_assert(kSdpaKeyBlock % kBahdanauKeyTile == 0, "key tiles start at multiples of the tile");

// The scratch of bahdanau_f32_scratch_bytes, carved from its 64-byte aligned start.
struct BahdanauF32Work {
  float* query_proj;  // query W1 + b1                       [units]
  float* scores;      // one block of scores                 [kSdpaKeyBlock]
  float* acc;         // the context accumulator              [key_dim]
  float* key_proj;    // tanh(M_j + query_proj) of one tile   [kBahdanauKeyTile, units]
};

inline BahdanauF32Work bahdanau_f32_work(const BahdanauShape& s, void* ws) {
  auto* base = static_cast<unsigned char*>(ws);
  BahdanauF32Work w;
  w.query_proj = static_cast<float*>(static_cast<void*>(base));
  base += f32_bytes(static_cast<std::size_t>(s.units));
  w.scores = static_cast<float*>(static_cast<void*>(base));
  base += f32_bytes(static_cast<std::size_t>(kSdpaKeyBlock));
  w.acc = static_cast<float*>(static_cast<void*>(base));
  base += f32_bytes(static_cast<std::size_t>(s.key_dim));
  w.key_proj = static_cast<float*>(static_cast<void*>(base));
  return w;
}

// M rows of the key tile starting at key j (j a multiple of kBahdanauKeyTile):
// the min(kBahdanauKeyTile, seq - j) rows h_j W2 + b2 of one batch item's keys,
// in one dense product. The memory and the one-shot op both project with
// these calls, so their M rows are the same bits.
inline void bahdanau_memory_tile_f32(const BahdanauShape& s, const BahdanauF32Weights& w,
                                     const float* keys, int32_t j, float* m) {
  const int32_t rows = s.seq - j < kBahdanauKeyTile ? s.seq - j : kBahdanauKeyTile;
  kernels::dense_f32(keys + static_cast<std::size_t>(j) * static_cast<std::size_t>(s.key_dim), rows,
                     s.key_dim, w.w2, w.b2, s.units, m);
}

// The scores e_j = v . tanh(query_proj + M_j) + bv of keys [j0, j0 + nk)
// (j0 a multiple of kBahdanauKeyTile, nk <= kSdpaKeyBlock) into work.scores;
// memory_tile(j, buf) returns the M rows of the tile starting at key j (in
// buf, or anywhere it keeps them).
template <class MemoryTile>
__attribute__((always_inline)) inline void bahdanau_scores_f32(
    const BahdanauShape& s, const BahdanauF32Weights& w, int32_t j0, int32_t nk,
    const float* query_proj, const BahdanauF32Work& work, MemoryTile& memory_tile) {
  const auto u = static_cast<std::size_t>(s.units);
  for (int32_t t0 = 0; t0 < nk; t0 += kBahdanauKeyTile) {
    const int32_t nt = nk - t0 < kBahdanauKeyTile ? nk - t0 : kBahdanauKeyTile;
    const float* m = memory_tile(j0 + t0, work.key_proj);
    for (int32_t r = 0; r < nt; ++r) {
      const std::size_t off = static_cast<std::size_t>(r) * u;
      kernels::add_f32(work.key_proj + off, m + off, query_proj, s.units);
    }
    kernels::tanh_f32(work.key_proj, nt * s.units);
    // scores = v . key_proj rows: v as the one query, the rows as keys.
    kernels::qk_tile_f32(w.v, u, 1, work.key_proj, u, nt, s.units, work.scores + t0,
                         static_cast<std::size_t>(nt));
    for (int32_t r = 0; r < nt; ++r) work.scores[t0 + r] += w.bv;
  }
}

// context = sum_j a_j h_j over keys j < len of one batch item, with
// e_j = v . tanh(query W1 + b1 + M_j) + bv (memory_tile as for
// bahdanau_scores_f32). wrow: the item's weights row or null. len may be 0
// (zero context).
// static: each op's translation unit keeps its own copy, which GCC then
// specialises for its one caller (as it did before the ops shared their
// run); a shared weak copy cost the Cortex-M4 step 200-280 instructions.
template <class MemoryTile>
static void bahdanau_item_f32(const BahdanauShape& s, const BahdanauF32Weights& w,
                              const float* query, const float* keys, int32_t len, float* context,
                              float* wrow, const BahdanauF32Work& work, MemoryTile memory_tile) {
  const auto dk = static_cast<std::size_t>(s.key_dim);
  kernels::dense_f32(query, 1, s.query_dim, w.w1, w.b1, s.units, work.query_proj);
  OneQuery one;
  one_query_start(&one, work.acc, s.key_dim);
  for (int32_t j0 = 0; j0 < len; j0 += kSdpaKeyBlock) {
    const int32_t nk = len - j0 < kSdpaKeyBlock ? len - j0 : kSdpaKeyBlock;
    bahdanau_scores_f32(s, w, j0, nk, work.query_proj, work, memory_tile);
    one_query_block(&one, work.scores, nk, keys + static_cast<std::size_t>(j0) * dk, dk, s.key_dim,
                    wrow, j0);
  }
  one_query_finish(one, len, s.seq, s.key_dim, context, wrow);
}

// A Bahdanau op's batch for the parallel run: with `memory` null (the
// one-shot op) each key tile's M rows are projected into the slice, else
// read from memory [batch, seq, units].
struct BahdanauF32Job {
  const BahdanauShape* shape;
  const BahdanauF32Weights* weights;
  const BahdanauF32Args* args;
  const float* memory;
};

// Runs f with batch item b's memory_tile (as bahdanau_item_f32 takes it): the
// M rows of each key tile projected into the buffer it is given (job.memory
// null: the one-shot op), or read from the memory (the step).
template <class F>
__attribute__((always_inline)) inline void bahdanau_with_memory_f32(const BahdanauF32Job& job,
                                                                    int32_t b, F&& f) {
  const BahdanauShape* s = job.shape;
  const auto item = static_cast<std::size_t>(b) * static_cast<std::size_t>(s->seq);
  if (job.memory == nullptr) {
    const float* keys = job.args->keys + item * static_cast<std::size_t>(s->key_dim);
    const BahdanauF32Weights* w = job.weights;
    f([s, w, keys](int32_t j, float* buf) {
      bahdanau_memory_tile_f32(*s, *w, keys, j, buf);
      return static_cast<const float*>(buf);
    });
  } else {
    const auto u = static_cast<std::size_t>(s->units);
    const float* m = job.memory + item * u;
    f([m, u](int32_t j, float*) { return m + static_cast<std::size_t>(j) * u; });
  }
}

// The job through an executor of more than one worker (context_f32_split.h;
// bahdanau_f32_parallel.cpp). scratch: 64-byte aligned, workers slices of
// bahdanau_f32_scratch_bytes(shape) - 64 bytes.
void bahdanau_f32_parallel(const Executor& ex, const BahdanauF32Job& job, void* scratch);

// bahdanau_f32 and bahdanau_f32_step after their entry checks: the job
// through `ex` (bahdanau_f32_parallel with more than one worker), else item
// after item on this thread. scratch: bahdanau_f32_scratch_bytes(shape,
// ex.workers) - 64 bytes, 64-byte aligned. Inlined into each op, whose
// constant job.memory then keeps one of the two paths (and no frame is added
// to the Cortex-M stack budgets).
__attribute__((always_inline)) inline void bahdanau_f32_run([[maybe_unused]] const Executor& ex,
                                                            const BahdanauF32Job& job,
                                                            void* scratch) {
#if ATTN_PARALLEL
  if (ex.workers > 1) {
    bahdanau_f32_parallel(ex, job, scratch);
    return;
  }
#endif
  const BahdanauShape& s = *job.shape;
  const BahdanauF32Work work = bahdanau_f32_work(s, scratch);
  for (int32_t b = 0; b < s.batch; ++b) {
    const QueryItem<float> it = query_item(*job.args, b, s.seq, s.query_dim, s.key_dim);
    bahdanau_with_memory_f32(job, b, [&](auto tile) {
      bahdanau_item_f32(s, *job.weights, it.query, it.keys, it.len, it.context, it.wrow, work,
                        tile);
    });
  }
}

}  // namespace detail
}  // namespace attn
