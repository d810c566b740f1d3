// Arm semihosting (BKPT 0xAB on M-profile): the console and exit of the
// bare-metal defaults. On QEMU enable it with
//   -semihosting-config enable=on,target=native
// On a board without a debugger attached, BKPT faults: override the weak hooks.
#pragma once

#include <cstdint>

namespace attn {
namespace platform {
namespace semihosting {

enum Op : uint32_t {
  kWrite0 = 0x04,        // write a NUL-terminated string to the debug console
  kExit = 0x18,          // AArch32: reason code only
  kExitExtended = 0x20,  // {reason, exit code}
};

inline uint32_t call(uint32_t op, const void* arg) {
  register uint32_t r0 __asm__("r0") = op;
  register const void* r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

}  // namespace semihosting
}  // namespace platform
}  // namespace attn
