// The int8 attention core shared by sdpa_s8, mha_s8 and the Luong ops
// (internal): one batch item (or head), strided rows, one mask.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/mask.h"
#include "attn/sdpa_s8.h"
#include "attn/status.h"
#include "core/attend_mask.h"

namespace attn {
namespace detail {

struct AttendS8 {
  const int8_t* q = nullptr;
  std::size_t q_stride = 0;  // elements between consecutive rows
  const int8_t* k = nullptr;
  std::size_t k_stride = 0;
  const int8_t* v = nullptr;
  std::size_t v_stride = 0;
  int8_t* out = nullptr;
  std::size_t out_stride = 0;
  int8_t* weights = nullptr;  // optional [seq_q, seq_kv] rows of weights_stride
  std::size_t weights_stride = 0;
  int32_t seq_q = 0, seq_kv = 0, dim_k = 0, dim_v = 0;
};

// kUnsupported if an additive mask entry is neither 0 nor <= -1e9 (checked
// over every batch item the mask covers), else kOk.
Status check_additive_s8(const Mask& mask, int32_t batch, int32_t seq_q, int32_t seq_kv);

// Runs attention for one item with prepared params (shape fields of params
// are not read; a's sizes are used). ws: sdpa_s8_core_bytes(seq_kv, dim_k,
// dim_v) bytes, 64-byte aligned: the one-row buffers, then (query tile > 1)
// the tiled core's. Without a matrix mask and from 4 query rows on, builds
// whose tile kernels are fast on this CPU (tile_s8_fast: x86 with VNNI,
// AArch64 with dot products, Cortex-M DSP and Helium) take the tiled core;
// the results are the same bits either way.
void attend_s8(const SdpaS8Params& params, const AttendS8& a, const AttendMask& m, void* ws);

// The second half of attend_s8 for one query row whose int8 scores[0..limit)
// are computed: softmax in place (over keep[j] != 0 when keep is not null),
// optional weights row (seq_kv codes, -128 past limit), then the output row
// from V. ws: the same sdpa_s8_row_bytes block (params.shape.dim_k sizes the
// query-row slot it skips). limit >= 1 with at least one kept key.
void softmax_pv_row_s8(const SdpaS8Params& params, int8_t* scores, int32_t limit,
                       const uint8_t* keep, const int8_t* v, std::size_t v_stride, int32_t dim_v,
                       int32_t seq_kv, int8_t* orow, int8_t* wrow, void* ws);

}  // namespace detail
}  // namespace attn
