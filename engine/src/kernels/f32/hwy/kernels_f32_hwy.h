// Declarations of the Highway backend's float kernels (namespace attn::hwy),
// for tests and benchmarks that call several backends side by side. Compiled
// when backends.cmake lists hwy in ATTN_SIMD_BACKENDS.
//
// Each call dispatches once to the best Highway target the CPU supports (on
// x86); tests select other targets with ::hwy::SetSupportedTargetsForTest.
#pragma once

#include "kernels/f32/kernels_f32.h"

namespace attn {
namespace hwy {
ATTN_DECLARE_F32_KERNELS
}  // namespace hwy
}  // namespace attn
