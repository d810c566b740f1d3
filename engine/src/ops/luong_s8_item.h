// Luong attention, int8, one batch item (internal): the part that luong_s8 and
// luong_general_s8_step share (see attn/luong_s8.h). Integer only.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/luong_s8.h"
#include "core/attend_s8.h"

namespace attn {
namespace detail {

// context (and the optional weights row) of one batch item: scores from the
// query row and the score keys k (rows of k_stride: the keys for dot, K' for
// general), values `keys`, over keys j < len. core_ws: sdpa_s8_core_bytes.
inline void luong_item_s8(const LuongS8Params& p, const int8_t* query, const int8_t* k,
                          std::size_t k_stride, const int8_t* keys, int32_t len, int8_t* ctx,
                          int8_t* wrow, void* core_ws) {
  const LuongGeneralShape& s = p.shape;
  const auto kd = static_cast<std::size_t>(s.key_dim);
  AttendS8 a;
  a.q = query;
  a.q_stride = static_cast<std::size_t>(s.query_dim);
  a.k = k;
  a.k_stride = k_stride;
  a.v = keys;
  a.v_stride = kd;
  a.out = ctx;
  a.out_stride = kd;
  a.weights = wrow;
  a.weights_stride = static_cast<std::size_t>(s.seq);
  a.seq_q = 1;
  a.seq_kv = s.seq;
  a.dim_k = s.query_dim;
  a.dim_v = s.key_dim;
  AttendMask m;
  m.key_length = len;
  attend_s8(p.attend, a, m, core_ws);
}

}  // namespace detail
}  // namespace attn
