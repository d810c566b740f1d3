// The float SDPA core's loops (core/attend_f32_loop-inl.h) compiled once per
// Highway target, namespace attn::hwy (internal; built when the ops use the
// Highway backend, which defines ATTN_F32_CORE_PER_TARGET).
//
// Each function makes one dispatched call (HWY_DYNAMIC_DISPATCH, x86) to its
// target's loops, which call that target's kernels directly; core/attend_f32.h
// documents the arguments (attend_f32_tiles, attend_f32_key_part,
// attend_f32_key_probs), whose results these are bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/attend_f32.h"
#include "core/attend_mask.h"

namespace attn {
namespace hwy {

// out_i = sum_j softmax_j(scale q_i . k_j + mask_ij) v_j for the query rows of
// tiles [tile_begin, tile_end) (tile t: rows from t * kSdpaQueryTile), a.out
// rows of dim_v floats at a.out_stride, and the probs rows when a.probs is
// set; `slice` is one 64-byte aligned scratch slice (attend_f32_slice_bytes),
// carved as SdpaF32Layout (attn/sdpa.h). core/attend_f32.h: attend_f32_tiles.
void attend_f32_tiles(const detail::AttendF32& a, const detail::AttendMask& mask,
                      int32_t tile_begin, int32_t tile_end, void* slice);
// The online state (running max m, sum l, accumulators acc) of a.seq_q <= 4
// queries over key range `part` of `parts`, into slice `part`.
// core/attend_f32.h: attend_f32_key_part.
void attend_f32_key_part(const detail::AttendF32& a, const detail::AttendMask& mask, int32_t part,
                         int32_t parts, void* slice);
// After the merge into slice 0: the probs exp(s - m) / l of key range
// `part`, scores recomputed over its key blocks; slices `slice_bytes` apart.
// core/attend_f32.h: attend_f32_key_probs.
void attend_f32_key_probs(const detail::AttendF32& a, const detail::AttendMask& mask, int32_t part,
                          int32_t parts, void* slices, std::size_t slice_bytes);

}  // namespace hwy
}  // namespace attn
