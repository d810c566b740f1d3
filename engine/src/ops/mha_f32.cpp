// Multi-head attention, float32 (see attn/mha.h).
#include "attn/mha.h"

#include "attn/config.h"
#include "core/attend_f32.h"
#include "core/index.h"
#include "core/split.h"
#include "kernels/f32/kernels_f32.h"
#include "ops/op_helpers.h"

namespace attn {
namespace {

using detail::gemm_row_blocks;
using detail::idx;
using detail::split_count;
using detail::split_range;

// The three input projections of one head: weight rows [h*hd, (h+1)*hd) of
// Wq/Wk/Wv and the matching slices of the packed bias.
struct HeadProjection {
  const float* wq;
  const float* wk;
  const float* wv;
  const float* bq;
  const float* bk;
  const float* bv;
};

HeadProjection head_projection(const MhaF32Weights& w, int32_t e, int32_t kdim, int32_t vdim,
                               int32_t hd, int32_t h) {
  const std::size_t row0 = idx(h) * idx(hd);
  HeadProjection p{};
  if (w.in_proj_weight != nullptr) {
    p.wq = w.in_proj_weight + row0 * idx(e);
    p.wk = w.in_proj_weight + (idx(e) + row0) * idx(e);
    p.wv = w.in_proj_weight + (2 * idx(e) + row0) * idx(e);
  } else {
    p.wq = w.q_proj_weight + row0 * idx(e);
    p.wk = w.k_proj_weight + row0 * idx(kdim);
    p.wv = w.v_proj_weight + row0 * idx(vdim);
  }
  if (w.in_proj_bias != nullptr) {
    p.bq = w.in_proj_bias + row0;
    p.bk = w.in_proj_bias + idx(e) + row0;
    p.bv = w.in_proj_bias + 2 * idx(e) + row0;
  } else {
    p.bq = p.bk = p.bv = nullptr;
  }
  return p;
}

// Head h of batch item b for the core: its projected Q, K, V (rows of hd)
// at q, k, v, its output O_h at o, its weights (per head, or averaged: head 0
// writes, the others add). Inlined into the serial loop (its frame as the
// Cortex-M stack budgets record).
__attribute__((always_inline)) inline void head_view(const MhaShape& shape, const MhaF32Args& args,
                                                     int32_t b, int32_t h, int32_t hd, float scale,
                                                     const float* q, const float* k, const float* v,
                                                     float* o, detail::AttendF32* a) {
  const std::size_t sq = idx(shape.seq_q);
  const std::size_t skv = idx(shape.seq_kv);
  a->q = q;
  a->q_stride = idx(hd);
  a->k = k;
  a->k_stride = idx(hd);
  a->v = v;
  a->v_stride = idx(hd);
  a->out = o;
  a->out_stride = idx(hd);
  if (args.probs != nullptr) {
    if (args.probs_mode == MhaProbsMode::kPerHead) {
      a->probs = args.probs + (idx(b) * idx(shape.num_heads) + idx(h)) * sq * skv;
    } else {
      a->probs = args.probs + idx(b) * sq * skv;
      a->accumulate_probs = h > 0;
      a->probs_alpha = 1.0f / static_cast<float>(shape.num_heads);
    }
  }
  a->seq_q = shape.seq_q;
  a->seq_kv = shape.seq_kv;
  a->dim_k = hd;
  a->dim_v = hd;
  a->scale = scale;
}

#if ATTN_PARALLEL
// With an executor of more than one worker (see attn/mha.h), batch item after
// batch item in three parallel phases over scratch holding every head:
// Q, O [H][seq_q][hd] and K, V [H][seq_kv][hd], then the workers' core
// slices. Every GEMM is the serial op's call on a block of its rows (at least
// 4 rows, or single rows: the same bits, see core/split.h).
struct MhaParallel {
  const MhaShape& shape;
  const MhaF32Weights& weights;
  const MhaF32Args& args;
  int32_t e, kdim, vdim, hd;
  float* q;
  float* o;
  float* k;
  float* v;
  void* cores;

