// The float16 KV cache's narrowing, f32_to_f16 of kernels_f32.h (the append),
// written once over the vector policy `O` of kernels_f32-inl.h, and the three
// policy ops it and the binary16 loads of the tile kernels (LoadB,
// kernels_f32-inl.h) use:
//   kF16            true when the target converts in hardware with the
//                   reference's bits (f16::to_f32 / f16::from_f32 of
//                   kernels/f32/f16.h): round to nearest even, NaN quieted
//                   with its payload. x86 F16C (vcvtph2ps / vcvtps2ph with
//                   the rounding in the immediate, not MXCSR), AArch64 NEON
//                   FCVTL / FCVTN and SVE FCVT (FPCR.DN = 0, round to nearest:
//                   the Linux defaults). Armv7 NEON is not: its conversions
//                   always use the default NaN.
//   LoadF16(p)      Lanes() binary16 bits at p, widened to a float vector
//   StoreF16(v, p)  v narrowed to Lanes() binary16 bits at p
// Whole vectors, two per step, the last n % Lanes() elements by the scalar
// reference; a policy without the ops converts every element with it.
//
// Not a normal header: included inside a backend's per-target namespace after
// kernels_f32-inl.h (its Sz); the includer has included kernels/f32/f16.h.

// NOLINTBEGIN(build/include_what_you_use)

namespace generic {

template <class O>
void F32ToF16(const float* f, int32_t n, uint16_t* h) {
  std::size_t i = 0;
  const std::size_t len = Sz(n);
  if constexpr (O::kF16) {
    const std::size_t N = O::Lanes();
    for (; i + 2 * N <= len; i += 2 * N) {
      const typename O::V v0 = O::LoadU(f + i), v1 = O::LoadU(f + i + N);
      O::StoreF16(v0, h + i);
      O::StoreF16(v1, h + i + N);
    }
    for (; i + N <= len; i += N) O::StoreF16(O::LoadU(f + i), h + i);
  }
  for (; i < len; ++i) h[i] = ::attn::f16::from_f32(f[i]);
}

}  // namespace generic

// NOLINTEND(build/include_what_you_use)
