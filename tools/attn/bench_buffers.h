// Helpers of `attn bench`'s prepare functions (bench_ops.cpp,
// bench_context_ops.cpp, bench_model.cpp): the buffers one prepared call owns,
// synthetic quantization parameters, and the one-query ops' prepare functions.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <type_traits>
#include <vector>

#include "attn/int8/quantize.h"
#include "attn/scratch.h"
#include "bench_ops.h"
#include "common.h"
#include "threads_flag.h"

namespace attn_cli {

// Everything a prepared call points into. deque: growing it never moves the
// vectors already handed out.
struct BenchBuffers {
  std::deque<std::vector<float>> f32s;
  std::deque<std::vector<int8_t>> s8s;
  std::vector<attn::QuantizedMultiplier> channels;  // int8 per-channel multipliers
  std::vector<unsigned char> scratch_storage;
  LoadedMask mask;

  // b * n * d elements, checked against the CLI's 2 GiB output limit.
  std::size_t count(int64_t b, int64_t n, int64_t d) const {
    return output_count({b, n, d}, "attn bench");
  }
  float* f32(std::size_t n, uint32_t seed) {
    f32s.emplace_back(n > 0 ? n : 1);
    fill_f32(f32s.back().data(), n, seed);
    return f32s.back().data();
  }
  float* constant(std::size_t n, float v) {
    f32s.emplace_back(n > 0 ? n : 1, v);
    return f32s.back().data();
  }
  int8_t* s8(std::size_t n, uint32_t seed) {
    s8s.emplace_back(n > 0 ? n : 1);
    fill_s8(s8s.back().data(), n, seed);
    return s8s.back().data();
  }
  template <class T>  // float or int8_t
  T* data(std::size_t n, uint32_t seed) {
    if constexpr (std::is_same_v<T, float>) {
      return f32(n, seed);
    } else {
      return s8(n, seed);
    }
  }
  attn::Mask load_mask(const MaskInputs& in, int32_t batch, int32_t seq_q, int32_t seq_kv) {
    mask = load_masks(in, batch, seq_q, seq_kv);
    return mask.mask();
  }
  // Exactly `bytes` of scratch (the op's formula: a call with less fails).
  attn::Scratch scratch(std::size_t bytes) {
    scratch_storage = make_scratch(bytes);
    return attn::Scratch{scratch_storage.data(), bytes};
  }
};

// Query [B, dq], keys [B, T, dk] and context [B, dk] of a one-query op
// (bahdanau, luong), float or int8 as its Args say.
template <class Args>
Args bench_context_args(BenchBuffers* b, int32_t batch, int32_t t, int32_t dq, int32_t dk) {
  using T = std::remove_const_t<std::remove_pointer_t<decltype(Args::query)>>;
  Args a;
  a.query = b->data<T>(b->count(batch, 1, dq), 1);
  a.keys = b->data<T>(b->count(batch, t, dk), 2);
  a.context = b->data<T>(b->count(batch, 1, dk), 0);
  a.executor = threads_executor();
  return a;
}

inline attn::QuantParams bench_quant(float scale) { return attn::QuantParams{scale, 0}; }

// Synthetic int8 inputs are uniform codes at scale 1/64: real values in
// [-2, 2), deviation 1.15. A dot product of n of them has a deviation of
// 1.33 sqrt(n), so its int8 result gets the scale 4 sigma / 128 = sqrt(n) / 24.
inline constexpr float kBenchInScale = 1.0f / 64.0f;
inline float bench_dot_scale(int32_t n) { return std::sqrt(static_cast<float>(n)) / 24.0f; }

// bench_context_ops.cpp: the one-query ops on [B, D] queries and [B, T, D]
// keys (T = --seq-kv), and softmax-s8 on [B*H*Sq, Skv] rows.
BenchCall bahdanau_f32_call(const BenchShape& s);
BenchCall bahdanau_s8_call(const BenchShape& s);
BenchCall luong_dot_f32_call(const BenchShape& s);
BenchCall luong_dot_s8_call(const BenchShape& s);
BenchCall luong_general_f32_call(const BenchShape& s);
BenchCall luong_general_s8_call(const BenchShape& s);
BenchCall softmax_s8_call(const BenchShape& s);

}  // namespace attn_cli
