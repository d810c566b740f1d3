// int8 kernels of the int8 ops (internal). Each has a portable reference
// (`*_ref`, always built: the oracle) and the entry the ops call, which is the
// fastest version this build targets (Cortex-M DSP, Helium) or the reference.
// Every version gives identical int32 results.
#pragma once

#include <cstdint>

namespace attn {
namespace detail {

// Returns sum_i a[i] * b[i] and stores sum_i b[i] in *sum_b; n >= 0.
// Exact (no int32 overflow) for n <= 131072.
int32_t dot_s8_ref(const int8_t* a, const int8_t* b, int32_t n, int32_t* sum_b);
int32_t dot_s8(const int8_t* a, const int8_t* b, int32_t n, int32_t* sum_b);

// acc[i] += w * b[i] for i < n; w in [0, 255].
void mac_s8_ref(int32_t* acc, const int8_t* b, int32_t w, int32_t n);
void mac_s8(int32_t* acc, const int8_t* b, int32_t w, int32_t n);

// Name of the kernel set dot_s8 / mac_s8 use ("ref", "dsp", "mve").
const char* kernels_s8_name();

}  // namespace detail
}  // namespace attn
