// Cortex-M start-up: vector table, reset handler and fault handler for the
// boards in platform/ld/ (used instead of newlib's crt0/rdimon start-up, which
// under QEMU places the stack and heap in the wrong RAM).
//
// Reset: enable the FPU (and with it Helium/MVE) and the configurable fault
// handlers, copy .data, zero .bss, run .preinit_array and .init_array (static
// constructors, e.g. the test-case registry), call main(), and hand its return
// value to attn_platform_exit() (on QEMU: the emulator's exit code).
//
// Faults: print the exception, the fault status registers and the stacked PC/LR
// through the console, then exit with 128 + exception number (never 0).
#include <cstddef>
#include <cstdint>

#include "attn/platform.h"
#include "cortex_m.h"

extern "C" {

// From the linker script (platform/ld/cortex-m.ld).
extern uint32_t __stack_top[];
extern uint32_t __stack_limit[];
extern uint32_t __data_start__[];
extern uint32_t __data_end__[];
extern const uint32_t __data_load__[];
extern uint32_t __bss_start__[];
extern uint32_t __bss_end__[];
extern void (*__preinit_array_start[])(void);
extern void (*__preinit_array_end[])(void);
extern void (*__init_array_start[])(void);
extern void (*__init_array_end[])(void);

int main(void);

[[noreturn]] void Reset_Handler(void);
void attn_fault_entry(void);
[[noreturn]] void attn_fault_report(const uint32_t* frame, uint32_t exc_return);
void attn_default_handler(void);

using Vector = void (*)(void);

// 16 system exceptions and 16 external interrupts (enough for SysTick-driven
// code; a board port with more interrupts provides its own table). Laid out
// by hand: one line per exception, four interrupts a line.
// clang-format off
__attribute__((section(".isr_vector"), used)) const Vector attn_vectors[32] = {
    reinterpret_cast<Vector>(__stack_top),  // initial main stack pointer
    Reset_Handler,
    attn_fault_entry,      // NMI
    attn_fault_entry,      // HardFault
    attn_fault_entry,      // MemManage
    attn_fault_entry,      // BusFault
    attn_fault_entry,      // UsageFault
    attn_fault_entry,      // SecureFault (Armv8-M)
    nullptr, nullptr, nullptr,
    attn_default_handler,  // SVCall
    attn_default_handler,  // DebugMonitor
    nullptr,
    attn_default_handler,  // PendSV
    attn_default_handler,  // SysTick
    attn_default_handler, attn_default_handler, attn_default_handler, attn_default_handler,
    attn_default_handler, attn_default_handler, attn_default_handler, attn_default_handler,
    attn_default_handler, attn_default_handler, attn_default_handler, attn_default_handler,
    attn_default_handler, attn_default_handler, attn_default_handler, attn_default_handler,
};
// clang-format on

__attribute__((weak)) void attn_default_handler(void) {}

[[noreturn]] void Reset_Handler(void) {
  namespace cm = attn::platform::cm;
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
  // Stack overflow becomes a UsageFault (STKOF) instead of silent corruption.
  __asm__ volatile("msr msplim, %0" ::"r"(__stack_limit));
#endif
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
  cm::reg(cm::kCpacr) |= 0xFu << 20;  // CP10, CP11 full access: FPU and MVE
  cm::dsb();
  cm::isb();
#endif
  cm::reg(cm::kVtor) = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(attn_vectors));
  // MemManage, BusFault, UsageFault (and SecureFault) get their own report
  // instead of escalating; integer division by zero traps.
  cm::reg(cm::kShcsr) |= (1u << 16) | (1u << 17) | (1u << 18)
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
                         | (1u << 19)
#endif
      ;
  cm::reg(cm::kCcr) |= 1u << 4;  // DIV_0_TRP
  cm::dsb();
  cm::isb();

  for (uint32_t *dst = __data_start__, *end = __data_end__; dst < end;) {
    const uint32_t* src = __data_load__ + (dst - __data_start__);
    *dst++ = *src;
  }
  for (uint32_t *dst = __bss_start__, *end = __bss_end__; dst < end;) *dst++ = 0;

  for (auto** f = __preinit_array_start; f < __preinit_array_end; ++f) (*f)();
  for (auto** f = __init_array_start; f < __init_array_end; ++f) (*f)();

  attn_platform_exit(main());
}

// Picks the stack the exception frame was pushed on and passes it on.
__attribute__((naked)) void attn_fault_entry(void) {
  __asm__ volatile(
      "tst lr, #4\n"
      "ite eq\n"
      "mrseq r0, msp\n"
      "mrsne r0, psp\n"
      "mov r1, lr\n"
      "b attn_fault_report\n");
}

[[noreturn]] void attn_fault_report(const uint32_t* frame, uint32_t exc_return) {
  namespace cm = attn::platform::cm;
  namespace pf = attn::platform;
  uint32_t ipsr;
  __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
  const uint32_t exc = ipsr & 0x1FFu;
  static const char* const kNames[] = {"thread",    "reset",    "NMI",        "HardFault",
                                       "MemManage", "BusFault", "UsageFault", "SecureFault"};
  pf::flush();
  pf::print("\n*** %s (exception %u)\n", exc < 8 ? kNames[exc] : "interrupt",
            static_cast<unsigned>(exc));
  const uint32_t cfsr = cm::reg(cm::kCfsr);
  pf::print("CFSR 0x%08x (MMFSR 0x%02x BFSR 0x%02x UFSR 0x%04x) HFSR 0x%08x\n",
            static_cast<unsigned>(cfsr), static_cast<unsigned>(cfsr & 0xFFu),
            static_cast<unsigned>((cfsr >> 8) & 0xFFu), static_cast<unsigned>(cfsr >> 16),
            static_cast<unsigned>(cm::reg(cm::kHfsr)));
  if (cfsr & (1u << 7)) pf::print("MMFAR 0x%08x\n", static_cast<unsigned>(cm::reg(cm::kMmfar)));
  if (cfsr & (1u << 15)) pf::print("BFAR 0x%08x\n", static_cast<unsigned>(cm::reg(cm::kBfar)));
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
  if (exc == 7) {
    pf::print("SFSR 0x%08x SFAR 0x%08x\n", static_cast<unsigned>(cm::reg(cm::kSfsr)),
              static_cast<unsigned>(cm::reg(cm::kSfar)));
  }
#endif
  if (cfsr & (1u << 20)) {
    pf::print("stack overflow (STKOF): the stacked registers are not readable\n");
  } else {
    pf::print("PC 0x%08x LR 0x%08x xPSR 0x%08x EXC_RETURN 0x%08x\n",
              static_cast<unsigned>(frame[6]), static_cast<unsigned>(frame[5]),
              static_cast<unsigned>(frame[7]), static_cast<unsigned>(exc_return));
  }
  pf::flush();
  attn_platform_exit(static_cast<int>(128 + exc));
}

// C++ run-time support without the heap: firmware never returns from main, so
// static destructors are not registered (nothing to store, nothing allocated),
// and a pure virtual call is a fault report, not libstdc++'s verbose terminate.
void* __dso_handle = nullptr;

__attribute__((weak)) int __cxa_atexit(void (*)(void*), void*, void*) { return 0; }

__attribute__((weak)) int atexit(void (*)(void)) { return 0; }

__attribute__((weak, noreturn)) void __cxa_pure_virtual(void) {
  attn::platform::print("\n*** pure virtual call\n");
  attn_platform_exit(134);
}

}  // extern "C"
