// Bare-metal defaults of the platform hooks: semihosting console and exit.
// Output is buffered one line at a time (a semihosting call traps to the
// debugger or emulator, so one per character would be slow).
#include <cstddef>
#include <cstdint>

#include "attn/platform.h"
#include "semihosting.h"

namespace {

constexpr std::size_t kLineBytes = 256;
char g_line[kLineBytes];
std::size_t g_used = 0;

void flush_line() {
  if (g_used == 0) return;
  g_line[g_used] = '\0';
  attn::platform::semihosting::call(attn::platform::semihosting::kWrite0, g_line);
  g_used = 0;
}

}  // namespace

extern "C" {

__attribute__((weak)) void attn_platform_putc(char c) {
  g_line[g_used++] = c;
  if (c == '\n' || g_used == kLineBytes - 1) flush_line();
}

__attribute__((weak)) void attn_platform_flush(void) { flush_line(); }

__attribute__((weak, noreturn)) void attn_platform_exit(int code) {
  attn_platform_flush();
  // ADP_Stopped_ApplicationExit with the exit code: QEMU exits with `code`.
  const uint32_t block[2] = {0x20026u, static_cast<uint32_t>(code)};
  attn::platform::semihosting::call(attn::platform::semihosting::kExitExtended, block);
  // A host without SYS_EXIT_EXTENDED: plain SYS_EXIT (success or failure only).
  attn::platform::semihosting::call(attn::platform::semihosting::kExit,
                                    reinterpret_cast<const void*>(code == 0 ? 0x20026u : 0x20023u));
  for (;;) {
    __asm__ volatile("bkpt 0");
  }
}

__attribute__((weak)) uint32_t attn_platform_cpu_hz(void) { return 0; }

}  // extern "C"
