// A fragment of kernels_s8_x86.cpp, included by that one translation unit
// only: its definitions cannot be duplicated across units.
// NOLINTBEGIN(misc-definitions-in-headers)
// x86 int8 query-tile GEMMs: the vector ops of levels 3 and 2 over the one
// tile body (kernels_s8_tile_x86-inl.h; part of kernels_s8_x86.cpp, inside
// its anonymous namespace).

// ------------------------------------------------------------- query tiles
// qk_tile_s8 / pv_tile_s8 at levels 2 and 3: one body
// (kernels_s8_tile_x86-inl.h) over each level's vector ops.
namespace tile512 {
using V = __m512i;
constexpr int kLanes = 16;
constexpr int kQkRows = 8;   // 8 rows x 2 key vectors: 16 accumulators
constexpr int kQkRows4 = 4;  // 4 rows x 4 key vectors: 16 accumulators
constexpr int kPvRows = 4;   // 4 rows x 4 column vectors
ATTN_T_AVX512 inline V zero() { return _mm512_setzero_si512(); }
ATTN_T_AVX512 inline V load(const void* p) { return _mm512_loadu_si512(p); }
ATTN_T_AVX512 inline V set1(int32_t x) { return _mm512_set1_epi32(x); }
// vpdpbusd in asm: GCC 12 copies (and spills) arrays of accumulators around
// the intrinsic every iteration; the tied operand keeps them in registers.
ATTN_T_AVX512 inline V dp(V acc, V u, V s) {
  __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(u), "v"(s));
  return acc;
}
ATTN_T_AVX512 inline V sub(V a, V b) { return _mm512_sub_epi32(a, b); }
ATTN_T_AVX512 inline V mul(V a, V b) { return _mm512_mullo_epi32(a, b); }
ATTN_T_AVX512 inline void store(void* p, V v) { _mm512_storeu_si512(p, v); }
#define ATTN_TILE_T ATTN_T_AVX512
// The body, then its fused requantization (not sorted).
// clang-format off
#include "kernels/s8/x86/kernels_s8_tile_x86-inl.h"
#include "kernels/s8/x86/kernels_s8_tile_rq_avx512-inl.h"
// clang-format on
#undef ATTN_TILE_T
}  // namespace tile512

namespace tile256 {
using V = __m256i;
constexpr int kLanes = 8;
constexpr int kQkRows = 4;   // 4 rows x 2 key vectors: 8 accumulators
constexpr int kQkRows4 = 4;  // unused (4 key vectors: 512-bit only)
constexpr int kPvRows = 2;   // 2 rows x 4 column vectors
ATTN_T_AVXVNNI inline V zero() { return _mm256_setzero_si256(); }
ATTN_T_AVXVNNI inline V load(const void* p) {
  return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}
ATTN_T_AVXVNNI inline V set1(int32_t x) { return _mm256_set1_epi32(x); }
ATTN_T_AVXVNNI inline V dp(V acc, V u, V s) {
  __asm__("%{vex%} vpdpbusd %2, %1, %0" : "+x"(acc) : "x"(u), "x"(s));
  return acc;
}
ATTN_T_AVXVNNI inline V sub(V a, V b) { return _mm256_sub_epi32(a, b); }
ATTN_T_AVXVNNI inline V mul(V a, V b) { return _mm256_mullo_epi32(a, b); }
ATTN_T_AVXVNNI inline void store(void* p, V v) { _mm256_storeu_si256(static_cast<__m256i*>(p), v); }
#define ATTN_TILE_T ATTN_T_AVXVNNI
#include "kernels/s8/x86/kernels_s8_tile_x86-inl.h"
#undef ATTN_TILE_T
}  // namespace tile256
// NOLINTEND(misc-definitions-in-headers)
