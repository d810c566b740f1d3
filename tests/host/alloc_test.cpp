// Proves the engine's float ops never allocate: every way a C++ program on
// glibc can reach the heap is replaced by a counting version, the counters are
// armed around each op call, and the test demands zero. A control test proves
// the counters work: a std::vector, a raw malloc and a new expression inside
// the armed window ARE counted.
//
// How the counting works (no LD_PRELOAD, no hooks glibc has removed):
//   - malloc, calloc, realloc, free, aligned_alloc, posix_memalign, memalign
//     are defined in this executable. The dynamic linker resolves every
//     library's reference to them (libstdc++'s operator new included) to the
//     executable's definition first: ELF symbol interposition. They forward to
//     glibc's exported __libc_malloc family.
//   - every replaceable global operator new / delete (plain, array, nothrow,
//     aligned, sized) is replaced, as [replacement.functions] allows, and
//     counted separately, in case a toolchain's operator new bypasses malloc.
// Under AddressSanitizer/ThreadSanitizer the sanitizer runtime owns malloc,
// so only operator new/delete are replaced there.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <new>
#include <vector>

#include "attn/attn.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define ATTN_ALLOC_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ATTN_ALLOC_TEST_SANITIZED 1
#endif

namespace {

// Plain globals: the test is single-threaded, and these must not allocate.
bool g_armed = false;
long g_malloc_calls = 0;  // malloc family, including free of non-null
long g_new_calls = 0;     // operator new / delete family

#if !defined(ATTN_ALLOC_TEST_SANITIZED)
void count_malloc() {
  if (g_armed) ++g_malloc_calls;
}
#endif
void count_new() {
  if (g_armed) ++g_new_calls;
}

// Keeps a pointer observable so the compiler cannot elide an allocation.
void escape(const void* p) { asm volatile("" : : "g"(p) : "memory"); }

struct Counts {
  long malloc_calls;
  long new_calls;
};

void arm() {
  g_malloc_calls = 0;
  g_new_calls = 0;
  g_armed = true;
}

Counts disarm() {
  g_armed = false;
  return {g_malloc_calls, g_new_calls};
}

}  // namespace

#if !defined(ATTN_ALLOC_TEST_SANITIZED)
extern "C" {
void* __libc_malloc(std::size_t n);
void* __libc_calloc(std::size_t n, std::size_t size);
void* __libc_realloc(void* p, std::size_t n);
void __libc_free(void* p);
void* __libc_memalign(std::size_t align, std::size_t n);

void* malloc(std::size_t n) {
  count_malloc();
  return __libc_malloc(n);
}
void* calloc(std::size_t n, std::size_t size) {
  count_malloc();
  return __libc_calloc(n, size);
}
void* realloc(void* p, std::size_t n) {
  count_malloc();
  return __libc_realloc(p, n);
}
void free(void* p) {
  if (p != nullptr) count_malloc();
  __libc_free(p);
}
void* aligned_alloc(std::size_t align, std::size_t n) {
  count_malloc();
  return __libc_memalign(align, n);
}
void* memalign(std::size_t align, std::size_t n) {
  count_malloc();
  return __libc_memalign(align, n);
}
int posix_memalign(void** out, std::size_t align, std::size_t n) {
  count_malloc();
  void* p = __libc_memalign(align, n);
  if (p == nullptr) return 12;  // ENOMEM
  *out = p;
  return 0;
}
}  // extern "C"
#endif

// Replaceable global allocation functions. They allocate through malloc,
// which (unsanitized) is the counting one above as well.
void* operator new(std::size_t n) {
  count_new();
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) std::abort();
  return p;
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  count_new();
  return std::malloc(n == 0 ? 1 : n);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void* operator new(std::size_t n, std::align_val_t a) {
  count_new();
  const auto al = static_cast<std::size_t>(a);
  void* p = std::aligned_alloc(al, (n + al - 1) / al * al);
  if (p == nullptr) std::abort();
  return p;
}
void* operator new[](std::size_t n, std::align_val_t a) { return operator new(n, a); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  count_new();
  const auto al = static_cast<std::size_t>(a);
  return std::aligned_alloc(al, (n + al - 1) / al * al);
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t& t) noexcept {
  return operator new(n, a, t);
}
namespace {
// Every operator delete ends here (one helper, so no variant "calls" another).
void release(void* p) noexcept {
  if (p != nullptr) count_new();
  std::free(p);
}
}  // namespace

void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete(void* p, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p); }

