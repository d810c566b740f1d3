// Decoder-step benchmark cases of bench_ops.cpp: one mha_decode_f32 /
// mha_decode_s8 step, E = 64, H = 4, 2 kv heads (int8 also 1) (head dim 16), at context 128
// (127 cached tokens, appended before the measured region, plus the new one).
#pragma once

#include <cstdint>

#include "attn/attn.h"

namespace bench_decode {

constexpr int32_t kE = 64;
constexpr int32_t kContext = 128;

// The model and inputs the cases read (bench_ops.cpp's buffers): float
// weights q [E, E], k and v [32, E], o [E, E] in one array, biases likewise;
// int8 weights, per-channel scales and int32 biases in the same layout;
// token rows x [kContext, E] in float and int8.
struct Model {
  const float* w;
  const float* bias;
  const int8_t* w8;
  const float* scales;
  const int32_t* bias32;
  const float* x;
  const int8_t* x8;
};

// An int8 case: rotary positions, kv heads (2, or 1: the 4 query heads are
// the rows of one core call, the query-tiled core with the DSP and Helium
// kernels) and a packed cache (KvCacheShape::packed: that core then packs
// nothing).
struct S8Config {
  bool rope;
  int32_t kv_heads;
  bool packed;
};

// Prepare a case (rope: rotary dims 16, half-split, theta 10000) and fill its
// cache with kContext - 1 tokens; false on a failed step.
bool prepare_f32(const Model& m, bool rope, attn::Scratch scratch);
bool prepare_s8(const Model& m, const S8Config& c, attn::Scratch scratch);

// One decode step at position kContext - 1 (the cache's position is set back
// to it afterwards, so hosted targets can repeat the step).
attn::Status step_f32();
attn::Status step_s8();

}  // namespace bench_decode