  // The input projections of item b: tasks over (matrix, head, row block).
  void project(int32_t b) const {
    const Executor& ex = args.executor;
    const int32_t heads = shape.num_heads;
    const int64_t per_head = (4 * static_cast<int64_t>(ex.workers) + 3 * heads - 1) / (3 * heads);
    const int32_t nb[3] = {gemm_row_blocks(shape.seq_kv, static_cast<int64_t>(kdim) * hd, per_head),
                           gemm_row_blocks(shape.seq_kv, static_cast<int64_t>(vdim) * hd, per_head),
                           gemm_row_blocks(shape.seq_q, static_cast<int64_t>(e) * hd, per_head)};
    const int32_t rows[3] = {shape.seq_kv, shape.seq_kv, shape.seq_q};
    const int32_t in[3] = {kdim, vdim, e};
    const float* x[3] = {args.key + idx(b) * idx(shape.seq_kv) * idx(kdim),
                         args.value + idx(b) * idx(shape.seq_kv) * idx(vdim),
                         args.query + idx(b) * idx(shape.seq_q) * idx(e)};
    float* dst[3] = {k, v, q};
    const int32_t units = heads * (nb[0] + nb[1] + nb[2]);
    const int64_t work = (2 * static_cast<int64_t>(shape.seq_kv) + shape.seq_q) * e * hd;
    const int32_t n = split_count(units, work / units, units);
    auto task = [&](int32_t t, int32_t) {
      int64_t u = 0;
      int64_t end = 0;
      split_range(units, t, n, &u, &end);
      for (; u < end; ++u) {  // unit u: matrix m, head h, block r
        int32_t r = static_cast<int32_t>(u / heads);
        const int32_t h = static_cast<int32_t>(u % heads);
        int32_t m = 0;  // K's blocks, then V's, then Q's
        for (; m < 2 && r >= nb[m]; ++m) r -= nb[m];
        int64_t r0 = 0;
        int64_t r1 = 0;
        split_range(rows[m], r, nb[m], &r0, &r1);
        const HeadProjection p = head_projection(weights, e, kdim, vdim, hd, h);
        const float* w[3] = {p.wk, p.wv, p.wq};
        const float* bias[3] = {p.bk, p.bv, p.bq};
        kernels::linear_f32(
            x[m] + static_cast<std::size_t>(r0) * idx(in[m]), static_cast<int32_t>(r1 - r0), in[m],
            w[m], bias[m], hd,
            dst[m] + (idx(h) * idx(rows[m]) + static_cast<std::size_t>(r0)) * idx(hd));
      }
    };
    parallel_for(ex, n, task);
  }

  detail::AttendF32Item head(int32_t b, int32_t h) const {
    const std::size_t sq = idx(shape.seq_q);
    const std::size_t skv = idx(shape.seq_kv);
    const std::size_t at = idx(h) * idx(hd);
    detail::AttendF32Item it;
    head_view(shape, args, b, h, hd, 1.0f / std::sqrt(static_cast<float>(hd)), q + at * sq,
              k + at * skv, v + at * skv, o + at * sq, &it.a);
    it.mask = detail::batch_mask(args.mask, b, shape.seq_kv);
    return it;
  }

  // Whole heads as tasks: the worker that projects head h's Q, K and V also
  // attends head h, so they are read from its own cache, not from the core
  // that wrote them (the three-phase split's cost: its query transposes took
  // 1.8x and its GEMMs 1.1x their serial time on 2 workers). Used when the
  // heads share out evenly over the workers and no averaged weights make the
  // heads add to one matrix.
  bool whole_heads() const {
    const int32_t w = args.executor.workers;
    const bool averaged = args.probs != nullptr && args.probs_mode == MhaProbsMode::kAveraged;
    return !averaged && shape.num_heads >= w &&
           (shape.num_heads % w == 0 || shape.num_heads >= 4 * w);
  }

  // Item b's heads, each projected and attended by one task: the serial op's
  // calls on whole heads, so the same bits.
  void project_attend(int32_t b) const {
    const std::size_t slice = detail::attend_f32_slice_bytes(hd, hd);
    const int32_t tiles = detail::attend_f32_tile_count(shape.seq_q);
    const std::size_t sq = idx(shape.seq_q);
    const std::size_t skv = idx(shape.seq_kv);
    auto task = [&](int32_t h, int32_t worker) {
      const HeadProjection p = head_projection(weights, e, kdim, vdim, hd, h);
      const std::size_t at = idx(h) * idx(hd);
      kernels::linear_f32(args.query + idx(b) * sq * idx(e), shape.seq_q, e, p.wq, p.bq, hd,
                          q + at * sq);
      kernels::linear_f32(args.key + idx(b) * skv * idx(kdim), shape.seq_kv, kdim, p.wk, p.bk, hd,
                          k + at * skv);
      kernels::linear_f32(args.value + idx(b) * skv * idx(vdim), shape.seq_kv, vdim, p.wv, p.bv, hd,
                          v + at * skv);
      const detail::AttendF32Item it = head(b, h);
      detail::attend_f32_tiles(it.a, it.mask, 0, tiles,
                               static_cast<unsigned char*>(cores) + idx(worker) * slice);
    };
    parallel_for(args.executor, shape.num_heads, task);
  }

