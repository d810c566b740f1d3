// Benchmark buffers aligned to 64 bytes (a cache line, one AVX-512 vector),
// as a firmware or application buffer usually is: std::vector's allocator
// only guarantees 16, which moved the P V tile by about 10% in isolation and
// made results depend on where malloc happened to place each buffer.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace attn_bench {

template <class T>
struct Aligned64 {
  using value_type = T;
  static constexpr std::align_val_t kAlign{64};
  Aligned64() = default;
  template <class U>
  Aligned64(const Aligned64<U>&) {}  // NOLINT(google-explicit-constructor): allocator rebind
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlign)); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, kAlign); }
  template <class U>
  bool operator==(const Aligned64<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const Aligned64<U>&) const {
    return false;
  }
};

template <class T>
using AlignedVec = std::vector<T, Aligned64<T>>;

}  // namespace attn_bench
