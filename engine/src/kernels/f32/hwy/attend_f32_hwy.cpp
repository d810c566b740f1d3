// The float SDPA core's loops once per Highway target (attend_f32_hwy.h).
//
// core/attend_f32_loop-inl.h and the entries over it
// (core/attend_f32_entries-inl.h) are compiled inside each target's namespace
// with the kernel set LoopKernels: the kernel entries of that target
// (kernels_f32_hwy.cpp: attn::hwy::N_AVX3::qk_tile_t_f32, ...), called
// directly, no dispatch inside the loops; the masking is attend_f32.cpp's,
// called out of line (detail::mask_scores). The loops' own float arithmetic
// (the rescaling exp, 1 / l, the weights) rounds as attend_f32.cpp's does:
// backends.cmake builds this file with -ffp-contract=off on x86, whose
// baseline (attend_f32.cpp's flags) has no FMA to contract a * b + c into.
//
// Inside namespace attn, `hwy` names the backend's namespace: the Highway
// library is spelled ::hwy here (hwy_namespace.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/f32/hwy/attend_f32_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <cstddef>
#include <cstdint>

#include "attn/sdpa.h"
#include "core/attend_f32.h"
#include "core/attend_f32_tile.h"
#include "core/attend_mask.h"
#include "kernels/f32/hwy/attend_f32_hwy.h"
#include "kernels/f32/hwy/hwy_namespace.h"
#include "kernels/f32/kernels_f32.h"

HWY_BEFORE_NAMESPACE();
namespace attn {
namespace hwy {
namespace HWY_NAMESPACE {

// This target's kernel entries (defined in kernels_f32_hwy.cpp).
ATTN_DECLARE_F32_KERNELS

#include "core/attend_f32_loop-inl.h"

// This target's kernel set for the loops: its own kernel entries, called
// directly; the masking out of line (attend_f32.cpp); the rescale and the
// online step inlined over this same set, so no call inside the loops
// dispatches.
struct LoopKernels {
  ATTN_F32_LOOP_KERNELS(::attn::hwy::HWY_NAMESPACE)
  static void mask_scores(const AttendF32& a, const AttendMask& mask, const Tile& t,
                          const Layout& lay, int32_t i0, int32_t nq, int32_t j0, int32_t nk,
                          int32_t* visible) {
    ::attn::detail::mask_scores(a, mask, t, lay, i0, nq, j0, nk, visible);
  }
  static void rescale_state(float m_new, float* m, float* l, float* acc, int32_t dim_v) {
    rescale_row<LoopKernels>(m_new, m, l, acc, dim_v);
  }
  static void online_softmax_update(float* s, std::size_t s_stride, int32_t nq, int32_t nk,
                                    const float* v, std::size_t v_stride, int32_t dim_v, float* m,
                                    float* l, float* acc, std::size_t acc_stride) {
    online_update<LoopKernels>(s, s_stride, nq, nk, v, v_stride, dim_v, m, l, acc, acc_stride);
  }
};

// The entries HWY_EXPORT lists: attend_f32_hwy.h's functions on this target
// (query tiles; a key range's online state; a key range's weights).
#include "core/attend_f32_entries-inl.h"

}  // namespace HWY_NAMESPACE
}  // namespace hwy
}  // namespace attn
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace attn {
namespace hwy {

HWY_EXPORT(attend_f32_tiles);
HWY_EXPORT(attend_f32_key_part);
HWY_EXPORT(attend_f32_key_probs);

void attend_f32_tiles(const detail::AttendF32& a, const detail::AttendMask& mask,
                      int32_t tile_begin, int32_t tile_end, void* slice) {
  HWY_DYNAMIC_DISPATCH(attend_f32_tiles)(a, mask, tile_begin, tile_end, slice);
}
void attend_f32_key_part(const detail::AttendF32& a, const detail::AttendMask& mask, int32_t part,
                         int32_t parts, void* slice) {
  HWY_DYNAMIC_DISPATCH(attend_f32_key_part)(a, mask, part, parts, slice);
}
void attend_f32_key_probs(const detail::AttendF32& a, const detail::AttendMask& mask, int32_t part,
                          int32_t parts, void* slices, std::size_t slice_bytes) {
  HWY_DYNAMIC_DISPATCH(attend_f32_key_probs)(a, mask, part, parts, slices, slice_bytes);
}

}  // namespace hwy
}  // namespace attn
#endif  // HWY_ONCE
