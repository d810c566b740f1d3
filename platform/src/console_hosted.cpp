// Hosted (Linux) defaults of the platform hooks: stdout and std::exit.
#include <cstdio>
#include <cstdlib>

#include "attn/platform.h"

extern "C" {

__attribute__((weak)) void attn_platform_putc(char c) { std::fputc(c, stdout); }

__attribute__((weak)) void attn_platform_flush(void) { std::fflush(stdout); }

__attribute__((weak, noreturn)) void attn_platform_exit(int code) {
  std::fflush(stdout);
  std::exit(code);
}

__attribute__((weak)) uint32_t attn_platform_cpu_hz(void) { return 0; }

}  // extern "C"
