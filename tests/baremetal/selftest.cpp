// Self-tests of the board harness itself, so that "all green" means something:
//   exit_code  main returns 3: QEMU must exit non-zero (the ctest expects failure)
//   fault      an integer division by zero traps (CCR.DIV_0_TRP): the fault
//              handler must report a UsageFault and exit non-zero
#include <cstdint>

#include "attn/platform.h"

#ifndef ATTN_SELFTEST_FAULT
#define ATTN_SELFTEST_FAULT 0
#endif

volatile int32_t g_zero = 0;

int main() {
  attn::platform::write("board self-test\n");
#if ATTN_SELFTEST_FAULT
  volatile int32_t q = 1000 / g_zero;
  attn::platform::print("not reached: %d\n", static_cast<int>(q));
  return 0;
#else
  return 3 + g_zero;
#endif
}
