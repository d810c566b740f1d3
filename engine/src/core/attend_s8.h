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

namespace attn {
namespace detail {

struct AttendS8 {
  const int8_t* q = nullptr;
  std::size_t q_stride = 0;  // elements between consecutive rows
  const int8_t* k = nullptr;
  std::size_t k_stride = 0;
  const int8_t* v = nullptr;
  std::size_t v_stride = 0;
  int8_t* out = nullptr;
  std::size_t out_stride = 0;
  int8_t* weights = nullptr;  // optional [seq_q, seq_kv] rows of weights_stride
  std::size_t weights_stride = 0;
  int32_t seq_q = 0, seq_kv = 0, dim_k = 0, dim_v = 0;
};

// kUnsupported if an additive mask entry is neither 0 nor <= -1e9 (checked
// over every batch item the mask covers), else kOk.
Status check_additive_s8(const Mask& mask, int32_t batch, int32_t seq_q, int32_t seq_kv);

// Runs attention for query rows [row_begin, row_end) of one item (attend_s8:
// all rows) with prepared params (shape fields of params are not read but
// dim_k, which sizes the row buffers; a's sizes are used). ws: sdpa_s8_core_bytes(seq_kv, dim_k,
// dim_v) bytes, 64-byte aligned: the one-row buffers, then (query tile > 1)
// the tiled core's. Without a matrix mask and from 4 query rows on, x86
// builds whose tile kernels are fast (tile_s8_fast) take the tiled core; the
// results are the same bits either way.
void attend_s8_rows(const SdpaS8Params& params, const AttendS8& a, const AttendMask& m,
                    int32_t row_begin, int32_t row_end, void* ws);
inline void attend_s8(const SdpaS8Params& params, const AttendS8& a, const AttendMask& m,
                      void* ws) {
  attend_s8_rows(params, a, m, 0, a.seq_q, ws);
}

// One item of a parallel run: a batch item, a head, or both.
struct AttendS8Item {
  AttendS8 a;
  AttendMask mask;
};

// The key split (attend_s8_keys.cpp): items of at most this many query rows
// are split by key range when the query split leaves workers idle, in at most
// kSdpaS8MaxKeyParts ranges of at least kSdpaKeyBlock keys each.
inline constexpr int32_t kSdpaS8KeySplitMaxQueries = 4;
inline constexpr int32_t kSdpaS8MaxKeyParts = 16;

// The number of key ranges for an item (1: no key split).
int32_t attend_s8_key_parts(const AttendS8& a, const AttendMask& m, int32_t workers);

// Query row `row` of an item split into at most `parts` key ranges through
// `ex`: three parallel passes (scores and range maxima; exp sums; weights and
// int32 P.V partial sums), merged between them by integer max and sums, so
// the result is the serial row's bit for bit. Range p works in slice p of
// `slices` (slice_bytes apart); a row with fewer than 2 * kSdpaKeyBlock
// visible keys runs serially in slice 0.
void attend_s8_key_split_row(const Executor& ex, const SdpaS8Params& params, const AttendS8& a,
                             const AttendMask& m, int32_t row, int32_t parts, void* slices,
                             std::size_t slice_bytes);

// Runs items [0, n_items) through `ex` (item(i) returns item i's view, all
// with the same sizes; concurrent items write disjoint outputs). scratch:
// 64-byte aligned, ex.workers slices of sdpa_s8_core_bytes(seq_kv,
// params.shape.dim_k, dim_v). Query split: each item's rows in
// C = min(ceil(workers / n_items), ceil(seq_q / kSdpaS8QueryTile)) chunks of
// whole query tiles, one task per (item, chunk); a row's int8 result never
// depends on the other rows, so every worker count gives the serial bits.
// Chunks, not single tiles: the tiled core packs K and V once per call, so a
// task packs once for many tiles. When that leaves workers idle (n_items *
// C < workers), items of at most kSdpaS8KeySplitMaxQueries rows (decode) are
// split by key range instead, row by row (attend_s8_key_split_row): exact too.
template <class ItemFn>
void attend_s8_run(const Executor& ex, const SdpaS8Params& params, int32_t n_items,
                   const ItemFn& item, void* scratch) {
  auto* base = static_cast<unsigned char*>(scratch);
  const AttendS8Item first = item(0);
  const std::size_t slice = sdpa_s8_core_bytes(first.a.seq_kv, params.shape.dim_k, first.a.dim_v);
  const int32_t units = (first.a.seq_q + kSdpaS8QueryTile - 1) / kSdpaS8QueryTile;
  const int32_t want = (ex.workers + n_items - 1) / n_items;
  const int32_t chunks = want < units ? want : units;
  // Rows of chunk c of an item, in worker's slice.
  const auto run_chunk = [&](const AttendS8Item& it, int32_t c, int32_t worker) {
    const auto u0 = static_cast<int32_t>(static_cast<int64_t>(c) * units / chunks);
    const auto u1 = static_cast<int32_t>(static_cast<int64_t>(c + 1) * units / chunks);
    const int32_t r1 = u1 * kSdpaS8QueryTile;
    attend_s8_rows(params, it.a, it.mask, u0 * kSdpaS8QueryTile, r1 < it.a.seq_q ? r1 : it.a.seq_q,
                   base + static_cast<std::size_t>(worker) * slice);
  };
  if (static_cast<int64_t>(n_items) * chunks < ex.workers) {
    for (int32_t i = 0; i < n_items; ++i) {
      const AttendS8Item it = item(i);
      const int32_t parts = attend_s8_key_parts(it.a, it.mask, ex.workers);
      for (int32_t row = 0; parts > 1 && row < it.a.seq_q; ++row) {
        attend_s8_key_split_row(ex, params, it.a, it.mask, row, parts, base, slice);
      }
      auto item_task = [&](int32_t c, int32_t worker) { run_chunk(it, c, worker); };
      if (parts == 1) parallel_for(ex, chunks, item_task);
    }
    return;
  }
  auto task = [&](int32_t t, int32_t worker) { run_chunk(item(t / chunks), t % chunks, worker); };
  parallel_for(ex, n_items * chunks, task);
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
int32_t pv_row_s8(const int8_t* p, int32_t n, const int8_t* v, std::size_t v_stride,
                  int32_t dim_v, int16_t* wts, const int8_t** rows, int32_t* acc);

// The second half of attend_s8 for one query row whose int8 scores[0..limit)
// are computed: softmax in place (over keep[j] != 0 when keep is not null),
// optional weights row (seq_kv codes, -128 past limit), then the output row
// from V. ws: the same sdpa_s8_row_bytes block (params.shape.dim_k sizes the
// query-row slot it skips). limit >= 1 with at least one kept key.
void softmax_pv_row_s8(const SdpaS8Params& params, int8_t* scores, int32_t limit,
                       const uint8_t* keep, const int8_t* v, std::size_t v_stride, int32_t dim_v,
                       int32_t seq_kv, int8_t* orow, int8_t* wrow, void* ws);

}  // namespace detail
}  // namespace attn
