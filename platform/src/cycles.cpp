// Cycle counters: DWT CYCCNT (Cortex-M), CNTVCT_EL0 (AArch64), rdtsc (x86-64),
// steady_clock elsewhere.
#include <cstdint>

#include "attn/platform.h"

#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#include "cortex_m.h"
#define ATTN_PLATFORM_DWT 1
#elif defined(__aarch64__)
#define ATTN_PLATFORM_CNTVCT 1
#elif defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define ATTN_PLATFORM_RDTSC 1
#else
#include <chrono>
#define ATTN_PLATFORM_CHRONO 1
#endif

namespace attn {
namespace platform {
namespace {
bool g_available = false;
bool g_checked = false;
}  // namespace

uint64_t cycles() {
#if defined(ATTN_PLATFORM_DWT)
  return cm::reg(cm::kDwtCyccnt);  // 32 bits: wraps after 2^32 cycles
#elif defined(ATTN_PLATFORM_CNTVCT)
  uint64_t v;
  __asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v)::"memory");
  return v;
#elif defined(ATTN_PLATFORM_RDTSC)
  return __rdtsc();
#else
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
#endif
}

bool cycle_counter_init() {
#if defined(ATTN_PLATFORM_DWT)
  cm::reg(cm::kDemcr) |= 1u << 24;  // TRCENA: power the DWT
  // DWT_CTRL.NOCYCCNT (bit 25) set: this core has no cycle counter.
  if ((cm::reg(cm::kDwtCtrl) & (1u << 25)) == 0) {
    cm::reg(cm::kDwtCyccnt) = 0;
    cm::reg(cm::kDwtCtrl) |= 1u;  // CYCCNTENA
  }
  const uint64_t start = cycles();
  for (volatile int i = 0; i < 100; i = i + 1) {
  }
  g_available = cycles() != start;  // QEMU: the DWT is not modelled, reads 0
#else
  const uint64_t start = cycles();
  uint64_t now = start;
  for (int i = 0; i < 1000000 && now == start; ++i) now = cycles();
  g_available = now != start;
#endif
  g_checked = true;
  return g_available;
}

bool cycle_counter_available() {
  if (!g_checked) cycle_counter_init();
  return g_available;
}

bool emulated() {
#if defined(ATTN_PLATFORM_DWT)
  return !cycle_counter_available();
#else
  return false;
#endif
}

const char* cycle_counter_name() {
#if defined(ATTN_PLATFORM_DWT)
  return "DWT CYCCNT";
#elif defined(ATTN_PLATFORM_CNTVCT)
  return "CNTVCT_EL0";
#elif defined(ATTN_PLATFORM_RDTSC)
  return "rdtsc";
#else
  return "steady_clock ns";
#endif
}

}  // namespace platform
}  // namespace attn
