// The int8 reference cases as the board runner holds them: one struct per op,
// filled by the header that gen_board_cases.py generates from
// tests/data/int8/*_cases.txt. Fields follow the case files' order: seed,
// shape, flags, scales as float32 bit patterns with zero points, then the
// expected int8 outputs (and, for the attention ops, the expected attention
// weights). Inputs are not stored: each case draws them from Rng(seed) in the
// order the file's header comment states, as the Linux tests do.
#pragma once

#include <cstdint>

#include "attn/bahdanau.h"
#include "attn/luong.h"
#include "attn/mha.h"
#include "attn/sdpa.h"

namespace int8_board {

struct QuantBits {
  uint32_t scale_bits;
  int32_t zero_point;
};

// softmax_s8 on rows x cols inputs lo + Rng(seed).next() % (128 - lo).
struct SoftmaxCase {
  uint32_t seed;
  int32_t rows, cols, lo;
  uint32_t scale_bits, beta_bits;
  const int8_t* out;
  uint32_t out_n;
};

// sdpa_s8; quant: q, k, v, scores, out.
struct SdpaCase {
  uint32_t seed;
  attn::SdpaShape shape;
  QuantBits quant[5];
  uint32_t beta_bits;
  bool causal, key_lengths, pattern;
  const int8_t* out;
  uint32_t out_n;
  const int8_t* weights;
  uint32_t weights_n;
};

// mha_s8; quant: query, key, value, q, k, v, scores, attn, out;
// scales: per output channel of Wq, Wk, Wv, Wo (4 * embed_dim).
struct MhaCase {
  uint32_t seed;
  attn::MhaShape shape;
  bool self_attn, bias, causal, key_lengths, pattern;
  uint32_t beta_bits;
  QuantBits quant[9];
  const uint32_t* scale_bits;
  const int8_t* out;
  uint32_t out_n;
  const int8_t* weights;
  uint32_t weights_n;
};

// luong_s8 (dot or general); quant: query, keys, keys_proj, scores, context;
// scales: per query_dim channel of W (general only).
struct LuongCase {
  uint32_t seed;
  bool general;
  attn::LuongGeneralShape shape;
  bool bias, key_lengths;
  uint32_t beta_bits;
  QuantBits quant[5];
  const uint32_t* scale_bits;
  const int8_t* out;
  uint32_t out_n;
  const int8_t* weights;
  uint32_t weights_n;
};

// bahdanau_s8; quant: query, keys, query_proj, keys_proj, sum, scores,
// context; scales: W1 (units), W2 (units), v (1).
struct BahdanauCase {
  uint32_t seed;
  attn::BahdanauShape shape;
  bool bias, key_lengths;
  uint32_t beta_bits;
  QuantBits quant[7];
  const uint32_t* scale_bits;
  const int8_t* out;
  uint32_t out_n;
  const int8_t* weights;
  uint32_t weights_n;
};

}  // namespace int8_board