namespace {

// Inputs for every op, allocated before the counters are armed.
struct Data {
  explicit Data(std::size_t n) : a(n), b(n), c(n), w1(n), w2(n), w3(n), w4(n), bias(n) {
    uint32_t s = 12345;
    for (std::vector<float>* v : {&a, &b, &c, &w1, &w2, &w3, &w4, &bias}) {
      for (float& x : *v) {
        s = s * 1664525u + 1013904223u;
        x = static_cast<float>(s >> 8) / 16777216.0f - 0.5f;
      }
    }
  }
  std::vector<float> a, b, c, w1, w2, w3, w4, bias;
};

constexpr std::size_t kN = 4096;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

TEST(Allocation, CountersSeeVectorMallocAndNew) {
  arm();
  {
    std::vector<int> v(100, 7);
    escape(v.data());
  }
  const Counts after_vector = disarm();
  EXPECT_GE(after_vector.new_calls, 2) << "std::vector's new + delete were not counted";
#if !defined(ATTN_ALLOC_TEST_SANITIZED)
  EXPECT_GE(after_vector.malloc_calls, 2) << "operator new's malloc + free were not counted";
  arm();
  void* p = std::malloc(64);
  escape(p);
  std::free(p);
  const Counts after_malloc = disarm();
  EXPECT_EQ(after_malloc.malloc_calls, 2);
  EXPECT_EQ(after_malloc.new_calls, 0);
#endif
  arm();
  int* q = new int(3);
  escape(q);
  delete q;
  EXPECT_GE(disarm().new_calls, 2);
}

TEST(Allocation, NoFloatOpAllocates) {
  Data d(kN);
  std::vector<float> out(kN), weights(kN);
  std::vector<unsigned char> scratch(1 << 16);
  const attn::Scratch s{scratch.data() + 1, scratch.size() - 1};  // unaligned on purpose
  std::vector<float> keras(64, 0.0f), additive(64, 0.25f);
  std::vector<uint8_t> boolean(64, 0);
  keras[3] = 1.0f;
  additive[5] = kNegInf;
  boolean[7] = 1;
  const int32_t lens[2] = {3, 4};

  attn::Mask mask;
  mask.causal = true;
  mask.key_lengths = lens;
  mask.keras = keras.data();
  mask.additive = additive.data();
  mask.boolean = boolean.data();
  mask.matrix_batch_stride = 12;  // [2, 3, 4] matrices

  struct Named {
    const char* name;
    attn::Status status;
  };
  std::vector<Named> results;
  results.reserve(16);

  arm();
  {
    attn::SdpaF32Args a;
    a.q = d.a.data();
    a.k = d.b.data();
    a.v = d.c.data();
    a.out = out.data();
    a.weights = weights.data();
    a.mask = mask;
    results.push_back({"sdpa_f32", attn::sdpa_f32({2, 3, 4, 5, 6}, a, s)});
  }
  for (int mode = 0; mode < 2; ++mode) {
    for (int packed = 0; packed < 2; ++packed) {
      attn::MhaF32Weights w;
      attn::MhaShape shape{2, 3, 4, 8, 2, 0, 0};
      if (packed != 0) {
        w.in_proj_weight = d.w1.data();
      } else {
        shape.kdim = 5;
        shape.vdim = 3;
        w.q_proj_weight = d.w1.data();
        w.k_proj_weight = d.w2.data();
        w.v_proj_weight = d.w3.data();
      }
      w.in_proj_bias = d.bias.data();
      w.out_proj_weight = d.w4.data();
      w.out_proj_bias = d.bias.data();
      attn::MhaF32Args a;
      a.query = d.a.data();
      a.key = d.b.data();
      a.value = d.c.data();
      a.out = out.data();
      a.weights = weights.data();
      a.weights_mode = mode == 0 ? attn::MhaWeightsMode::kAveraged : attn::MhaWeightsMode::kPerHead;
      a.mask = mask;
      results.push_back({"mha_f32", attn::mha_f32(shape, w, a, s)});
    }
  }
  {
    attn::BahdanauF32Weights w;
    w.w1 = d.w1.data();
    w.b1 = d.bias.data();
    w.w2 = d.w2.data();
    w.b2 = d.bias.data();
    w.v = d.w3.data();
    w.bv = 0.5f;
    attn::BahdanauF32Args a;
    a.query = d.a.data();
    a.keys = d.b.data();
    a.context = out.data();
    a.weights = weights.data();
    a.key_lengths = lens;
    results.push_back({"bahdanau_f32", attn::bahdanau_f32({2, 70, 5, 6, 7}, w, a, s)});
  }
  {
    attn::LuongF32Args a;
    a.query = d.a.data();
    a.keys = d.b.data();
    a.context = out.data();
    a.weights = weights.data();
    a.key_lengths = lens;
    results.push_back({"luong_dot_f32", attn::luong_dot_f32({2, 70, 6}, a, s)});
    results.push_back({"luong_general_f32",
                       attn::luong_general_f32({2, 70, 5, 6}, {d.w1.data(), d.bias.data()}, a, s)});
  }
  {
    attn::GeneralAttentionF32Args a;
    a.x = d.a.data();
    a.out = out.data();
    a.weights = weights.data();
    a.mask = mask;
    a.mask.matrix_batch_stride = 16;  // [2, 4, 4]
    results.push_back({"general_attention_f32",
                       attn::general_attention_f32({2, 4, 3, 5, 6},
                                                   {d.w1.data(), d.w2.data(), d.w3.data()}, a, s)});
  }
  {
    // An error path must not allocate either.
    attn::SdpaF32Args a;
    results.push_back({"sdpa_f32 (null args)", attn::sdpa_f32({1, 1, 1, 1, 1}, a, s)});
  }
  const Counts c = disarm();
  EXPECT_EQ(c.malloc_calls, 0) << "malloc/calloc/realloc/free called during an op";
  EXPECT_EQ(c.new_calls, 0) << "operator new/delete called during an op";
  ASSERT_EQ(results.size(), 10u);
  for (std::size_t i = 0; i + 1 < results.size(); ++i) {
    EXPECT_EQ(results[i].status, attn::Status::kOk) << results[i].name;
  }
  EXPECT_EQ(results.back().status, attn::Status::kNullPointer);
}

}  // namespace
