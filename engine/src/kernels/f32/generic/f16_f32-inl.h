// The float16 KV cache's row conversions, f16_to_f32 and f32_to_f16 of
// kernels_f32.h, written once over the vector policy `O` of
// kernels_f32-inl.h with three more policy ops:
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
// Whole vectors, four per step (the block of a cache row is converted once
// into the float tile the attention reads), the last n % Lanes() elements
// by the scalar reference; a policy without the ops converts every element
// with it.
//
// Not a normal header: included inside a backend's per-target namespace after
// kernels_f32-inl.h (its Sz); the includer has included kernels/f32/f16.h.

// NOLINTBEGIN(build/include_what_you_use)

namespace generic {

template <class O>
void F16ToF32(const uint16_t* h, int32_t n, float* f) {
  std::size_t i = 0;
  const std::size_t len = Sz(n);
  if constexpr (O::kF16) {
    const std::size_t N = O::Lanes();
    for (; i + 4 * N <= len; i += 4 * N) {
      const typename O::V v0 = O::LoadF16(h + i), v1 = O::LoadF16(h + i + N);
      const typename O::V v2 = O::LoadF16(h + i + 2 * N), v3 = O::LoadF16(h + i + 3 * N);
      O::StoreU(v0, f + i);
      O::StoreU(v1, f + i + N);
      O::StoreU(v2, f + i + 2 * N);
      O::StoreU(v3, f + i + 3 * N);
    }
    for (; i + N <= len; i += N) O::StoreU(O::LoadF16(h + i), f + i);
  }
  for (; i < len; ++i) f[i] = ::attn::f16::to_f32(h[i]);
}

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
