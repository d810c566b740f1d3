// Register blocks of the Cortex-M scalar-FPU kernels (kernels/f32/mcu).
//
// The FPU has 32 single-precision registers (s0-s31): a 4 x 4 block of
// accumulators takes 16, its operands 8 more. The blocks are arrays indexed by
// constant loops; ATTN_MCU_UNROLL unrolls them completely, so every element
// lives in its own register (GCC -O2 would otherwise keep short loops rolled
// and the arrays on the stack).
#pragma once

#include <cstdint>

#define ATTN_MCU_UNROLL _Pragma("GCC unroll 4")

// A block is its own leaf function: inlined into the loops over blocks, its
// registers and theirs would spill into one large frame, and the ops'
// worst-case stack (tests/baremetal/ops/stack_budget.json) runs through it.
#define ATTN_MCU_LEAF __attribute__((noinline))

// The loops over blocks run once per block: optimised for size (and their
// helpers inlined), GCC keeps them in a few registers instead of hoisting
// every invariant address into a frame of spills that adds to the ops'
// worst-case stack (at -O2: 72 bytes for P.V's loops; at -Os: 56).
#define ATTN_MCU_OUTER __attribute__((optimize("Os")))
#define ATTN_MCU_INLINE __attribute__((always_inline)) inline

// Makes the compiler forget how pointer p was computed. A block walks its
// rows with one pointer (row += stride, then this): the elements are then
// addressed as [row, #offset] instead of one precomputed address per element,
// which GCC would otherwise hold (or spill to the stack) across the loop.
#define ATTN_MCU_OPAQUE(p) __asm__("" : "+r"(p))

namespace attn {
namespace mcu {

// Queries by keys in Q.K^T, queries by output columns in P.V.
inline constexpr int32_t kMcuBlock = 4;

}  // namespace mcu
}  // namespace attn
