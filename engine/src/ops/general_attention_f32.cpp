// General attention, float32 (see attn/general_attention.h).
#include "attn/general_attention.h"

#include "kernels/f32/kernels_f32.h"
#include "core/attend_f32.h"
#include "ops/op_helpers.h"

namespace attn {

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
  const std::size_t needed = general_attention_f32_scratch_bytes(shape);
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

  for (int32_t b = 0; b < shape.batch; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    const float* x = args.x + ub * n * din;
    kernels::dense_f32(x, shape.seq, shape.in_dim, weights.w_q, nullptr, shape.dim_k, q);
    kernels::dense_f32(x, shape.seq, shape.in_dim, weights.w_k, nullptr, shape.dim_k, k);
    kernels::dense_f32(x, shape.seq, shape.in_dim, weights.w_v, nullptr, shape.dim_v, v);
    detail::AttendF32 a;
    a.q = q;
    a.q_stride = dk;
    a.k = k;
    a.k_stride = dk;
    a.v = v;
    a.v_stride = dv;
    a.out = args.out + ub * n * dv;
    a.out_stride = dv;
    a.weights = args.weights != nullptr ? args.weights + ub * n * n : nullptr;
    a.seq_q = shape.seq;
    a.seq_kv = shape.seq;
    a.dim_k = shape.dim_k;
    a.dim_v = shape.dim_v;
    a.scale = scale;
    detail::attend_f32(a, detail::batch_mask(args.mask, b, shape.seq), base);
  }
  return Status::kOk;
}

}  // namespace attn
