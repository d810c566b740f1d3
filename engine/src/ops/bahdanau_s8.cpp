// Bahdanau attention, int8: eval (see attn/bahdanau_s8.h). Integer only.
#include "attn/bahdanau_s8.h"

#include "kernels/s8/fixedpoint.h"
#include "core/attend_s8.h"
#include "ops/fc_s8.h"
#include "ops/op_helpers.h"

namespace attn {
namespace {

// TFLite int8 ADD of one element.
inline int32_t add_s8(const AddS8Params& p, int32_t a, int32_t b) {
  const int32_t sa = q::multiply_by_quantized_multiplier((a - p.input1_zero_point) * (1 << 20),
                                                         p.input1.multiplier, p.input1.shift);
  const int32_t sb = q::multiply_by_quantized_multiplier((b - p.input2_zero_point) * (1 << 20),
                                                         p.input2.multiplier, p.input2.shift);
  const int32_t out = q::multiply_by_quantized_multiplier(sa + sb, p.output.multiplier,
                                                          p.output.shift) +
                      p.output_zero_point;
  return out < -128 ? -128 : (out > 127 ? 127 : out);
}

}  // namespace

Status bahdanau_s8(const BahdanauS8Params& params, const BahdanauS8Args& args, Scratch scratch) {
  const BahdanauShape& s = params.shape;
  if (args.query == nullptr || args.keys == nullptr || args.context == nullptr) {
    return Status::kNullPointer;
  }
  if (args.key_lengths != nullptr) {
    for (int32_t b = 0; b < s.batch; ++b) {
      if (args.key_lengths[b] < 0 || args.key_lengths[b] > s.seq) return Status::kBadArgument;
    }
  }
  void* ws = detail::aligned_scratch(scratch.data, scratch.bytes, bahdanau_s8_scratch_bytes(s));
  if (ws == nullptr) return Status::kScratchTooSmall;
  const auto seq = static_cast<std::size_t>(s.seq);
  const auto qd = static_cast<std::size_t>(s.query_dim);
  const auto kd = static_cast<std::size_t>(s.key_dim);
  const auto units = static_cast<std::size_t>(s.units);
  auto* qproj = static_cast<int8_t*>(ws);
  int8_t* row = qproj + align_up(units);
  void* core_ws = row + align_up(units);
  auto* scores = static_cast<int8_t*>(core_ws);  // the core's score row
  for (int32_t b = 0; b < s.batch; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    const int8_t* keys = args.keys + ub * seq * kd;
    int8_t* ctx = args.context + ub * kd;
    int8_t* wrow = args.weights != nullptr ? args.weights + ub * seq : nullptr;
    const int32_t limit = args.key_lengths != nullptr ? args.key_lengths[b] : s.seq;
    if (limit == 0) {
      for (std::size_t c = 0; c < kd; ++c) ctx[c] = static_cast<int8_t>(params.attend.out_zero_point);
      if (wrow != nullptr) {
        for (std::size_t j = 0; j < seq; ++j) wrow[j] = -128;
      }
      continue;
    }
    detail::fc_s8(params.w1, args.query + ub * qd, qd, 1, qproj, units);
    for (int32_t j = 0; j < limit; ++j) {
      detail::fc_s8(params.w2, keys + static_cast<std::size_t>(j) * kd, kd, 1, row, units);
      for (std::size_t u = 0; u < units; ++u) {
        row[u] = params.tanh_table[add_s8(params.add, qproj[u], row[u]) + 128];
      }
      detail::fc_s8(params.v, row, units, 1, scores + j, 1);
    }
    detail::softmax_pv_row_s8(params.attend, scores, limit, nullptr, keys, kd, s.key_dim, s.seq,
                              ctx, wrow, core_ws);
  }
  return Status::kOk;
}

}  // namespace attn
