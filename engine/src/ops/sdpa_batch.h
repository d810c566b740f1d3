// Batch item b of a batched SDPA call ([batch, seq, dim] tensors, rows packed)
// as the attention core's per-item view. Shared by sdpa_f32 and sdpa_s8:
// `Core` is AttendF32 or AttendS8, `Args` SdpaF32Args or SdpaS8Args (the same
// q, k, v, out, weights fields over float or int8). Pointer arithmetic only,
// so the int8 eval stays free of floating point.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/sdpa.h"

namespace attn {
namespace detail {

template <class Core, class Args>
Core sdpa_batch_item(const SdpaShape& shape, const Args& args, int32_t b) {
  const auto ub = static_cast<std::size_t>(b);
  const auto sq = static_cast<std::size_t>(shape.seq_q);
  const auto skv = static_cast<std::size_t>(shape.seq_kv);
  const auto dk = static_cast<std::size_t>(shape.dim_k);
  const auto dv = static_cast<std::size_t>(shape.dim_v);
  Core a;
  a.q = args.q + ub * sq * dk;
  a.q_stride = dk;
  a.k = args.k + ub * skv * dk;
  a.k_stride = dk;
  a.v = args.v + ub * skv * dv;
  a.v_stride = dv;
  a.out = args.out + ub * sq * dv;
  a.out_stride = dv;
  a.weights = args.weights != nullptr ? args.weights + ub * sq * skv : nullptr;
  a.seq_q = shape.seq_q;
  a.seq_kv = shape.seq_kv;
  a.dim_k = shape.dim_k;
  a.dim_v = shape.dim_v;
  return a;
}

}  // namespace detail
}  // namespace attn
