// Allocation counting for the allocation test (alloc_test.cpp): every way a
// C++ program on glibc can reach the heap is replaced by a counting version
// (alloc_counter.cpp), and the counters count only between arm() and disarm().
//
// How the counting works (no LD_PRELOAD, no hooks glibc has removed):
//   - malloc, calloc, realloc, free, aligned_alloc, posix_memalign, memalign
//     are defined in the executable. The dynamic linker resolves every
//     library's reference to them (libstdc++'s operator new included) to the
//     executable's definition first: ELF symbol interposition. They forward to
//     glibc's exported __libc_malloc family.
//   - every replaceable global operator new / delete (plain, array, nothrow,
//     aligned, sized) is replaced, as [replacement.functions] allows, and
//     counted separately, in case a toolchain's operator new bypasses malloc.
// Under AddressSanitizer/ThreadSanitizer the sanitizer runtime owns malloc,
// so only operator new/delete are replaced there (ATTN_ALLOC_TEST_SANITIZED).
#pragma once

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define ATTN_ALLOC_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ATTN_ALLOC_TEST_SANITIZED 1
#endif

namespace alloc_counter {

struct Counts {
  long malloc_calls;  // malloc family, including free of non-null
  long new_calls;     // operator new / delete family
};

// Zeroes the counters and starts counting, on every thread (call it while no
// other thread allocates: a thread pool's workers idle between runs).
void arm();
// Stops counting and returns what was counted since arm().
Counts disarm();

}  // namespace alloc_counter