  // The heads of item b: (head, query tile) tasks; averaged weights, which
  // every head adds to, in tasks of query tiles running the heads in order.
  void attend(int32_t b) const {
    const Executor& ex = args.executor;
    const int32_t heads = shape.num_heads;
    auto item = [&](int32_t h) { return head(b, h); };
    if (args.probs == nullptr || args.probs_mode == MhaProbsMode::kPerHead) {
      detail::attend_f32_run(ex, heads, shape.seq_q, hd, hd, item, cores);
      return;
    }
    const int32_t tiles = detail::attend_f32_tile_count(shape.seq_q);
    const int64_t tile_work = detail::attend_f32_tile_work(shape.seq_q, shape.seq_kv, hd, hd);
    const int32_t n = split_count(tiles, tile_work * heads, tiles);
    if (n < 2) {
      for (int32_t h = 0; h < heads; ++h) detail::attend_f32_item(ex, head(b, h), cores);
      return;
    }
    const std::size_t slice = detail::attend_f32_slice_bytes(hd, hd);
    auto task = [&](int32_t t, int32_t worker) {
      int64_t t0 = 0;
      int64_t t1 = 0;
      split_range(tiles, t, n, &t0, &t1);
      for (int32_t h = 0; h < heads; ++h) {
        const detail::AttendF32Item it = head(b, h);
        detail::attend_f32_tiles(it.a, it.mask, static_cast<int32_t>(t0), static_cast<int32_t>(t1),
                                 static_cast<unsigned char*>(cores) + idx(worker) * slice);
      }
    };
    parallel_for(ex, n, task);
  }

