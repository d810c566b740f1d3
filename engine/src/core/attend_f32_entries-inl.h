// The float SDPA core's entries over one kernel set: attend_f32_tiles,
// attend_f32_key_part and attend_f32_key_probs (attend_f32.h documents
// them), each one call of its loop in attend_f32_loop-inl.h instantiated over
// the includer's kernel set LoopKernels. Written once for the two places that
// define them: attend_f32.cpp (namespace attn::detail, the build's backend)
// and kernels/f32/hwy/attend_f32_hwy.cpp (each Highway target's namespace,
// that target's kernels; attn::hwy dispatches to them).
//
// Not a normal header: the includer has included attend_f32_loop-inl.h and
// defined LoopKernels (attend_f32_loop-inl.h: K) where this file is included.
// No include guard: a Highway build includes it once per target.
// Definitions in a header by design.
// NOLINTBEGIN(misc-definitions-in-headers)

void attend_f32_tiles(const AttendF32& a, const AttendMask& mask, int32_t tile_begin,
                      int32_t tile_end, void* slice) {
  run_tiles<LoopKernels>(a, mask, tile_begin, tile_end, slice);
}

void attend_f32_key_part(const AttendF32& a, const AttendMask& mask, int32_t part, int32_t parts,
                         void* slice) {
  key_part<LoopKernels>(a, mask, part, parts, slice);
}

void attend_f32_key_probs(const AttendF32& a, const AttendMask& mask, int32_t part, int32_t parts,
                          void* slices, std::size_t slice_bytes) {
  key_probs<LoopKernels>(a, mask, part, parts, slices, slice_bytes);
}

// NOLINTEND(misc-definitions-in-headers)
