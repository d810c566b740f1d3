// Register blocks for the SIMD kernel templates (kernels_f32-inl.h,
// gemm_f32-inl.h).
//
// SVE vectors are sizeless types: they cannot be array elements, so every
// register block is a set of named variables, one per index, spelled out by
// these lists: ATTN_EACH<n>(X, a) is X(a, 0) X(a, 1) ... X(a, n - 1); two
// different lists nest into a grid (ATTN_EACH4(ATTN_EACH8, X) is X(r, c) for
// r < 4, c < 8). Names past a template's block size are never read (guarded by
// `if constexpr`) and compile to nothing. A kernel defines its per-element
// macros right before use and undefines them after.
#pragma once

#define ATTN_EACH4(X, a) X(a, 0) X(a, 1) X(a, 2) X(a, 3)
#define ATTN_EACH8(X, a) X(a, 0) X(a, 1) X(a, 2) X(a, 3) X(a, 4) X(a, 5) X(a, 6) X(a, 7)
// clang-format 14 lays this macro out differently on every run:
// clang-format off
#define ATTN_EACH16(X, a)                                                     \
  X(a, 0) X(a, 1) X(a, 2) X(a, 3) X(a, 4) X(a, 5) X(a, 6) X(a, 7) X(a, 8)     \
  X(a, 9) X(a, 10) X(a, 11) X(a, 12) X(a, 13) X(a, 14) X(a, 15)
// clang-format on
