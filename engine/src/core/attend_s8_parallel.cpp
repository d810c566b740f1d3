// The int8 core's parallel runs (see attend_s8.h): chunks of query rows per
// task, and the key split of decode rows. A key-split row runs over P key
// ranges in three parallel passes, each range in its own scratch slice, the
// row's int8 scores shared in slice 0's score row (the ranges write disjoint
// parts of it):
//   1. scores of the range (as the row core: packed query row, qk, requantize)
//      and the range's max over its kept keys;  row max = max of the maxima
//   2. the range's sum of table exps against the row max;  sum = exact int32
//      sum of the ranges' sums (<= 4095 * 2^19, as the serial row's)
//   3. the range's int8 probabilities (TFLite's reciprocal of the sum, taken
//      once), its weights row part, and the int32 P.V partial sums with their
//      sum of weights;  acc = exact int32 sum of the partials, requantized once
// Every step is an integer operation whose result does not depend on how the
// keys were grouped, so the output is the serial row's, bit for bit.
#include <cstring>

#include "attn/scratch.h"
#include "core/attend_s8.h"
#include "core/key_range.h"
#include "core/softmax_row_s8.h"
#include "kernels/s8/kernels_s8.h"

namespace attn {
namespace detail {
namespace {

// Part p's row buffers: slice p at SdpaS8RowLayout's offsets.
struct PartBuffers {
  int32_t* dots;        // int32 [seq_kv] scores before requantization (pass 1)
  int16_t* wts;         // int16 [seq_kv] weights (pass 3)
  const int8_t** rows;  // the same bytes as dots: V rows of non-zero weights (pass 3)
  void* qrow;           // the packed query row
  int32_t* acc;         // int32 [dim_v] P.V partial sums
};

// One row's split: inputs, the shared score row, and each part's results.
struct RowSplit {
  const SdpaS8Params* params;
  const AttendS8* a;
  const AttendMask* m;
  int32_t row, limit, parts;
  unsigned char* slices;
  std::size_t slice_bytes;
  int8_t* scores;                // slice 0's score row [seq_kv]
  uint8_t* keep;                 // slice 0's keep flags, or null without a matrix mask
  S8RowScorer scorer = nullptr;  // the scores of a range; null: Q K^T as the row core
  void* scorer_ctx = nullptr;
  int32_t max_in_row = -128;
  SoftmaxS8Scale scale{};
  int32_t kept[kSdpaS8MaxKeyParts] = {};
  int32_t max[kSdpaS8MaxKeyParts] = {};
  int32_t sum[kSdpaS8MaxKeyParts] = {};
  int32_t sum_w[kSdpaS8MaxKeyParts] = {};

