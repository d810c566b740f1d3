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
