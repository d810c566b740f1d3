// Luong attention, int8, one batch item (internal): the part that luong_s8 and
// luong_general_s8_step share (see attn/luong_s8.h). Integer only.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/luong_s8.h"
#include "core/attend_s8.h"

namespace attn {
namespace detail {

// The core's view of one batch item: scores from the query row and the
// score keys k (rows of k_stride: the keys for dot, K' for general), values
// `keys`, over keys j < len, one query row into ctx (and the optional weights
// row).
inline AttendS8Item luong_view_s8(const LuongS8Params& p, const int8_t* query, const int8_t* k,
                                  std::size_t k_stride, const int8_t* keys, int32_t len,
                                  int8_t* ctx, int8_t* wrow) {
  const LuongGeneralShape& s = p.shape;
  const auto kd = static_cast<std::size_t>(s.key_dim);
  AttendS8Item it;
  AttendS8& a = it.a;
  a.q = query;
  a.q_stride = static_cast<std::size_t>(s.query_dim);
  a.k = k;
  a.k_stride = k_stride;
  a.v = keys;
  a.v_stride = kd;
  a.out = ctx;
  a.out_stride = kd;
  a.probs = wrow;
  a.probs_stride = static_cast<std::size_t>(s.seq);
  a.seq_q = 1;
  a.seq_kv = s.seq;
  a.dim_k = s.query_dim;
  a.dim_v = s.key_dim;
  it.mask.key_length = len;
  return it;
}

// context (and the optional weights row) of one batch item (luong_view_s8).
// core_ws: sdpa_s8_core_bytes.
inline void luong_item_s8(const LuongS8Params& p, const int8_t* query, const int8_t* k,
                          std::size_t k_stride, const int8_t* keys, int32_t len, int8_t* ctx,
                          int8_t* wrow, void* core_ws) {
  const AttendS8Item it = luong_view_s8(p, query, k, k_stride, keys, len, ctx, wrow);
  attend_s8(p.attend, it.a, it.mask, core_ws);
}

// A Luong op's batch through an executor of more than one worker: per item
// b the query row query + b * query_dim, score keys k + b * k_item (rows
// k_stride apart; null with proj: K' = FULLY_CONNECTED(keys, proj) into
// scratch first), values keys [batch, seq, key_dim] (luong_s8_parallel.cpp).
struct LuongS8Job {
  const LuongS8Params* params;
  const LuongS8Args* args;
  const int8_t* k;
  std::size_t k_item, k_stride;
  const FcS8Layer* proj;
};
// scratch: 64-byte aligned; with proj, workers blocks of align64(seq *
// query_dim) first; then workers slices of sdpa_s8_core_bytes.
void luong_s8_parallel(const Executor& ex, const LuongS8Job& job, void* scratch);

}  // namespace detail
}  // namespace attn
