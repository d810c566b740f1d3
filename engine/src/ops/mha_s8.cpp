// Multi-head attention, int8: eval (see attn/mha_s8.h). Integer arithmetic
// only (tests/int8 checks its Cortex-M soft-float objects).
#include "attn/mha_s8.h"

#include "attn/config.h"

#include "core/attend_s8.h"
#include "core/split.h"
#include "ops/fc_s8.h"
#include "ops/op_helpers.h"

namespace attn {
namespace {

// Head h of batch item b: columns h * hd of the projected Q, K, V and of O
// (rows of E), its weights. Inlined into the serial loop (its frame as the
// Cortex-M stack budgets record).
__attribute__((always_inline)) inline void head_view(const MhaS8Params& params,
                                                     const MhaS8Args& args, const int8_t* qp,
                                                     const int8_t* kp, const int8_t* vp, int8_t* op,
                                                     int32_t b, int32_t h, detail::AttendS8* a) {
  const MhaShape& s = params.shape;
  const auto e = static_cast<std::size_t>(s.embed_dim);
  const int32_t hd = s.embed_dim / s.num_heads;
  const auto col = static_cast<std::size_t>(h) * static_cast<std::size_t>(hd);
  a->q = qp + col;
  a->q_stride = e;
  a->k = kp + col;
  a->k_stride = e;
  a->v = vp + col;
  a->v_stride = e;
  a->out = op + col;
  a->out_stride = e;
  if (args.probs != nullptr) {
    const auto skv = static_cast<std::size_t>(s.seq_kv);
    a->probs = args.probs + (static_cast<std::size_t>(b) * static_cast<std::size_t>(s.num_heads) +
                             static_cast<std::size_t>(h)) *
                                static_cast<std::size_t>(s.seq_q) * skv;
    a->probs_stride = skv;
  }
  a->seq_q = s.seq_q;
  a->seq_kv = s.seq_kv;
  a->dim_k = hd;
  a->dim_v = hd;
}

#if ATTN_PARALLEL
// With an executor of more than one worker: item after item, the three input
// projections in blocks of rows, the heads through attend_s8_run (head x
// query chunk tasks, or a decode row's key split), the output projection in
// blocks of rows. Every int8 row is computed as in the serial op.
void mha_s8_parallel(const MhaS8Params& params, const MhaS8Args& args, int8_t* qp, int8_t* kp,
                     int8_t* vp, int8_t* op, void* cores) {
  const MhaShape& s = params.shape;
  const Executor& ex = args.executor;
  const auto e = static_cast<std::size_t>(s.embed_dim);
  const auto sq = static_cast<std::size_t>(s.seq_q);
  const auto skv = static_cast<std::size_t>(s.seq_kv);
  const int32_t hd = s.embed_dim / s.num_heads;
  const int32_t rows[3] = {s.seq_kv, s.seq_kv, s.seq_q};
  const int64_t row_work = static_cast<int64_t>(s.embed_dim) * s.embed_dim / 4;
  for (int32_t b = 0; b < s.batch; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    const FcS8Layer* layers[3] = {&params.k, &params.v, &params.q};
    const int8_t* x[3] = {args.key + ub * skv * static_cast<std::size_t>(s.kdim),
                          args.value + ub * skv * static_cast<std::size_t>(s.vdim),
                          args.query + ub * sq * e};
    const std::size_t in[3] = {static_cast<std::size_t>(s.kdim), static_cast<std::size_t>(s.vdim),
                               e};
    int8_t* y[3] = {kp, vp, qp};
    auto project = [&](int32_t m, int32_t r0, int32_t r1) {
      const auto r = static_cast<std::size_t>(r0);
      detail::fc_s8(*layers[m], x[m] + r * in[m], in[m], r1 - r0, y[m] + r * e, e);
    };
    detail::parallel_matrix_rows(ex, rows, row_work, project);
    auto item = [&](int32_t h) {
      detail::AttendS8Item it;
      head_view(params, args, qp, kp, vp, op, b, h, &it.a);
      it.mask = detail::batch_mask(args.mask, b, s.seq_kv);
      return it;
    };
    detail::attend_s8_run(ex, params.attend, s.num_heads, s.seq_q, s.seq_kv, hd, item, cores);
    int8_t* out = args.out + ub * sq * e;
    auto out_rows = [&](int32_t, int32_t r0, int32_t r1) {
      const auto r = static_cast<std::size_t>(r0);
      detail::fc_s8(params.out, op + r * e, e, r1 - r0, out + r * e, e);
    };
    detail::parallel_rows(ex, 1, s.seq_q, row_work, out_rows);
  }
}
#endif

}  // namespace

Status mha_s8(const MhaS8Params& params, const MhaS8Args& args, Scratch scratch) {
  const MhaShape& s = params.shape;
  if (args.query == nullptr || args.key == nullptr || args.value == nullptr ||
      args.out == nullptr) {
    return Status::kNullPointer;
  }
  Status st = detail::check_mask(args.mask, s.batch, s.seq_kv);
  if (st != Status::kOk) return st;
  st = detail::check_additive_s8(args.mask, s.batch, s.seq_q, s.seq_kv);
  if (st != Status::kOk) return st;
  if (!executor_valid(args.executor)) return Status::kBadArgument;
  void* ws = detail::aligned_scratch(scratch.data, scratch.bytes,
                                     mha_s8_scratch_bytes(s, args.executor.workers));
  if (ws == nullptr) return Status::kScratchTooSmall;

  const auto e = static_cast<std::size_t>(s.embed_dim);
  const auto sq = static_cast<std::size_t>(s.seq_q);
  const auto skv = static_cast<std::size_t>(s.seq_kv);
  const auto kd = static_cast<std::size_t>(s.kdim);
  const auto vd = static_cast<std::size_t>(s.vdim);
  auto* qp = static_cast<int8_t*>(ws);
  int8_t* kp = qp + align_up(sq * e);
  int8_t* vp = kp + align_up(skv * e);
  int8_t* op = vp + align_up(skv * e);
  void* core_ws = op + align_up(sq * e);
#if ATTN_PARALLEL
  if (args.executor.workers > 1) {
    mha_s8_parallel(params, args, qp, kp, vp, op, core_ws);
    return Status::kOk;
  }
#endif

  for (int32_t b = 0; b < s.batch; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    detail::fc_s8(params.q, args.query + ub * sq * e, e, s.seq_q, qp, e);
    detail::fc_s8(params.k, args.key + ub * skv * kd, kd, s.seq_kv, kp, e);
    detail::fc_s8(params.v, args.value + ub * skv * vd, vd, s.seq_kv, vp, e);
    const detail::AttendMask m = detail::batch_mask(args.mask, b, s.seq_kv);
    for (int32_t h = 0; h < s.num_heads; ++h) {
      detail::AttendS8 a;
      head_view(params, args, qp, kp, vp, op, b, h, &a);
      detail::attend_s8(params.attend, a, m, core_ws);
    }
    detail::fc_s8(params.out, op, e, s.seq_q, args.out + ub * sq * e, e);
  }
  return Status::kOk;
}

}  // namespace attn
