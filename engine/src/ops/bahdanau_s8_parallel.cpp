// Bahdanau attention, int8, with an executor (see attn/bahdanau_s8.h).
// Integer arithmetic only. With batch >= workers the batch items are the
// tasks, each the serial item in its worker's slice; else item after item,
// an item of enough keys split by key range: its query projection once (in
// slice 0), then attend_s8_split_scored_row's three passes, the first one
// scoring each range's keys with the range's own row buffer (slice p). Every
// int8 value is the serial op's: the same bits.
#include "attn/bahdanau_s8.h"
#include "attn/config.h"
#include "core/index.h"
#include "core/split.h"
#include "ops/bahdanau_s8_item.h"
#include "ops/op_helpers.h"

// Built with ATTN_PARALLEL 0 (bare metal): empty, the ops run serially.
#if ATTN_PARALLEL

namespace attn {
namespace detail {
namespace {

// One batch item's key scoring for the split row, over its ranges' slices.
template <class MemoryRow>
struct ItemScorer {
  const BahdanauS8Params* p;
  const BahdanauS8Work* work0;  // slice 0: A's terms and the key terms
  unsigned char* slice0;
  std::size_t slice_bytes;
  MemoryRow memory_row;
  int32_t sum_v;  // sum_u v[u]

  static void score(void* ctx, int32_t part, int32_t begin, int32_t end, int8_t* scores) {
    const auto& sc = *static_cast<const ItemScorer*>(ctx);
    BahdanauS8Work w = *sc.work0;
    w.row = bahdanau_s8_work(sc.p->shape, sc.slice0 + idx(part) * sc.slice_bytes).row;
    for (int32_t j = begin; j < end; ++j) {
      bahdanau_s8_score(*sc.p, w, sc.memory_row(j, w.row), sc.sum_v, scores + j);
    }
  }
};

struct Batch {
  const BahdanauS8Params& p;
  const BahdanauS8Args& args;
  const int8_t* memory;
  unsigned char* base;
  std::size_t slice_bytes;
  int32_t* key_term;  // slice 0's table, read by every worker

  BahdanauS8Work work(int32_t w) const {
    BahdanauS8Work k = bahdanau_s8_work(p.shape, base + idx(w) * slice_bytes);
    k.key_term = key_term;
    return k;
  }
  const int8_t* keys(int32_t b) const {
    return args.keys + idx(b) * idx(p.shape.seq) * idx(p.shape.key_dim);
  }
  int32_t len(int32_t b) const { return item_length(args.key_lengths, b, p.shape.seq); }
  int8_t* wrow(int32_t b) const { return item_row(args.probs, b, p.shape.seq); }
  void item(int32_t b, int32_t worker) const {
    const BahdanauS8Work w = work(worker);
    const QueryItem<int8_t> it =
        query_item(args, b, p.shape.seq, p.shape.query_dim, p.shape.key_dim);
    bahdanau_with_memory_s8(p, args, memory, b, [&](auto row) {
      bahdanau_item_s8(p, w, it.query, it.keys, it.len, it.context, it.wrow, row);
    });
  }
  void split(const Executor& ex, int32_t b, int32_t parts) const {
    const BahdanauS8Work w0 = work(0);
    const int32_t sum_v = bahdanau_query_s8(p, w0, args.query + idx(b) * idx(p.shape.query_dim));
    AttendS8 a;
    a.v = keys(b);
    a.v_stride = idx(p.shape.key_dim);
    a.out = args.context + idx(b) * idx(p.shape.key_dim);
    a.probs = wrow(b);
    a.probs_stride = idx(p.shape.seq);
    a.seq_q = 1;
    a.seq_kv = p.shape.seq;
    a.dim_k = 1;
    a.dim_v = p.shape.key_dim;
    bahdanau_with_memory_s8(p, args, memory, b, [&](auto row) {
      ItemScorer<decltype(row)> sc{&p, &w0, base, slice_bytes, row, sum_v};
      attend_s8_split_scored_row(ex, p.attend, a, len(b), parts, w0.core, slice_bytes,
                                 &ItemScorer<decltype(row)>::score, &sc);
    });
  }
};

}  // namespace

void bahdanau_s8_parallel(const Executor& ex, const BahdanauS8Params& params,
                          const BahdanauS8Args& args, const int8_t* memory, void* scratch) {
  const BahdanauShape& s = params.shape;
  auto* base = static_cast<unsigned char*>(scratch);
  const Batch batch{params,
                    args,
                    memory,
                    base,
                    bahdanau_s8_scratch_bytes(s) - kAlign,
                    bahdanau_s8_work(s, base).key_term};
  bahdanau_s8_key_terms(params, bahdanau_s8_work(s, base).key_term);
  // Per key (int8 multiply-adds count a quarter): the one-shot op's B_j, the
  // ADD / TANH / v layer over the units, the context's multiply-adds.
  const int64_t key_work = ((memory == nullptr ? static_cast<int64_t>(s.key_dim) * s.units : 0) +
                            3 * s.units + s.key_dim) /
                               4 +
                           kSoftmaxWork;
  if (s.batch >= ex.workers) {
    const int32_t n = split_count(s.batch, s.seq * key_work, s.batch);
    auto items = [&](int32_t t, int32_t worker) {
      int64_t b = 0;
      int64_t end = 0;
      split_range(s.batch, t, n, &b, &end);
      for (; b < end; ++b) batch.item(static_cast<int32_t>(b), worker);
    };
    parallel_for(ex, n, items);
    return;
  }
  const int32_t max_parts = ex.workers < kSdpaS8MaxKeyParts ? ex.workers : kSdpaS8MaxKeyParts;
  for (int32_t b = 0; b < s.batch; ++b) {
    const int32_t len = batch.len(b);
    const int32_t parts = split_count(len / kSdpaKeyBlock, kSdpaKeyBlock * key_work, max_parts);
    if (parts < 2) {
      batch.item(b, 0);
    } else {
      batch.split(ex, b, parts);
    }
  }
}

}  // namespace detail
}  // namespace attn
#endif  // ATTN_PARALLEL
