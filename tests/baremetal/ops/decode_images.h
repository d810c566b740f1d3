// The decoder-step op images (decode_images.cpp), linked into op images 14
// (mha_decode_f32), 15 (mha_decode_s8) and the all-ops image 99.
#pragma once

// Each runs its op's decode steps on the footprint shape and returns the
// number of failed calls (0 when the image does not hold the op).
int run_mha_decode_f32_image();
int run_mha_decode_s8_image();
