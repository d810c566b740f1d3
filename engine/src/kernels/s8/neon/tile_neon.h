// Pieces shared by the AArch64 tile GEMM files (internal; included inside
// their dot product target regions, so each has its own copy): the row
// blocking, the fused requantizing store, the weight-row sums.
#pragma once

#include <arm_neon.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/s8/neon/requantize_neon.h"

#define ATTN_INLINE inline __attribute__((always_inline))

namespace attn {
namespace detail {
namespace {

constexpr int kRows = 4;  // query rows per GEMM block

// Rows i0 .. nq of a tile in blocks of kRows, then the 1-3 left: f.template
// operator()<R>(first row) per block.
template <typename Block>
ATTN_INLINE void row_blocks(int32_t nq, Block f) {
  int32_t i = 0;
  for (; i + kRows <= nq; i += kRows) f(std::integral_constant<int, kRows>{}, i);
  switch (nq - i) {
    case 3: f(std::integral_constant<int, 3>{}, i); break;
    case 2: f(std::integral_constant<int, 2>{}, i); break;
    case 1: f(std::integral_constant<int, 1>{}, i); break;
    default: break;
  }
}

// The fused requantizations: 16 int32 of a row (offset already subtracted)
// to int8 at o, `count` of them (1..16).
template <int kMode>
ATTN_INLINE void store_rq(const RequantizeNeon& rq, const int32x4_t (&v)[4], int8_t* o,
                          int32_t count) {
  const int8x16_t b = rq.to_s8<kMode>(v);
  if (count >= 16) {
    vst1q_s8(o, b);
  } else {
    alignas(16) int8_t tmp[16];
    vst1q_s8(tmp, b);
    std::memcpy(o, tmp, static_cast<std::size_t>(count));
  }
}

// sum of the first `len` bytes of w (len a multiple of 4).
ATTN_INLINE uint32_t byte_sum(const uint8_t* w, int32_t len) {
  const uint8x16_t ones = vdupq_n_u8(1);
  uint32x4_t s = vdupq_n_u32(0);
  int32_t c = 0;
  for (; c + 16 <= len; c += 16) s = vdotq_u32(s, vld1q_u8(w + c), ones);
  uint32_t t = vaddvq_u32(s);
  for (; c < len; ++c) t += w[c];
  return t;
}

}  // namespace
}  // namespace detail
}  // namespace attn
