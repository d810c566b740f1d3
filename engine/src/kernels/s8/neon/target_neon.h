// The target pragmas that compile the dot-product (SDOT/UDOT) and I8MM
// (USMMLA) kernels into any AArch64 build; the run-time level (HWCAP) decides
// whether they run. arm_neon.h declares vdot/vmmla for Armv8.2-A and up, so a
// plain armv8-a base is raised to armv8.2-a; a base that is already there
// (SVE, or the dot product itself) only gains the extension, so that functions
// compiled for the base (always_inline helpers included) still inline here.
#pragma once

#if defined(__ARM_FEATURE_SVE) || defined(__ARM_FEATURE_DOTPROD)
#define ATTN_TARGET_DOTPROD _Pragma("GCC target(\"+dotprod\")")
#define ATTN_TARGET_I8MM _Pragma("GCC target(\"+dotprod+i8mm\")")
#else
#define ATTN_TARGET_DOTPROD _Pragma("GCC target(\"arch=armv8.2-a+dotprod\")")
#define ATTN_TARGET_I8MM _Pragma("GCC target(\"arch=armv8.2-a+dotprod+i8mm\")")
#endif
