// General attention, float32 (see attn/general_attention.h).
#include "attn/general_attention.h"

#include "attn/config.h"

#include "core/attend_f32.h"
#include "core/split.h"
#include "kernels/f32/kernels_f32.h"
#include "ops/op_helpers.h"

namespace attn {
namespace {

// The core's view of batch item b, Q, K, V in scratch (inlined: the serial
// loop's frame stays as it was, as the Cortex-M stack budgets record).
__attribute__((always_inline)) inline void item_view(const GeneralAttentionShape& shape,
                                                     const GeneralAttentionF32Args& args,
                                                     float scale, int32_t b, const float* q,
                                                     const float* k, const float* v,
                                                     detail::AttendF32* a) {
  const auto n = static_cast<std::size_t>(shape.seq);
  const auto dk = static_cast<std::size_t>(shape.dim_k);
  const auto dv = static_cast<std::size_t>(shape.dim_v);
  const auto ub = static_cast<std::size_t>(b);
  a->q = q;
  a->q_stride = dk;
  a->k = k;
  a->k_stride = dk;
  a->v = v;
  a->v_stride = dv;
  a->out = args.out + ub * n * dv;
  a->out_stride = dv;
  a->probs = args.probs != nullptr ? args.probs + ub * n * n : nullptr;
  a->seq_q = shape.seq;
  a->seq_kv = shape.seq;
  a->dim_k = shape.dim_k;
  a->dim_v = shape.dim_v;
  a->scale = scale;
}

#if ATTN_PARALLEL
// With an executor of more than one worker: item after item, the three
// projections in blocks of rows (dense_f32 computes each row alone: the
// serial bits), then the attention in query tiles (attend_f32_item).
void general_attention_parallel(const GeneralAttentionShape& shape,
                                const GeneralAttentionF32Weights& weights,
                                const GeneralAttentionF32Args& args, float scale, float* q,
                                float* k, float* v, void* cores) {
  const auto n = static_cast<std::size_t>(shape.seq);
  const auto din = static_cast<std::size_t>(shape.in_dim);
  const float* w[3] = {weights.w_q, weights.w_k, weights.w_v};
  float* dst[3] = {q, k, v};
  const int32_t dims[3] = {shape.dim_k, shape.dim_k, shape.dim_v};
  const int64_t row_work = static_cast<int64_t>(shape.in_dim) *
                           (2 * static_cast<int64_t>(shape.dim_k) + shape.dim_v) / 3;
  for (int32_t b = 0; b < shape.batch; ++b) {
    const float* x = args.x + static_cast<std::size_t>(b) * n * din;
    auto project = [&](int32_t m, int32_t r0, int32_t r1) {
      const auto r = static_cast<std::size_t>(r0);
      kernels::dense_f32(x + r * din, r1 - r0, shape.in_dim, w[m], nullptr, dims[m],
                         dst[m] + r * static_cast<std::size_t>(dims[m]));
    };
    detail::parallel_rows(args.executor, 3, shape.seq, row_work, project);
    detail::AttendF32Item it;
    item_view(shape, args, scale, b, q, k, v, &it.a);
    it.mask = detail::batch_mask(args.mask, b, shape.seq);
    detail::attend_f32_item(args.executor, it, cores);
  }
}
#endif

}  // namespace

Status general_attention_f32(const GeneralAttentionShape& shape,
                             const GeneralAttentionF32Weights& weights,
                             const GeneralAttentionF32Args& args, Scratch scratch) {
  if (args.x == nullptr || args.out == nullptr || weights.w_q == nullptr ||
      weights.w_k == nullptr || weights.w_v == nullptr) {
    return Status::kNullPointer;
  }
  if (!detail::dims_ok({shape.batch, shape.seq, shape.in_dim, shape.dim_k, shape.dim_v})) {
    return Status::kBadShape;
  }
  float scale = 0.0f;
  if (!detail::resolve_scale(args.scale, shape.dim_k, &scale)) return Status::kBadArgument;
  const Status mask_status = detail::check_mask(args.mask, shape.batch, shape.seq);
  if (mask_status != Status::kOk) return mask_status;
  const Executor& ex = args.executor;
  if (!executor_valid(ex)) return Status::kBadArgument;
  const std::size_t needed = general_attention_f32_scratch_bytes(shape, ex.workers);
  void* ws = detail::aligned_scratch(scratch.data, scratch.bytes, needed);
  if (ws == nullptr) return Status::kScratchTooSmall;

  const auto n = static_cast<std::size_t>(shape.seq);
  const auto din = static_cast<std::size_t>(shape.in_dim);
  const auto dk = static_cast<std::size_t>(shape.dim_k);
  const auto dv = static_cast<std::size_t>(shape.dim_v);
  auto* base = static_cast<unsigned char*>(ws);
  auto* q = static_cast<float*>(static_cast<void*>(base));
  base += f32_bytes(n * dk);
  auto* k = static_cast<float*>(static_cast<void*>(base));
  base += f32_bytes(n * dk);
  auto* v = static_cast<float*>(static_cast<void*>(base));
  base += f32_bytes(n * dv);
#if ATTN_PARALLEL
  if (ex.workers > 1) {
    general_attention_parallel(shape, weights, args, scale, q, k, v, base);
    return Status::kOk;
  }
#endif

  for (int32_t b = 0; b < shape.batch; ++b) {
    const float* x = args.x + static_cast<std::size_t>(b) * n * din;
    kernels::dense_f32(x, shape.seq, shape.in_dim, weights.w_q, nullptr, shape.dim_k, q);
    kernels::dense_f32(x, shape.seq, shape.in_dim, weights.w_k, nullptr, shape.dim_k, k);
    kernels::dense_f32(x, shape.seq, shape.in_dim, weights.w_v, nullptr, shape.dim_v, v);
    detail::AttendF32 a;
    item_view(shape, args, scale, b, q, k, v, &a);
    detail::attend_f32(a, detail::batch_mask(args.mask, b, shape.seq), base);
  }
  return Status::kOk;
}

}  // namespace attn
