// Rotary position embedding (internal; see attn/mha_decode.h for the math).
#pragma once

#include <cstdint>

#include "attn/mha_decode.h"

namespace attn {
namespace detail {

// cs[i] = cos(angle_i), cs[dims/2 + i] = sin(angle_i) for i < dims / 2, with
// angle_i = position * theta^(-2i / dims) in double precision, then rounded
// to float. No table: one pow, cos and sin per pair and token.
void rope_angles(int64_t position, const RopeConfig& rope, float* cs);

// Rotates the first rope.dims elements of one head's row x in place with the
// angles of rope_angles, pairing as rope.style says.
void rope_rotate(float* x, const RopeConfig& rope, const float* cs);

}  // namespace detail
}  // namespace attn
