// The int8 kernel set of this build, chosen once at build time from the
// compiler's target macros: the first line whose test holds. Each set's
// header (kernels/s8/<isa>/kernel_set_<isa>.h) defines ATTN_S8_KERNELS_<ISA>,
// its tuning constants, and one ATTN_S8_HAS_<GROUP> per kernel group its
// folder implements; the reference file (kernels/s8/ref/) supplies every entry
// of a group the set does not name. Adding an ISA: its folder, one line here,
// one line in s8.cmake.
#pragma once

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include "kernels/s8/mve/kernel_set_mve.h"
#elif defined(__ARM_FEATURE_DSP) && defined(__ARM_FEATURE_SIMD32)
#include "kernels/s8/dsp/kernel_set_dsp.h"
#elif defined(__aarch64__) && defined(__ARM_NEON)
#include "kernels/s8/neon/kernel_set_neon.h"
#elif defined(__x86_64__) && defined(__GNUC__)
#include "kernels/s8/x86/kernel_set_x86.h"
#else
#include "kernels/s8/ref/kernel_set_ref.h"
#endif
