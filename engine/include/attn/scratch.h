// Caller-owned scratch memory and the compile-time-sized workspace that owns it.
//
// Ops never allocate. Each op that needs temporary memory has a constexpr
// `<op>_scratch_bytes(shape)` and takes a Scratch view of at least that many
// bytes. Any alignment is accepted: the op aligns internally, and the byte
// counts include the slack for that.
#pragma once

#include <cstddef>
#include <cstdint>

namespace attn {

// Alignment the engine uses for every internal buffer (one cache line, one
// AVX-512 vector).
inline constexpr std::size_t kAlign = 64;

// Rounds n up to a multiple of kAlign.
constexpr std::size_t align_up(std::size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

// Bytes for `count` floats (or other 4-byte values), rounded up to kAlign.
constexpr std::size_t f32_bytes(std::size_t count) { return align_up(count * 4u); }

// Saturating size arithmetic for the constexpr *_scratch_bytes formulas: they
// compute in 64 bits and a result that does not fit the address space becomes
// SIZE_MAX, which no caller can provide (the op then returns kScratchTooSmall),
// instead of wrapping to a small number on 32-bit targets.
namespace sat {
inline constexpr uint64_t kMax = ~uint64_t{0};
constexpr uint64_t mul(uint64_t a, uint64_t b) { return (a != 0 && b > kMax / a) ? kMax : a * b; }
constexpr uint64_t add(uint64_t a, uint64_t b) { return b > kMax - a ? kMax : a + b; }
// align64(4 * a * b) bytes, saturated.
constexpr uint64_t f32_bytes(uint64_t a, uint64_t b = 1) {
  const uint64_t n = mul(mul(a, b), 4);
  return n > kMax - (kAlign - 1) ? kMax : (n + kAlign - 1) / kAlign * kAlign;
}
constexpr std::size_t to_size(uint64_t n) {
  return n > static_cast<uint64_t>(~std::size_t{0}) ? ~std::size_t{0} : static_cast<std::size_t>(n);
}
}  // namespace sat

// The size arithmetic of the cores' layout structs (SdpaF32Layout,
// SdpaS8RowLayout, SdpaS8TileLayout), so that one struct gives both the public
// byte counts and the offsets the core carves:
//   SatBytes  64-bit saturating (the constexpr *_scratch_bytes of any shape)
//   RawBytes  size_t, plain (the core's carving of a shape the op validated)
// block(a, b, elem) = align64(a * b * elem) bytes.
struct SatBytes {
  using T = uint64_t;
  static constexpr T add(T a, T b) { return sat::add(a, b); }
  static constexpr T block(T a, T b = 1, T elem = 1) {
    const T n = sat::mul(sat::mul(a, b), elem);
    return n > sat::kMax - (kAlign - 1) ? sat::kMax : (n + kAlign - 1) / kAlign * kAlign;
  }
};
struct RawBytes {
  using T = std::size_t;
  static constexpr T add(T a, T b) { return a + b; }
  static constexpr T block(T a, T b = 1, T elem = 1) { return align_up(a * b * elem); }
};

// A view of caller memory: `bytes` bytes starting at `data`.
struct Scratch {
  void* data = nullptr;
  std::size_t bytes = 0;
};

// Fixed-size, 64-byte-aligned storage for one op's scratch. Declare it with the
// op's constexpr scratch size, e.g.
//   static attn::Workspace<attn::sdpa_f32_scratch_bytes({1, 64, 64, 64, 64})> ws;
// so that sizeof(ws) is the RAM the op needs, known at compile time.
template <std::size_t kBytes>
struct Workspace {
  static_assert(kBytes > 0, "an op needing no scratch needs no Workspace");
  alignas(kAlign) unsigned char storage[kBytes];
  Scratch scratch() { return Scratch{storage, kBytes}; }
};

}  // namespace attn
