// The streaming-softmax attention core shared by every float op (internal).
//
// For one batch item, with s_ij = scale * q_i . k_j + mask_ij:
//   out_i = sum_j softmax_j(s_ij) v_j
// Queries are taken kSdpaQueryTile rows at a time; keys in blocks of
// kSdpaKeyBlock. For each block the running row max m_i, the running sum
// l_i = sum exp(s_ij - m_i) and the unnormalised output acc_i are updated
// (acc_i and l_i rescaled by exp(m_old - m_new) when the max grows); out_i =
// acc_i / l_i at the end. Key blocks that a causal mask or key length removes
// for the whole query tile are never visited.
//
// Two layouts of a tile: with a SIMD query tile (kSdpaQueryTile a multiple of
// 16) tiles of more than 4 queries keep the scaled queries transposed [d][tq]
// and the scores [key][tq] (tq = queries rounded up to 16), so the Q.K^T,
// softmax and P.V kernels run with queries along the vector (qk_tile_t,
// softmax_t, pv_tile_t: no horizontal sums); smaller tiles (decode) and ref
// builds keep rows [query][.] (qk_tile, max, exp_sub_sum, pv_tile).
//
// A tile whose visible keys fit one block skips the online rescaling: its
// probabilities are normalised before P.V (rows, in SIMD builds: softmax_f32
// per row; the transposed layout: softmax_t, then 1 / l_i), which accumulates
// straight into the output rows.
//
// Parallel runs (attend_f32_run): one task per (item, query tile), each worker
// in its own scratch slice; every tile is computed exactly as in a serial run,
// so the results are bit-identical for any worker count. When an op has fewer
// query tiles than workers (decode: a few queries against a long context) an
// item of at most 4 queries is split by key range instead: part p of P runs
// the online softmax over its keys into its own state (m_p, l_p, acc_p), and
// the states are merged in part order
//   m = max(m_0, m_p), l = l_0 e^(m_0 - m) + l_p e^(m_p - m),
//   acc = acc_0 e^(m_0 - m) + acc_p e^(m_p - m),   out = acc / l
// (rescale_state, the online step's own rescaling); a probs output is a
// further parallel pass, each range recomputing its own key blocks' scores
// against the merged max and sum. That changes the float
// summation order and the exps' reference points, never the set of terms:
// deterministic for a given worker count, and within the float32 bound for
// any summation order of the exact result (attn/sdpa.h).
//
// When probs are requested a second pass recomputes each score block and
// writes (or accumulates, for head-averaged MHA probs) exp(s - m_i) / l_i;
// a one-block row tile writes its probabilities directly instead.
//
// The loops live in attend_f32_loop-inl.h, a template over the kernel set:
// attend_f32.cpp instantiates it with the build's backend (attn::kernels); a
// Highway build compiles it once per target instead
// (kernels/f32/hwy/attend_f32_hwy.cpp, each target's kernels called
// directly), so attend_f32, attend_f32_tiles, attend_f32_key_part and
// attend_f32_key_probs make one dispatched call each. The masking stays in
// attend_f32.cpp. Same kernels, same order: the same bits either way.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/config.h"
#include "attn/parallel.h"
#include "attn/scratch.h"
#include "attn/sdpa.h"
#include "core/attend_mask.h"
#include "core/attend_rows.h"
#include "core/split.h"

