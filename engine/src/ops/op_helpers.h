// Helpers shared by every op, float and int8 (internal): dimension, scale and
// mask checks of the prepare step, the context ops' entry checks, the
// caller's scratch aligned, the mask and the tensor views of one batch item.
// Pointer arithmetic and integer checks only, apart from resolve_scale (float
// ops and prepare steps), so the int8 eval files may include it.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "attn/context_args.h"
#include "attn/mask.h"
#include "attn/parallel.h"
#include "attn/scratch.h"
#include "attn/sdpa.h"
#include "attn/status.h"
#include "core/attend_mask.h"

namespace attn {
namespace detail {

// Largest dimension the engine accepts (kBadShape above it). A product of two
// dimensions stays below 2^40: exact in the 64-bit scratch formulas, which
// saturate (attn/scratch.h), so on a 32-bit target a shape whose buffers
// cannot fit the address space asks for SIZE_MAX scratch and fails with
// kScratchTooSmall instead of wrapping. (A pair product can exceed a 32-bit
// size_t: the bound does not make 32-bit offset arithmetic safe by itself;
// the scratch check and tensors that exist do.)
inline constexpr int32_t kMaxDim = 1 << 20;

inline bool dims_ok(std::initializer_list<int32_t> dims) {
  for (int32_t d : dims) {
    if (d <= 0 || d > kMaxDim) return false;
  }
  return true;
}

// Resolves the user's scale (0 = 1/sqrt(dim_k)); returns false when invalid.
inline bool resolve_scale(float user_scale, int32_t dim_k, float* scale) {
  if (user_scale == 0.0f) {
    *scale = 1.0f / std::sqrt(static_cast<float>(dim_k));
    return true;
  }
  if (!(user_scale > 0.0f) || std::isinf(user_scale)) return false;
  *scale = user_scale;
  return true;
}

// Checks the key lengths of a mask against seq_kv.
inline Status check_mask(const Mask& mask, int32_t batch, int32_t seq_kv) {
  if (mask.key_lengths != nullptr) {
    for (int32_t b = 0; b < batch; ++b) {
      if (mask.key_lengths[b] < 0 || mask.key_lengths[b] > seq_kv) return Status::kBadArgument;
    }
  }
  return Status::kOk;
}

// The entry checks of the context ops (Bahdanau, Luong; float32 or int8; the
// one-shot ops and the steps) that come before their scratch, in the order of
// their documented statuses: kNullPointer (args.query, args.keys,
// args.context or any of `more` null), kBadShape (a dimension of `dims`
// outside dims_ok; the int8 ops, whose params are prepared, pass none), then
// kBadArgument (argument_ok false: the op's own argument check; a key length
// outside [0, seq], key_lengths null meaning seq keys each; an executor that
// is not executor_valid). kOk when all pass.
template <class T>
__attribute__((always_inline)) inline Status context_entry(const ContextArgs<T>& args,
                                                           std::initializer_list<const void*> more,
                                                           std::initializer_list<int32_t> dims,
                                                           bool argument_ok, int32_t batch,
                                                           int32_t seq) {
  if (args.query == nullptr || args.keys == nullptr || args.context == nullptr) {
    return Status::kNullPointer;
  }
  for (const void* p : more) {
    if (p == nullptr) return Status::kNullPointer;
  }
  if (!dims_ok(dims)) return Status::kBadShape;
  Mask lengths;
  lengths.key_lengths = args.key_lengths;
  if (!argument_ok || check_mask(lengths, batch, seq) != Status::kOk ||
      !executor_valid(args.executor)) {
    return Status::kBadArgument;
  }
  return Status::kOk;
}

// Batch item b's key length: key_lengths[b], or seq when key_lengths is null.
inline int32_t item_length(const int32_t* key_lengths, int32_t b, int32_t seq) {
  return key_lengths != nullptr ? key_lengths[b] : seq;
}

// Batch item b's row of an optional [batch, seq] weights output (null: null).
template <class T>
T* item_row(T* weights, int32_t b, int32_t seq) {
  return weights != nullptr ? weights + static_cast<std::size_t>(b) * static_cast<std::size_t>(seq)
                            : nullptr;
}

// Batch item b of a single-query op's args (Bahdanau, Luong; float or int8):
// query [batch, query_dim], keys [batch, seq, key_dim], context [batch,
// key_dim], the optional weights [batch, seq], the optional key lengths.
template <class T>
struct QueryItem {
  const T* query;
  const T* keys;
  int32_t len;
  T* context;
  T* wrow;  // null when the op writes no weights
};

template <class T>
QueryItem<T> query_item(const ContextArgs<T>& args, int32_t b, int32_t seq, int32_t query_dim,
                        int32_t key_dim) {
  const auto ub = static_cast<std::size_t>(b);
  const auto kd = static_cast<std::size_t>(key_dim);
  return QueryItem<T>{args.query + ub * static_cast<std::size_t>(query_dim),
                      args.keys + ub * static_cast<std::size_t>(seq) * kd,
                      item_length(args.key_lengths, b, seq), args.context + ub * kd,
                      item_row(args.probs, b, seq)};
}

// Rounds `data` up to 64 bytes and checks the size: null if data is null,
// needed is 0 or bytes < needed. `needed` includes the 64 bytes of slack.
inline void* aligned_scratch(void* data, std::size_t bytes, std::size_t needed) {
  if (data == nullptr || needed == 0 || bytes < needed) return nullptr;
  const auto addr = reinterpret_cast<std::uintptr_t>(data);
  return static_cast<unsigned char*>(data) + (align_up(addr) - addr);
}

// aligned_scratch of the caller's Scratch.
inline void* aligned_scratch(Scratch scratch, std::size_t needed) {
  return aligned_scratch(scratch.data, scratch.bytes, needed);
}

// The mask of batch item b, for a seq_q x seq_kv attention.
inline AttendMask batch_mask(const Mask& mask, int32_t b, int32_t seq_kv) {
  AttendMask m;
  m.causal = mask.causal;
  m.key_length = mask.key_lengths != nullptr ? mask.key_lengths[b] : seq_kv;
  const std::size_t off = static_cast<std::size_t>(b) * mask.matrix_batch_stride;
  m.keras = mask.keras != nullptr ? mask.keras + off : nullptr;
  m.additive = mask.additive != nullptr ? mask.additive + off : nullptr;
  m.boolean = mask.boolean != nullptr ? mask.boolean + off : nullptr;
  return m;
}

// Batch item b of a batched SDPA call ([batch, seq, dim] tensors, rows packed)
// as the attention core's per-item view: `Core` is AttendF32 or AttendS8,
// `Args` SdpaF32Args or SdpaS8Args (the same q, k, v, out, weights fields over
// float or int8).
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
  a.probs = args.probs != nullptr ? args.probs + ub * sq * skv : nullptr;
  a.seq_q = shape.seq_q;
  a.seq_kv = shape.seq_kv;
  a.dim_k = shape.dim_k;
  a.dim_v = shape.dim_v;
  return a;
}

}  // namespace detail
}  // namespace attn