  PartBuffers buffers(int32_t p) const {
    const SdpaS8RowLayout<RawBytes> lay(a->seq_kv, params->shape.dim_k, a->dim_v);
    unsigned char* base = slices + static_cast<std::size_t>(p) * slice_bytes;
    PartBuffers b{};
    b.dots = static_cast<int32_t*>(static_cast<void*>(base + lay.rows));
    b.wts = static_cast<int16_t*>(static_cast<void*>(base + lay.probs16));
    b.rows = static_cast<const int8_t**>(static_cast<void*>(base + lay.rows));
    b.qrow = base + lay.qrow;
    b.acc = static_cast<int32_t*>(static_cast<void*>(base + lay.acc));
    return b;
  }
  const uint8_t* keep_at(int32_t begin) const { return keep == nullptr ? nullptr : keep + begin; }
};

void scores_pass(RowSplit& r, int32_t p) {
  int32_t b = 0, e = 0;
  key_range(r.limit, p, r.parts, &b, &e);
  r.kept[p] = 0;
  r.max[p] = -128;
  if (b == e) return;
  if (r.scorer != nullptr) {
    r.scorer(r.scorer_ctx, p, b, e, r.scores);
    r.kept[p] = e - b;
    r.max[p] = softmax_s8_max(r.scores + b, e - b, nullptr);
    return;
  }
  const PartBuffers buf = r.buffers(p);
  const AttendS8& a = *r.a;
  const int32_t sum_q = qrow_s8_pack(a.q + static_cast<std::size_t>(r.row) * a.q_stride,
                                     r.params->q_zero_point, a.dim_k, buf.qrow);
  const std::size_t row_offset = static_cast<std::size_t>(r.row) *
                                 static_cast<std::size_t>(a.seq_kv);
  r.kept[p] = r.keep != nullptr ? keep_flags_s8(*r.m, row_offset, b, e, r.keep) : e - b;
  scores_s8(*r.params, a, buf.qrow, r.params->k_zero_point * sum_q, b, e, r.keep, buf.dots,
            r.scores);
  r.max[p] = softmax_s8_max(r.scores + b, e - b, r.keep_at(b));
}

void sum_pass(RowSplit& r, int32_t p) {
  int32_t b = 0, e = 0;
  key_range(r.limit, p, r.parts, &b, &e);
  r.sum[p] =
      softmax_s8_sum_exps(r.params->softmax, r.scores + b, e - b, r.keep_at(b), r.max_in_row);
}

void output_pass(RowSplit& r, int32_t p, int8_t* wrow) {
  int32_t b = 0, e = 0;
  key_range(r.limit, p, r.parts, &b, &e);
  const PartBuffers buf = r.buffers(p);
  const AttendS8& a = *r.a;
  r.sum_w[p] = 0;
  if (b == e) {
    std::memset(buf.acc, 0, static_cast<std::size_t>(a.dim_v) * sizeof(int32_t));
    return;
  }
  softmax_s8_outputs(r.params->softmax, r.scores + b, r.scores + b, e - b, r.keep_at(b),
                     r.max_in_row, r.scale);
  if (wrow != nullptr) std::memcpy(wrow + b, r.scores + b, static_cast<std::size_t>(e - b));
  r.sum_w[p] = pv_row_s8(r.scores + b, e - b, a.v + static_cast<std::size_t>(b) * a.v_stride,
                         a.v_stride, a.dim_v, buf.wts, buf.rows, buf.acc);
}

}  // namespace

void attend_s8_chunk(const SdpaS8Params& params, const AttendS8Item& it, int32_t c, int32_t chunks,
                     void* slice) {
  const int32_t units = (it.a.seq_q + kSdpaS8QueryTile - 1) / kSdpaS8QueryTile;
  // Tiles [u0, u1): units / chunks each, the first units % chunks one more
  // (32-bit arithmetic: no 64-bit division helper on Cortex-M).
  const int32_t per = units / chunks;
  const int32_t extra = units % chunks;
  const int32_t u0 = c * per + (c < extra ? c : extra);
  const int32_t u1 = u0 + per + (c < extra ? 1 : 0);
  const int32_t r1 = u1 * kSdpaS8QueryTile;
  attend_s8_rows(params, it.a, it.mask, u0 * kSdpaS8QueryTile, r1 < it.a.seq_q ? r1 : it.a.seq_q,
                 slice, packed_of(it));
}

void attend_s8_item(const Executor& ex, const SdpaS8Params& params, const AttendS8Item& it,
                    int32_t chunks, void* scratch) {
  auto* base = static_cast<unsigned char*>(scratch);
  const std::size_t slice =
      sdpa_s8_core_bytes(it.a.seq_kv, params.shape.dim_k, it.a.dim_v, packed_of(it) != nullptr);
  const int32_t parts = attend_s8_key_parts(it.a, it.mask, ex.workers);
  for (int32_t row = 0; parts > 1 && row < it.a.seq_q; ++row) {
    // A row with fewer than two blocks of visible keys is not split.
    if (row_limit_s8(it.a, it.mask, row) < 2 * kSdpaKeyBlock) {
      attend_s8_rows(params, it.a, it.mask, row, row + 1, base);
      continue;
    }
    attend_s8_key_split_row(ex, params, it.a, it.mask, row, parts, base, slice);
  }
  auto chunk_task = [&](int32_t c, int32_t worker) {
    attend_s8_chunk(params, it, c, chunks, base + static_cast<std::size_t>(worker) * slice);
  };
  if (parts == 1) parallel_for(ex, chunks, chunk_task);
}

int32_t attend_s8_key_parts(const AttendS8& a, const AttendMask& m, int32_t workers) {
  if (workers <= 1 || a.seq_q > kSdpaS8KeySplitMaxQueries) return 1;
  // Ranges of whole key blocks (the last row's limit is key_length), each at
  // least the minimum work per task in each of the three passes (int8
  // multiply-adds count a quarter): a range's work is spread over three
  // hand-offs. (At d = 64 the largest row, 4095 keys, stays on one worker:
  // split in two it measured 0.52x on a 2-core Intel Xeon VM.)
  const int64_t block_work = kSdpaKeyBlock *
                             ((static_cast<int64_t>(a.dim_k) + a.dim_v) / 4 + kSoftmaxWork) / 3;
  return split_count(m.key_length / kSdpaKeyBlock, block_work,
                     workers < kSdpaS8MaxKeyParts ? workers : kSdpaS8MaxKeyParts);
}

namespace {

// The three passes of a row split (see the top of the file) and the merges.
void run_row_split(const Executor& ex, RowSplit& r, int8_t* orow, int8_t* wrow) {
  const SdpaS8Params& params = *r.params;
  const AttendS8& a = *r.a;
  auto scores_task = [&r](int32_t p, int32_t) { scores_pass(r, p); };
  parallel_for(ex, r.parts, scores_task);
  int32_t kept = 0;
  for (int32_t p = 0; p < r.parts; ++p) {
    kept += r.kept[p];
    if (r.max[p] > r.max_in_row) r.max_in_row = r.max[p];
  }
  if (kept == 0) {
    for (int32_t c = 0; c < a.dim_v; ++c) orow[c] = static_cast<int8_t>(params.out_zero_point);
    if (wrow != nullptr) std::memset(wrow, 0x80, static_cast<std::size_t>(a.seq_kv));
    return;
  }
  auto sum_task = [&r](int32_t p, int32_t) { sum_pass(r, p); };
  parallel_for(ex, r.parts, sum_task);
  int32_t sum = 0;
  for (int32_t p = 0; p < r.parts; ++p) sum += r.sum[p];
  r.scale = softmax_s8_scale(sum);
  auto output_task = [&r, wrow](int32_t p, int32_t) { output_pass(r, p, wrow); };
  parallel_for(ex, r.parts, output_task);

  int32_t* acc = r.buffers(0).acc;
  int32_t sum_w = r.sum_w[0];
  for (int32_t p = 1; p < r.parts; ++p) {
    const int32_t* acc_p = r.buffers(p).acc;
    for (int32_t c = 0; c < a.dim_v; ++c) acc[c] += acc_p[c];
    sum_w += r.sum_w[p];
  }
  if (wrow != nullptr && r.limit < a.seq_kv) {
    std::memset(wrow + r.limit, 0x80, static_cast<std::size_t>(a.seq_kv - r.limit));
  }
  requantize_row_s8(acc, a.dim_v, params.v_zero_point * sum_w, params.out_multiplier.multiplier,
                    params.out_multiplier.shift, params.out_zero_point, orow);
}

RowSplit make_row_split(const SdpaS8Params& params, const AttendS8& a, const AttendMask& m,
                        int32_t row, int32_t limit, int32_t parts, void* slices,
                        std::size_t slice_bytes, bool matrix_mask) {
  const SdpaS8RowLayout<RawBytes> lay(a.seq_kv, params.shape.dim_k, a.dim_v);
  auto* base = static_cast<unsigned char*>(slices);
  return RowSplit{&params,
                  &a,
                  &m,
                  row,
                  limit,
                  parts,
                  base,
                  slice_bytes,
                  reinterpret_cast<int8_t*>(base + lay.scores),
                  matrix_mask ? base + lay.keep : nullptr};
}

}  // namespace

void attend_s8_key_split_row(const Executor& ex, const SdpaS8Params& params, const AttendS8& a,
                             const AttendMask& m, int32_t row, int32_t parts, void* slices,
                             std::size_t slice_bytes) {
  const int32_t limit = row_limit_s8(a, m, row);
  const int32_t row_parts = limit / kSdpaKeyBlock < parts ? limit / kSdpaKeyBlock : parts;
  const bool matrix_mask = m.keras != nullptr || m.additive != nullptr || m.boolean != nullptr;
  RowSplit r =
      make_row_split(params, a, m, row, limit, row_parts, slices, slice_bytes, matrix_mask);
  const auto urow = static_cast<std::size_t>(row);
  run_row_split(ex, r, a.out + urow * a.out_stride,
                a.probs != nullptr ? a.probs + urow * a.probs_stride : nullptr);
}

void attend_s8_split_scored_row(const Executor& ex, const SdpaS8Params& params, const AttendS8& a,
                                int32_t limit, int32_t parts, void* slices, std::size_t slice_bytes,
                                S8RowScorer scorer, void* scorer_ctx) {
  const AttendMask m{};
  RowSplit r = make_row_split(params, a, m, 0, limit, parts, slices, slice_bytes, false);
  r.scorer = scorer;
  r.scorer_ctx = scorer_ctx;
  run_row_split(ex, r, a.out, a.probs);
}

}  // namespace detail
}  // namespace attn
