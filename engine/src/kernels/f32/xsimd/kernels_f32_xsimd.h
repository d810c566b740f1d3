// Declarations of the xsimd backend's float kernels (namespace attn::xsimd),
// for tests and benchmarks that call several backends side by side. Compiled
// when backends.cmake lists xsimd in ATTN_SIMD_BACKENDS.
#pragma once

#include "kernels/f32/kernels_f32.h"

namespace attn {
namespace xsimd {
ATTN_DECLARE_F32_KERNELS
}  // namespace xsimd
}  // namespace attn
