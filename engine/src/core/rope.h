// Rotary position embedding (internal; see attn/mha_decode.h for the math).
#pragma once

#include <cstdint>

#include "attn/mha_decode.h"

namespace attn {
namespace detail {

// cs[i] = cos(angle_i), cs[dims/2 + i] = sin(angle_i) for i < dims / 2, with
// angle_i = position * theta^(-2i / dims), rounded to float. No table. With a
// double-precision FPU or a hosted target: in double (one exp, cos and sin
// per pair and token); with a single-precision-only FPU (Cortex-M4, M33): the
// int8 op's integer phase reduction (core/rope_s8.h), cos and sin in Q1.30.
// Neither forms the angle as a float: the double angle's error grows as
// position * 2^-53 rad, the integer phase is exact modulo one turn.
void rope_angles(int64_t position, const RopeConfig& rope, float* cs);

// Rotates the first rope.dims elements of one head's row x in place with the
// angles of rope_angles, pairing as rope.style says.
void rope_rotate(float* x, const RopeConfig& rope, const float* cs);

}  // namespace detail
}  // namespace attn
