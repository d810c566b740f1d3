// Luong attention, int8, with an executor (see attn/luong_s8.h). Integer
// arithmetic only.
//   dot, general step: the batch items through attend_s8_run (items as
//     tasks, or a long row's exact key split);
//   general one-shot: with batch >= workers, items as tasks, each projecting
//     its K' into its worker's block; else item after item, K' in blocks of
//     rows, then the item through attend_s8_item.
// Every int8 value is computed as in the serial op: the same bits.
#include "attn/config.h"
#include "attn/luong_s8.h"
#include "core/split.h"
#include "ops/fc_s8.h"
#include "ops/luong_s8_item.h"
#include "ops/op_helpers.h"

// Built with ATTN_PARALLEL 0 (bare metal): empty, the ops run serially.
#if ATTN_PARALLEL

namespace attn {
namespace detail {

void luong_s8_parallel(const Executor& ex, const LuongS8Job& job, void* scratch) {
  const LuongS8Params& p = *job.params;
  const LuongGeneralShape& s = p.shape;
  const LuongS8Args& args = *job.args;
  const auto seq = static_cast<std::size_t>(s.seq);
  const auto qd = static_cast<std::size_t>(s.query_dim);
  const auto kd = static_cast<std::size_t>(s.key_dim);
  const std::size_t proj_bytes = job.proj != nullptr ? align_up(seq * qd) : 0;
  auto* base = static_cast<unsigned char*>(scratch);
  unsigned char* cores = base + static_cast<std::size_t>(ex.workers) * proj_bytes;
  const auto view = [&](int32_t b, const int8_t* k, std::size_t k_stride) {
    const auto ub = static_cast<std::size_t>(b);
    return luong_view_s8(p, args.query + ub * qd, k, k_stride, args.keys + ub * seq * kd,
                         item_length(args.key_lengths, b, s.seq), args.context + ub * kd,
                         item_row(args.probs, b, s.seq));
  };
  if (job.proj == nullptr) {
    auto item = [&](int32_t b) {
      return view(b, job.k + static_cast<std::size_t>(b) * job.k_item, job.k_stride);
    };
    attend_s8_run(ex, p.attend, s.batch, 1, s.seq, s.key_dim, item, cores);
    return;
  }
  const int64_t proj_row_work = static_cast<int64_t>(s.key_dim) * s.query_dim / 4;
  const std::size_t core = sdpa_s8_core_bytes(s.seq, s.query_dim, s.key_dim);
  if (s.batch >= ex.workers) {
    const int64_t item_work = s.seq *
                              (proj_row_work + (s.query_dim + s.key_dim) / 4 + kSoftmaxWork);
    const int32_t n = split_count(s.batch, item_work, s.batch);
    auto items = [&](int32_t t, int32_t worker) {
      int64_t b = 0;
      int64_t end = 0;
      split_range(s.batch, t, n, &b, &end);
      auto* kp = reinterpret_cast<int8_t*>(base + static_cast<std::size_t>(worker) * proj_bytes);
      for (; b < end; ++b) {
        fc_s8(*job.proj, args.keys + static_cast<std::size_t>(b) * seq * kd, kd, s.seq, kp, qd);
        const AttendS8Item it = view(static_cast<int32_t>(b), kp, qd);
        attend_s8(p.attend, it.a, it.mask, cores + static_cast<std::size_t>(worker) * core);
      }
    };
    parallel_for(ex, n, items);
    return;
  }
  auto* kp = reinterpret_cast<int8_t*>(base);
  for (int32_t b = 0; b < s.batch; ++b) {
    const int8_t* keys = args.keys + static_cast<std::size_t>(b) * seq * kd;
    auto rows = [&](int32_t, int32_t r0, int32_t r1) {
      const auto r = static_cast<std::size_t>(r0);
      fc_s8(*job.proj, keys + r * kd, kd, r1 - r0, kp + r * qd, qd);
    };
    parallel_rows(ex, 1, s.seq, proj_row_work, rows);
    attend_s8_item(ex, p.attend, view(b, kp, qd), 1, cores);
  }
}

}  // namespace detail
}  // namespace attn
#endif  // ATTN_PARALLEL
