// The counting allocation functions of alloc_counter.h.
#include "alloc_counter.h"

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace {

// Lock-free atomics (they never allocate): the threaded tests count
// allocations made on the pool's worker threads too.
std::atomic<bool> g_armed{false};
std::atomic<long> g_malloc_calls{0};
std::atomic<long> g_new_calls{0};
static_assert(std::atomic<long>::is_always_lock_free, "the counters must not take a lock");

#if !defined(ATTN_ALLOC_TEST_SANITIZED)
void count_malloc() {
  if (g_armed.load(std::memory_order_relaxed))
    g_malloc_calls.fetch_add(1, std::memory_order_relaxed);
}
#endif
void count_new() {
  if (g_armed.load(std::memory_order_relaxed)) g_new_calls.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

namespace alloc_counter {

void arm() {
  g_malloc_calls.store(0);
  g_new_calls.store(0);
  g_armed.store(true);
}

Counts disarm() {
  g_armed.store(false);
  return {g_malloc_calls.load(), g_new_calls.load()};
}

}  // namespace alloc_counter

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
