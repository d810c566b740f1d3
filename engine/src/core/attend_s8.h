// The int8 attention core shared by sdpa_s8, mha_s8 and the Luong ops
// (internal): one batch item (or head), strided rows, one mask.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/mask.h"
#include "attn/parallel.h"
#include "attn/sdpa_s8.h"
#include "attn/status.h"
#include "core/attend_mask.h"
#include "core/attend_rows.h"
#include "core/split.h"

namespace attn {
namespace detail {

struct AttendS8 : AttendRows<int8_t> {
  int8_t* probs = nullptr;  // optional [seq_q, seq_kv] rows of probs_stride
  std::size_t probs_stride = 0;
  int32_t seq_q = 0, seq_kv = 0, dim_k = 0, dim_v = 0;
};

// An item's K and V already in the tile kernels' layouts (kpack_s8 with its
// key sums, vpack_s8) for at least seq_kv keys: a packed KV cache's kv head
// (attn/kv_cache.h). The query-tiled core reads them instead of packing.
struct PackedKvS8 {
  const int8_t* k = nullptr;
  const int32_t* ksum = nullptr;
  const int8_t* v = nullptr;
};

// kUnsupported if an additive mask entry is neither 0 nor <= -1e9 (checked
// over every batch item the mask covers), else kOk.
Status check_additive_s8(const Mask& mask, int32_t batch, int32_t seq_q, int32_t seq_kv);

// Runs attention for query rows [row_begin, row_end) of one item (attend_s8:
// all rows) with prepared params (shape fields of params are not read but
// dim_k, which sizes the row buffers; a's sizes are used). ws:
// sdpa_s8_core_bytes(seq_kv, dim_k, dim_v, packed != null) bytes, 64-byte
// aligned: the one-row buffers, then (query tile > 1) the tiled core's.
// Without a matrix mask and from 4 query rows on, builds whose tile kernels
// are fast on this CPU (tile_s8_fast: x86 with VNNI, AArch64 with dot
// products, Cortex-M DSP and Helium) take the tiled core; the results are
// the same bits either way.
// packed: null, or the item's packed K/V, which the query-tiled core then
// reads (the one-row core reads a.k and a.v either way).
void attend_s8_rows(const SdpaS8Params& params, const AttendS8& a, const AttendMask& m,
                    int32_t row_begin, int32_t row_end, void* ws,
                    const PackedKvS8* packed = nullptr);
inline void attend_s8(const SdpaS8Params& params, const AttendS8& a, const AttendMask& m,
                      void* ws) {
  attend_s8_rows(params, a, m, 0, a.seq_q, ws);
}

// One item of a parallel run: a batch item, a head, or both.
struct AttendS8Item {
  AttendS8 a;
  AttendMask mask;
  PackedKvS8 packed{};  // k null: none (every op's item but the KV cache's)
};
inline const PackedKvS8* packed_of(const AttendS8Item& it) {
  return it.packed.k != nullptr ? &it.packed : nullptr;
}

// The key split (attend_s8_parallel.cpp): items of at most this many query rows
// are split by key range when the query split leaves workers idle, in at most
// kSdpaS8MaxKeyParts ranges of at least kSdpaKeyBlock keys each.
inline constexpr int32_t kSdpaS8KeySplitMaxQueries = 4;
inline constexpr int32_t kSdpaS8MaxKeyParts = 8;

// The number of key ranges for an item (1: no key split).
int32_t attend_s8_key_parts(const AttendS8& a, const AttendMask& m, int32_t workers);

// Query row `row` of an item split into at most `parts` key ranges through
// `ex`: three parallel passes (scores and range maxima; exp sums; weights and
// int32 P.V partial sums), merged between them by integer max and sums, so
// the result is the serial row's bit for bit. Range p works in slice p of
// `slices` (slice_bytes apart). The row has at least 2 * kSdpaKeyBlock
// visible keys (attend_s8_item runs shorter rows serially).
void attend_s8_key_split_row(const Executor& ex, const SdpaS8Params& params, const AttendS8& a,
                             const AttendMask& m, int32_t row, int32_t parts, void* slices,
                             std::size_t slice_bytes);

// The scores of keys [begin, end) of a split row into scores[begin, end)
// (part: the range's index, for its own scratch).
using S8RowScorer = void (*)(void* ctx, int32_t part, int32_t begin, int32_t end, int8_t* scores);

// The key split of attend_s8_key_split_row for row 0 of `a` (out and probs
// rows at a.out, a.probs) whose scores come from `scorer` instead of Q K^T:
// keys j < limit, no matrix mask, `parts` ranges (each at least one key).
// The Bahdanau ops' long rows.
void attend_s8_split_scored_row(const Executor& ex, const SdpaS8Params& params, const AttendS8& a,
                                int32_t limit, int32_t parts, void* slices, std::size_t slice_bytes,
                                S8RowScorer scorer, void* scorer_ctx);

// Rows of chunk c of `chunks` of an item (whole query tiles, split evenly),
// with one slice of scratch.
void attend_s8_chunk(const SdpaS8Params& params, const AttendS8Item& it, int32_t c, int32_t chunks,
                     void* slice);

// One item through `ex`: its chunks as tasks, or, for an item that
// attend_s8_key_parts splits, its rows one after another split by key range.
// scratch as for attend_s8_run.
void attend_s8_item(const Executor& ex, const SdpaS8Params& params, const AttendS8Item& it,
                    int32_t chunks, void* scratch);

// Runs items [0, n_items) through `ex` (item(i) returns item i's view, all
// with these seq_q, seq_kv and dim_v; concurrent items write disjoint
// outputs; every item packed or none). scratch: 64-byte aligned, ex.workers
// slices of sdpa_s8_core_bytes(seq_kv, params.shape.dim_k, dim_v, packed).
// Query split: each item's rows in C = min(ceil(workers / n_items),
// ceil(seq_q / kSdpaS8QueryTile)) chunks of whole query tiles, fewer when a
// chunk would be less work than kParallelMinTaskWork (attn/parallel.h; an int8
// multiply-add counts a quarter); tasks are runs of consecutive (item, chunk)
// units, grouped the same way. A row's int8 result never depends on the
// other rows, so every worker count gives the serial bits. Chunks, not
// single tiles: the tiled core packs K and V once per call, so a task packs
// once for many tiles. When that leaves workers idle (n_items * C <
// workers), items go one after another through attend_s8_item, which splits
// items of at most kSdpaS8KeySplitMaxQueries rows (decode) by key range, row
// by row (attend_s8_key_split_row): exact too.
// Built with ATTN_PARALLEL 0: attend_s8 per item, here.
template <class ItemFn>
void attend_s8_run(const Executor& ex, const SdpaS8Params& params, int32_t n_items, int32_t seq_q,
                   int32_t seq_kv, int32_t dim_v, const ItemFn& item, void* scratch) {
#if !ATTN_PARALLEL
  (void)ex;
  (void)seq_q;
  (void)seq_kv;
  (void)dim_v;
  for (int32_t i = 0; i < n_items; ++i) {
    const AttendS8Item it = item(i);
    attend_s8_rows(params, it.a, it.mask, 0, it.a.seq_q, scratch, packed_of(it));
  }
#else
  if (n_items <= 0) return;
  const int32_t units = (seq_q + kSdpaS8QueryTile - 1) / kSdpaS8QueryTile;
  const int32_t want = (ex.workers + n_items - 1) / n_items;
  const int64_t tile_work =
      static_cast<int64_t>(seq_q < kSdpaS8QueryTile ? seq_q : kSdpaS8QueryTile) * seq_kv *
      ((static_cast<int64_t>(params.shape.dim_k) + dim_v) / 4 + kSoftmaxWork);
  const int32_t chunks = split_count(units, tile_work, want);
  if (static_cast<int64_t>(n_items) * chunks < ex.workers) {
    for (int32_t i = 0; i < n_items; ++i) attend_s8_item(ex, params, item(i), chunks, scratch);
    return;
  }
  const int64_t n_units = static_cast<int64_t>(n_items) * chunks;
  const int32_t n_tasks = split_count(n_units, tile_work * units / chunks, n_units);
  const std::size_t slice =
      sdpa_s8_core_bytes(seq_kv, params.shape.dim_k, dim_v, packed_of(item(0)) != nullptr);
  auto task = [&](int32_t t, int32_t worker) {
    int64_t u = 0;
    int64_t end = 0;
    split_range(n_units, t, n_tasks, &u, &end);
    void* ws = static_cast<unsigned char*>(scratch) + static_cast<std::size_t>(worker) * slice;
    for (; u < end; ++u) {
      attend_s8_chunk(params, item(static_cast<int32_t>(u / chunks)),
                      static_cast<int32_t>(u % chunks), chunks, ws);
    }
  };
  parallel_for(ex, n_tasks, task);
#endif
}

// Keys query row i may see before the matrix masks: min(key_length, the
// causal limit i + seq_kv - seq_q + 1).
inline int32_t row_limit_s8(const AttendS8& a, const AttendMask& m, int32_t i) {
  int32_t limit = m.key_length;
  if (m.causal) {
    const int32_t c = i + a.seq_kv - a.seq_q + 1;
    if (c < limit) limit = c < 0 ? 0 : c;
  }
  return limit;
}

// The pieces of one query row (the row core and the key split):
//   keep_flags_s8  keep[j] for j in [begin, end) from the matrix masks of
//                  the row at row_offset (= i * seq_kv); returns how many are kept;
//   scores_s8      int8 scores[j] for j in [begin, end) (-128 where keep[j] is
//                  0; keep null: no matrix mask) from the packed query row and
//                  row_const = k_zp * sum (q - q_zp); dots: int32 [end - begin];
//   pv_row_s8      acc[c] = sum_j w_j v_jc over j < n, w_j = p_j + 128 (acc
//                  overwritten), returns sum_j w_j; wts, rows: [n] scratch.
int32_t keep_flags_s8(const AttendMask& m, std::size_t row_offset, int32_t begin, int32_t end,
                      uint8_t* keep);
void scores_s8(const SdpaS8Params& params, const AttendS8& a, const void* qrow_packed,
               int32_t row_const, int32_t begin, int32_t end, const uint8_t* keep, int32_t* dots,
               int8_t* scores);
int32_t pv_row_s8(const int8_t* p, int32_t n, const int8_t* v, std::size_t v_stride, int32_t dim_v,
                  int16_t* wts, const int8_t** rows, int32_t* acc);

// The second half of attend_s8 for one query row whose int8 scores[0..limit)
// are computed: softmax in place (over keep[j] != 0 when keep is not null),
// optional probs row (seq_kv codes, -128 past limit), then the output row
// from V. ws: the same sdpa_s8_row_bytes block (params.shape.dim_k sizes the
// query-row slot it skips). limit >= 1 with at least one kept key.
void softmax_pv_row_s8(const SdpaS8Params& params, int8_t* scores, int32_t limit,
                       const uint8_t* keep, const int8_t* v, std::size_t v_stride, int32_t dim_v,
                       int32_t seq_kv, int8_t* orow, int8_t* wrow, void* ws);

}  // namespace detail
}  // namespace attn
