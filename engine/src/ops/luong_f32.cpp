// Luong dot and general attention, float32 (see attn/luong.h).
#include "attn/luong.h"

#include "attn/config.h"

#include "kernels/f32/kernels_f32.h"
#include "ops/luong_f32_item.h"
#include "ops/op_helpers.h"

namespace attn {
namespace {

// The query row of each batch item (already in key space, query_stride apart)
// against its keys, which are also its values.
void attend_queries(const float* queries, std::size_t query_stride, int32_t dim,
                    const LuongF32Args& args, int32_t batch, int32_t seq, void* core) {
  const auto d = static_cast<std::size_t>(dim);
  const auto t = static_cast<std::size_t>(seq);
  for (int32_t b = 0; b < batch; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    const float* keys = args.keys + ub * t * d;
    const detail::LuongKeys k{keys, d, dim, keys, dim};
    detail::luong_attend_f32(queries + ub * query_stride, k,
                             detail::item_length(args.key_lengths, b, seq), seq,
                             args.context + ub * d, detail::item_row(args.probs, b, seq), core);
  }
}

}  // namespace

Status luong_dot_f32(const LuongDotShape& shape, const LuongF32Args& args, Scratch scratch) {
  const Status st = detail::context_entry(args, {}, {shape.batch, shape.seq, shape.dim}, true,
                                          shape.batch, shape.seq);
  if (st != Status::kOk) return st;
  const Executor& ex = args.executor;
  void* ws = detail::aligned_scratch(scratch, luong_dot_f32_scratch_bytes(shape, ex.workers));
  if (ws == nullptr) return Status::kScratchTooSmall;
  const auto d = static_cast<std::size_t>(shape.dim);
#if ATTN_PARALLEL
  if (ex.workers > 1) {
    const detail::LuongF32Job job{&args,      shape.batch, shape.seq,
                                  args.query, d,           nullptr,
                                  shape.dim,  args.keys,   static_cast<std::size_t>(shape.seq) * d,
                                  d,          shape.dim,   shape.dim};
    detail::luong_f32_parallel(ex, job, ws);
    return Status::kOk;
  }
#endif
  attend_queries(args.query, d, shape.dim, args, shape.batch, shape.seq, ws);
  return Status::kOk;
}

Status luong_general_f32(const LuongGeneralShape& shape, const LuongGeneralF32Weights& weights,
                         const LuongF32Args& args, Scratch scratch) {
  const Status st = detail::context_entry(args, {weights.w},
                                          {shape.batch, shape.seq, shape.query_dim, shape.key_dim},
                                          true, shape.batch, shape.seq);
  if (st != Status::kOk) return st;
  const Executor& ex = args.executor;
  void* ws = detail::aligned_scratch(scratch, luong_general_f32_scratch_bytes(shape, ex.workers));
  if (ws == nullptr) return Status::kScratchTooSmall;
#if ATTN_PARALLEL
  if (ex.workers > 1) {
    const auto kd = static_cast<std::size_t>(shape.key_dim);
    const detail::LuongF32Job job{&args,
                                  shape.batch,
                                  shape.seq,
                                  args.query,
                                  static_cast<std::size_t>(shape.query_dim),
                                  weights.w,
                                  shape.query_dim,
                                  args.keys,
                                  static_cast<std::size_t>(shape.seq) * kd,
                                  kd,
                                  shape.key_dim,
                                  shape.key_dim};
    detail::luong_f32_parallel(ex, job, ws);
    return Status::kOk;
  }
#endif
  // q' = W q (W is [key_dim, query_dim]), one row per batch item, is kept in the
  // first align64(4*key_dim) bytes; the attention core follows.
  auto* projected = static_cast<float*>(ws);
  void* core = static_cast<unsigned char*>(ws) + f32_bytes(static_cast<std::size_t>(shape.key_dim));
  const auto dq = static_cast<std::size_t>(shape.query_dim);
  LuongF32Args one = args;
  for (int32_t b = 0; b < shape.batch; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    kernels::linear_f32(args.query + ub * dq, 1, shape.query_dim, weights.w, nullptr, shape.key_dim,
                        projected);
    one.keys = args.keys +
               ub * static_cast<std::size_t>(shape.seq) * static_cast<std::size_t>(shape.key_dim);
    one.context = args.context + ub * static_cast<std::size_t>(shape.key_dim);
    one.probs = detail::item_row(args.probs, b, shape.seq);
    one.key_lengths = args.key_lengths != nullptr ? args.key_lengths + b : nullptr;
    attend_queries(projected, 0, shape.key_dim, one, 1, shape.seq, core);
  }
  return Status::kOk;
}

}  // namespace attn
