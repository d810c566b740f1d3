// The float SDPA core's loops (core/attend_f32_loop-inl.h) compiled once per
// Highway target, namespace attn::hwy (internal; built when the ops use the
// Highway backend, which defines ATTN_F32_CORE_PER_TARGET).
//
// Each function makes one dispatched call (HWY_DYNAMIC_DISPATCH, x86) to its
// target's loops, which call that target's kernels directly; core/attend_f32.h
// documents the arguments (attend_f32_tiles, attend_f32_key_part,
// attend_f32_key_weights), whose results these are bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/attend_f32.h"
#include "core/attend_mask.h"

namespace attn {
namespace hwy {

void attend_f32_tiles(const detail::AttendF32& a, const detail::AttendMask& mask,
                      int32_t tile_begin, int32_t tile_end, void* slice);
void attend_f32_key_part(const detail::AttendF32& a, const detail::AttendMask& mask, int32_t part,
                         int32_t parts, void* slice);
void attend_f32_key_weights(const detail::AttendF32& a, const detail::AttendMask& mask,
                            int32_t part, int32_t parts, void* slices, std::size_t slice_bytes);

}  // namespace hwy
}  // namespace attn