  // out columns of item b in blocks of 16: out[:, c0:c1] = bias[c0:c1] +
  // sum_h O_h Wo[c0:c1, h hd:(h+1) hd]^T, head by head, every row in each
  // call (row blocks would pack each head's Wo slice once per block; a
  // column block packs its own slice once). gemm_nt_f32 gives each output
  // the same bits whatever range of b's rows a call covers.
  void out_proj(int32_t b) const {
    const std::size_t sq = idx(shape.seq_q);
    float* out = args.out + idx(b) * sq * idx(e);
    const int32_t groups = (e + 15) / 16;
    const int32_t n = split_count(groups, static_cast<int64_t>(shape.seq_q) * 16 * e,
                                  4 * static_cast<int64_t>(args.executor.workers));
    auto task = [&](int32_t t, int32_t) {
      int64_t g0 = 0;
      int64_t g1 = 0;
      split_range(groups, t, n, &g0, &g1);
      const auto c0 = static_cast<int32_t>(16 * g0);
      const int32_t c1 = 16 * g1 < e ? static_cast<int32_t>(16 * g1) : e;
      const float* bias = weights.out_proj_bias;
      for (int32_t h = 0; h < shape.num_heads; ++h) {
        kernels::gemm_nt_f32(o + idx(h) * sq * idx(hd), idx(hd), shape.seq_q, hd,
                             weights.out_proj_weight + idx(c0) * idx(e) + idx(h) * idx(hd), idx(e),
                             c1 - c0, h == 0 && bias != nullptr ? bias + c0 : nullptr, h > 0,
                             out + idx(c0), idx(e));
      }
    };
    parallel_for(args.executor, n, task);
  }
};

void mha_parallel(const MhaShape& shape, const MhaF32Weights& weights, const MhaF32Args& args,
                  int32_t kdim, int32_t vdim, void* ws) {
  const int32_t e = shape.embed_dim;
  const std::size_t q_bytes = f32_bytes(idx(shape.seq_q) * idx(e));
  const std::size_t kv_bytes = f32_bytes(idx(shape.seq_kv) * idx(e));
  auto* base = static_cast<unsigned char*>(ws);
  const auto at = [base](std::size_t offset) {
    return static_cast<float*>(static_cast<void*>(base + offset));
  };
  const MhaParallel par{shape,
                        weights,
                        args,
                        e,
                        kdim,
                        vdim,
                        e / shape.num_heads,
                        at(0),
                        at(q_bytes),
                        at(2 * q_bytes),
                        at(2 * q_bytes + kv_bytes),
                        base + 2 * q_bytes + 2 * kv_bytes};
  const bool whole_heads = par.whole_heads();
  for (int32_t b = 0; b < shape.batch; ++b) {
    if (whole_heads) {
      par.project_attend(b);
    } else {
      par.project(b);
      par.attend(b);
    }
    par.out_proj(b);
  }
}
#endif

// Every check of mha_f32 but the scratch's, in the order of the statuses.
Status check_args(const MhaShape& shape, const MhaF32Weights& weights, const MhaF32Args& args,
                  int32_t kdim, int32_t vdim) {
  const bool packed = weights.in_proj_weight != nullptr;
  const bool separate = weights.q_proj_weight != nullptr && weights.k_proj_weight != nullptr &&
                        weights.v_proj_weight != nullptr;
  if (args.query == nullptr || args.key == nullptr || args.value == nullptr ||
      args.out == nullptr || weights.out_proj_weight == nullptr || !(packed || separate)) {
    return Status::kNullPointer;
  }
  const int32_t e = shape.embed_dim;
  if (!detail::dims_ok({shape.batch, shape.seq_q, shape.seq_kv, e, shape.num_heads, kdim, vdim})) {
    return Status::kBadShape;
  }
  if (e % shape.num_heads != 0 || (packed && (kdim != e || vdim != e))) {
    return Status::kShapeMismatch;
  }
  if (args.probs_mode != MhaProbsMode::kAveraged && args.probs_mode != MhaProbsMode::kPerHead) {
    return Status::kBadArgument;
  }
  const Status mask_status = detail::check_mask(args.mask, shape.batch, shape.seq_kv);
  if (mask_status != Status::kOk) return mask_status;
  return executor_valid(args.executor) ? Status::kOk : Status::kBadArgument;
}

}  // namespace

Status mha_f32(const MhaShape& shape, const MhaF32Weights& weights, const MhaF32Args& args,
               Scratch scratch) {
  const int32_t e = shape.embed_dim;
  const int32_t kdim = shape.kdim == 0 ? e : shape.kdim;
  const int32_t vdim = shape.vdim == 0 ? e : shape.vdim;
  const Status st = check_args(shape, weights, args, kdim, vdim);
  if (st != Status::kOk) return st;
  const std::size_t needed = mha_f32_scratch_bytes(shape, args.executor.workers);
  if (scratch.data == nullptr || scratch.bytes < needed) return Status::kScratchTooSmall;

  const int32_t hd = e / shape.num_heads;
  const std::size_t sq = idx(shape.seq_q);
  const std::size_t skv = idx(shape.seq_kv);
  void* ws = detail::aligned_scratch(scratch.data, scratch.bytes, needed);
#if ATTN_PARALLEL
  if (args.executor.workers > 1) {
    mha_parallel(shape, weights, args, kdim, vdim, ws);
    return Status::kOk;
  }
#endif
  auto* base = static_cast<unsigned char*>(ws);
  auto* qh = static_cast<float*>(static_cast<void*>(base));
  base += f32_bytes(sq * idx(hd));
  auto* oh = static_cast<float*>(static_cast<void*>(base));
  base += f32_bytes(sq * idx(hd));
  auto* kh = static_cast<float*>(static_cast<void*>(base));
  base += f32_bytes(skv * idx(hd));
  auto* vh = static_cast<float*>(static_cast<void*>(base));
  base += f32_bytes(skv * idx(hd));
  void* core = base;

  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  const float* wo = weights.out_proj_weight;
  for (int32_t b = 0; b < shape.batch; ++b) {
    const float* query = args.query + idx(b) * sq * idx(e);
    const float* key = args.key + idx(b) * skv * idx(kdim);
    const float* value = args.value + idx(b) * skv * idx(vdim);
    float* out = args.out + idx(b) * sq * idx(e);
    const detail::AttendMask mask = detail::batch_mask(args.mask, b, shape.seq_kv);
    for (int32_t h = 0; h < shape.num_heads; ++h) {
      const HeadProjection p = head_projection(weights, e, kdim, vdim, hd, h);
      kernels::linear_f32(query, shape.seq_q, e, p.wq, p.bq, hd, qh);
      kernels::linear_f32(key, shape.seq_kv, kdim, p.wk, p.bk, hd, kh);
      kernels::linear_f32(value, shape.seq_kv, vdim, p.wv, p.bv, hd, vh);

      detail::AttendF32 a;
      head_view(shape, args, b, h, hd, scale, qh, kh, vh, oh, &a);
      detail::attend_f32(a, mask, core);

      // out = out_proj_bias + O_0 Wo[:, 0:hd]^T, then out += O_h Wo[:, h*hd:(h+1)*hd]^T
      kernels::gemm_nt_f32(oh, idx(hd), shape.seq_q, hd, wo + idx(h) * idx(hd), idx(e), e,
                           h == 0 ? weights.out_proj_bias : nullptr, h > 0, out, idx(e));
    }
  }
  return Status::kOk;
}

}  // namespace attn
