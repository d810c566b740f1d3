// The run-time arguments of the single-query context ops, float32 and int8:
// Bahdanau (attn/bahdanau.h, attn/bahdanau_s8.h) and Luong (attn/luong.h,
// attn/luong_s8.h), the one-shot ops and their decoder steps. One query per
// batch item attends to its keys, which are also the values. Each op names
// the struct after itself: BahdanauF32Args and LuongF32Args are
// ContextArgs<float>, BahdanauS8Args and LuongS8Args ContextArgs<int8_t>.
//
// Layout (row-major): query [batch, query_dim], keys [batch, seq, key_dim],
// context [batch, key_dim], probs [batch, seq] optional (float32: the
// attention probabilities; int8: their codes). key_lengths [batch] optional, each in
// [0, seq]: keys j >= key_lengths[b] are left out of item b (null: all seq).
#pragma once

#include <cstdint>

#include "attn/parallel.h"

namespace attn {

template <class T>
struct ContextArgs {
  const T* query = nullptr;
  const T* keys = nullptr;
  T* context = nullptr;
  T* probs = nullptr;                    // optional [batch, seq]
  const int32_t* key_lengths = nullptr;  // optional [batch], each in [0, seq]
  // Optional: workers to spread the work over (default: this thread alone).
  Executor executor{};
};

}  // namespace attn
