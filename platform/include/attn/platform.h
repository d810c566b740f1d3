// Platform layer: console, exit, cycle counter and CPU report for every target
// (bare-metal Cortex-M, Arm and x86 Linux), plus the Cortex-M start-up code and
// linker scripts (platform/src/cortex_m_startup.cpp, platform/ld/).
//
// Nothing here allocates or throws. On bare metal the defaults use Arm
// semihosting (QEMU, or a debugger that services BKPT 0xAB); a real board
// overrides the weak hooks below (see "Porting" in the README):
//   attn_platform_putc   one character to the board's UART / RTT / ITM
//   attn_platform_exit   what "main returned" means on the board
//   attn_platform_cpu_hz the core clock, to turn cycles into time
#pragma once

#include <cstdint>

extern "C" {

// Writes one character. Weak: bare metal defaults to line-buffered semihosting
// output, hosted targets to stdout.
void attn_platform_putc(char c);

// Ends the program with `code` (0 = success). Weak: bare metal defaults to
// semihosting SYS_EXIT_EXTENDED (QEMU exits with `code`), hosted to std::exit.
[[noreturn]] void attn_platform_exit(int code);

// Pushes out any buffered output (called by attn::platform::flush() and before
// exit). Weak: the bare-metal default flushes the semihosting line buffer.
void attn_platform_flush(void);

// The core clock in Hz, 0 if unknown. Weak: defaults to 0 (QEMU has no clock).
uint32_t attn_platform_cpu_hz(void);

}  // extern "C"

namespace attn {
namespace platform {

// Console. write() sends a string through attn_platform_putc; flush() pushes a
// partial line out (the bare-metal default buffers one line per semihosting call).
void write(const char* s);
void flush();
// printf-style formatting without libc's printf (which can pull malloc into a
// firmware image): %d %i %u %x %X %c %s %p %%, flags '-' '0', a width, and the
// length modifiers l, ll, z; and %f with a precision (%.3f, %8.4f; default 6,
// at most 30; other conversions ignore a precision), in fixed point: the
// digits printf prints (correctly rounded, ties to even), computed with
// integer arithmetic only, so no soft-float double library is linked. inf and
// nan print as printf does; a magnitude of 2^64 or more prints in %a's
// hexadecimal form (0x1.8p+70). Output goes straight to attn_platform_putc.
void print(const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

// Cycle counter: DWT CYCCNT on Cortex-M, CNTVCT_EL0 on AArch64 (the generic
// timer: counts at its own fixed frequency, not core cycles), rdtsc on x86-64,
// std::chrono::steady_clock nanoseconds elsewhere.
//
// cycle_counter_init() enables the counter and checks that it moves; when it
// does not (QEMU does not model the DWT: CYCCNT reads 0), available() is false
// and callers must report "no cycle counter" instead of printing zeros.
bool cycle_counter_init();
bool cycle_counter_available();
const char* cycle_counter_name();  // "DWT CYCCNT", "CNTVCT_EL0", "rdtsc", "steady_clock ns"
uint64_t cycles();

// True when running under an emulator this layer can detect (QEMU on the
// Cortex-M boards: the DWT cycle counter does not move).
bool emulated();

// Prints the core (CPUID part/revision on Cortex-M), compiled-in features
// (FPU, DSP, MVE, NEON, SVE, AVX2...) and the cycle counter in use.
void print_cpu_report();

}  // namespace platform
}  // namespace attn
