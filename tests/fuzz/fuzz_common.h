// Helpers shared by the fuzz targets (host only; the targets may allocate).
//
// Every target defines LLVMFuzzerTestOneInput. Built with ATTN_FUZZ=ON and
// Clang it links libFuzzer; otherwise replay_main.cpp runs it once on every
// file named on the command line (the seed corpus and the regression inputs),
// so the corpus doubles as a regression test in every host build.
//
// A violated contract (an op accepting arguments its header says it rejects,
// writing to an output when it returns an error, producing NaN from finite
// inputs, ...) calls FUZZ_CHECK, which prints the condition and aborts: the
// fuzzer records the input as a crash.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <utility>

#define FUZZ_CHECK(cond)                                                                 \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)

namespace attn_fuzz {

// Reads the fuzz input as a stream of small decisions; an exhausted input
// reads as zeros, so every input is a complete (if short) test.
class Reader {
 public:
  Reader(const uint8_t* data, std::size_t size) : p_(data), n_(size) {}

  uint8_t u8() { return pos_ < n_ ? p_[pos_++] : 0; }
  uint16_t u16() { return static_cast<uint16_t>(u8() | (u8() << 8)); }
  uint32_t u32() { return static_cast<uint32_t>(u16()) | (static_cast<uint32_t>(u16()) << 16); }
  bool flag() { return (u8() & 1) != 0; }
  std::size_t remaining() const { return n_ - pos_; }

  // A dimension: mostly small (-1..12), sometimes an edge value (0, the
  // engine's limits, values that overflow products, negatives).
  int32_t dim() {
    const uint8_t b = u8();
    if (b < 224) return static_cast<int32_t>(b % 14) - 1;
    static constexpr int32_t kEdge[] = {0,     -1,    1,         63,        64,      65,
                                        127,   129,   4095,      4096,      1 << 20, (1 << 20) + 1,
                                        46341, 65536, INT32_MAX, INT32_MIN, -65536,  33025,
                                        33026, 3,     2,         7,         8,       9,
                                        16,    17,    31,        32,        100,     255,
                                        256,   1000};
    return kEdge[(b - 224) % (sizeof(kEdge) / sizeof(kEdge[0]))];
  }

  // A float parameter such as a scale: 0, small positive or negative values,
  // NaN, +-Inf, denormals, huge values.
  float param() {
    const uint8_t b = u8();
    switch (b % 12) {
      case 0: return 0.0f;
      case 1: return -1.0f;
      case 2: return NAN;
      case 3: return INFINITY;
      case 4: return -INFINITY;
      case 5: return 1e-40f;
      case 6: return 3e38f;
      case 7: return -0.0f;
      default: {
        const uint32_t bits = u32();
        float f;
        std::memcpy(&f, &bits, sizeof f);
        // Either raw bits or a tame value in (0, 4).
        return (b & 0x80) ? f : static_cast<float>(bits % 4000u + 1u) * 1e-3f;
      }
    }
  }

  // A tensor value: small and finite (k/16, |k| <= 128) so outputs can be
  // checked; `wild` lets it also be NaN, Inf or huge.
  float value(bool wild) {
    const uint8_t b = u8();
    if (wild && b >= 250) {
      static constexpr float kWild[] = {NAN, INFINITY, -INFINITY, 3e38f, -3e38f, 1e-45f};
      return kWild[b - 250];
    }
    return static_cast<float>(static_cast<int8_t>(b)) / 16.0f;
  }

 private:
  const uint8_t* p_;
  std::size_t n_;
  std::size_t pos_ = 0;
};

// Element count of a buffer of the given dims (negative dims count as 0),
// saturating at `cap` + 1 so callers can test "too big" without overflow.
inline uint64_t count(std::initializer_list<int64_t> dims, uint64_t cap) {
  uint64_t n = 1;
  for (int64_t d : dims) {
    const uint64_t u = d > 0 ? static_cast<uint64_t>(d) : 0;
    if (u == 0) return 0;
    if (n > cap / u) return cap + 1;
    n *= u;
  }
  return n;
}

// A heap buffer of exactly n elements (at least one allocated so that data()
// is not null), so AddressSanitizer flags any access past element n - 1.
// The allocation is exact: one element past the end is already a redzone.
template <class T>
class Buf {
 public:
  Buf() = default;
  explicit Buf(uint64_t n) : n_(static_cast<std::size_t>(n)) {
    p_ = static_cast<T*>(std::calloc(n_ > 0 ? n_ : 1, sizeof(T)));
    FUZZ_CHECK(p_ != nullptr);
  }
  Buf(const Buf&) = delete;
  Buf& operator=(const Buf&) = delete;
  Buf& operator=(Buf&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  ~Buf() { std::free(p_); }
  T* data() { return p_; }
  const T* data() const { return p_; }
  std::size_t size() const { return n_; }
  T& operator[](std::size_t i) { return p_[i]; }
  void fill(Reader& in, bool wild) {
    for (std::size_t i = 0; i < n_; ++i) p_[i] = static_cast<T>(in.value(wild));
  }
  // A recognisable pattern the op must leave alone when it fails.
  void poison() { std::memset(p_, 0x5a, n_ * sizeof(T)); }
  bool untouched() const {
    const auto* b = reinterpret_cast<const unsigned char*>(p_);
    for (std::size_t i = 0; i < n_ * sizeof(T); ++i) {
      if (b[i] != 0x5a) return false;
    }
    return true;
  }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

// Caller scratch of a fuzzed size and alignment, allocated exactly so that a
// write past scratch.bytes is caught.
class FuzzScratch {
 public:
  FuzzScratch(Reader& in, std::size_t required, std::size_t cap) {
    const uint8_t mode = in.u8();
    offset_ = in.u8() % 64;
    switch (mode % 8) {
      case 0: bytes_ = required > 0 ? required - 1 - (in.u8() % required) : 0; break;
      case 1: bytes_ = 0; break;
      case 2:
        null_ = true;
        bytes_ = required;
        break;
      case 3: bytes_ = required + in.u8(); break;
      default: bytes_ = required; break;
    }
    if (bytes_ > cap) {
      too_big_ = true;
      return;
    }
    base_ = static_cast<unsigned char*>(std::malloc(offset_ + bytes_ > 0 ? offset_ + bytes_ : 1));
    FUZZ_CHECK(base_ != nullptr);
    std::memset(base_, 0xa5, offset_ + bytes_);
  }
  FuzzScratch(const FuzzScratch&) = delete;
  FuzzScratch& operator=(const FuzzScratch&) = delete;
  ~FuzzScratch() { std::free(base_); }

  bool too_big() const { return too_big_; }
  bool is_null() const { return null_; }
  std::size_t bytes() const { return bytes_; }
  void* data() { return null_ ? nullptr : base_ + offset_; }

 private:
  unsigned char* base_ = nullptr;
  std::size_t offset_ = 0;
  std::size_t bytes_ = 0;
  bool null_ = false;
  bool too_big_ = false;
};

// ATTN_FUZZ_VERBOSE=1 makes the targets print what each input reached
// (to check that a seed corpus gets past validation).
inline void note(const char* what, const char* result) {
  static const bool on = std::getenv("ATTN_FUZZ_VERBOSE") != nullptr;
  if (on) std::fprintf(stderr, "%s: %s\n", what, result);
}

inline bool all_finite(const float* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(p[i])) return false;
  }
  return true;
}

}  // namespace attn_fuzz
