// Decoding helpers shared by the int8 reference-case tests: the case files
// (tests/reference/int8_reference.py gen) hold float32 scales as hex bit patterns,
// expected int8 outputs as hex bytes, and seeds for the xorshift32 inputs.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "case.h"

namespace int8_case {

// A float32 from its 8-hex-digit bit pattern.
inline float hex_float(const std::string& s) {
  const auto u = static_cast<uint32_t>(std::stoul(s, nullptr, 16));
  float f = 0.0f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// int8 values from two hex digits each.
inline std::vector<int8_t> hex_bytes(const std::string& s) {
  std::vector<int8_t> out(s.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<int8_t>(static_cast<uint8_t>(std::stoul(s.substr(2 * i, 2), nullptr, 16)));
  }
  return out;
}

// n values in [lo, hi] from the shared generator (same stream as the script).
inline std::vector<int8_t> draw(attn_test::Rng& r, std::size_t n, int32_t lo, int32_t hi) {
  std::vector<int8_t> v(n);
  for (auto& x : v) x = static_cast<int8_t>(r.range(0, hi - lo) + lo);
  return v;
}

}  // namespace int8_case