namespace attn {
namespace detail {

struct AttendF32 : AttendRows<float> {
  float* probs = nullptr;         // optional [seq_q, seq_kv], row stride seq_kv
  bool accumulate_probs = false;  // probs += alpha * p instead of probs = alpha * p
  float probs_alpha = 1.0f;
  int32_t seq_q = 0;
  int32_t seq_kv = 0;
  int32_t dim_k = 0;
  int32_t dim_v = 0;
  float scale = 1.0f;
};

// Runs the core. `scratch` is 64-byte aligned and holds at least
// sdpa_f32_scratch_bytes({1, seq_q, seq_kv, dim_k, dim_v}) - 64 bytes.
void attend_f32(const AttendF32& a, const AttendMask& mask, void* scratch);

// One worker's scratch slice: the core's buffers for one query tile.
inline std::size_t attend_f32_slice_bytes(int32_t dim_k, int32_t dim_v) {
  return SdpaF32Layout<RawBytes>(dim_k, dim_v).bytes;
}
inline int32_t attend_f32_tile_count(int32_t seq_q) {
  return (seq_q + kSdpaQueryTile - 1) / kSdpaQueryTile;
}
// The work of one query tile (kParallelMinTaskWork's unit): its rows times
// the keys times the dim_k + dim_v multiply-adds and the softmax of a score.
inline int64_t attend_f32_tile_work(int32_t seq_q, int32_t seq_kv, int32_t dim_k, int32_t dim_v) {
  const int64_t rows = seq_q < kSdpaQueryTile ? seq_q : kSdpaQueryTile;
  return rows * seq_kv * (static_cast<int64_t>(dim_k) + dim_v + kSoftmaxWork);
}

// Query tiles [tile_begin, tile_end) of one item (tile t: rows from
// t * kSdpaQueryTile), with one slice of scratch. attend_f32 runs them all.
void attend_f32_tiles(const AttendF32& a, const AttendMask& mask, int32_t tile_begin,
                      int32_t tile_end, void* slice);

// The key split of one item: the number of key ranges for `workers` (1: do
// not split; more only for at most 4 queries, in ranges of whole kSdpaKeyBlock
// blocks of at least kParallelMinTaskWork each), the partial state of range
// `part` into slice `part`, and the merge of slices [0, parts) in part order
// into a.out.
int32_t attend_f32_key_parts(const AttendF32& a, const AttendMask& mask, int32_t workers);
void attend_f32_key_part(const AttendF32& a, const AttendMask& mask, int32_t part, int32_t parts,
                         void* slice);
void attend_f32_merge_parts(const AttendF32& a, int32_t parts, void* slices,
                            std::size_t slice_bytes);
// After the merge: the probs of range `part` from the merged max and sum
// (slice 0's), scores recomputed over the range's own key blocks.
void attend_f32_key_probs(const AttendF32& a, const AttendMask& mask, int32_t part, int32_t parts,
                          void* slices, std::size_t slice_bytes);

// One item of a parallel run: a batch item, a head, or both.
struct AttendF32Item {
  AttendF32 a;
  AttendMask mask;
};

// One item through `ex`: its query tiles as tasks, or its key ranges when
// attend_f32_key_parts splits it (see the comment at the top). scratch as
// for attend_f32_run.
void attend_f32_item(const Executor& ex, const AttendF32Item& it, void* scratch);

// Runs items [0, n_items) through `ex`: item(i) returns item i's view, every
// item with these seq_q, dim_k and dim_v (and item 0's seq_kv, which sizes
// the tasks); concurrent items must write disjoint outputs (accumulated
// probs included). scratch: 64-byte aligned, ex.workers slices of
// attend_f32_slice_bytes. Tasks are runs of consecutive (item, query tile)
// units, one tile each unless a tile is less work than
// kParallelMinTaskWork (attn/parallel.h); with fewer units than workers,
// items go one after another through attend_f32_item. Built with
// ATTN_PARALLEL 0: attend_f32 per item, here.
template <class ItemFn>
void attend_f32_run(const Executor& ex, int32_t n_items, int32_t seq_q, int32_t dim_k,
                    int32_t dim_v, const ItemFn& item, void* scratch) {
#if !ATTN_PARALLEL
  (void)ex;
  (void)seq_q;
  (void)dim_k;
  (void)dim_v;
  for (int32_t i = 0; i < n_items; ++i) {
    const AttendF32Item it = item(i);
    attend_f32(it.a, it.mask, scratch);
  }
#else
  if (n_items <= 0) return;
  const int32_t tiles = attend_f32_tile_count(seq_q);
  const int64_t units = static_cast<int64_t>(n_items) * tiles;
  if (units < ex.workers) {
    for (int32_t i = 0; i < n_items; ++i) attend_f32_item(ex, item(i), scratch);
    return;
  }
  const int32_t n_tasks =
      split_count(units, attend_f32_tile_work(seq_q, item(0).a.seq_kv, dim_k, dim_v), units);
  const std::size_t slice = attend_f32_slice_bytes(dim_k, dim_v);
  auto task = [&](int32_t t, int32_t worker) {
    int64_t u = 0;
    int64_t end = 0;
    split_range(units, t, n_tasks, &u, &end);
    void* ws = static_cast<unsigned char*>(scratch) + static_cast<std::size_t>(worker) * slice;
    while (u < end) {  // the units of one item at a time
      const auto i = static_cast<int32_t>(u / tiles);
      const auto tile = static_cast<int32_t>(u % tiles);
      const int64_t item_end = static_cast<int64_t>(i + 1) * tiles;
      const int64_t stop = end < item_end ? end : item_end;
      const AttendF32Item it = item(i);
      attend_f32_tiles(it.a, it.mask, tile, tile + static_cast<int32_t>(stop - u), ws);
      u = stop;
    }
  };
  parallel_for(ex, n_tasks, task);
#endif
}

// Rescales a running state (max m, sum l, accumulators acc of dim_v) to the
// max m_new >= m: l and acc times exp(m - m_new); nothing when m_new == m.
void rescale_state(float m_new, float* m, float* l, float* acc, int32_t dim_v);

// The softmax half of online_softmax_update (no P V): s overwritten with
// exp(s - m_new), m, l and the rows of acc rescaled; the caller then adds
// P V to acc (the decode op, block by converted block).
void online_softmax_rows(float* s, std::size_t s_stride, int32_t nq, int32_t nk, float* m, float* l,
                         float* acc, std::size_t acc_stride, int32_t dim_v);

// One online-softmax step for nq rows and a block of nk keys: s holds the
// block's scores (masked = -inf) and is overwritten with exp(s - m_new); the
// running max m, sum l and accumulators acc (rows of dim_v) are rescaled when
// the max grows, then acc += P V. Rows with no visible key yet are unchanged.
void online_softmax_update(float* s, std::size_t s_stride, int32_t nq, int32_t nk, const float* v,
                           std::size_t v_stride, int32_t dim_v, float* m, float* l, float* acc,
                           std::size_t acc_stride);

}  // namespace detail
}  // namespace attn
