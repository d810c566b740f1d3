// CPU report: what core this is and which features the build uses.
#include <cstdint>

#include "attn/platform.h"

#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#include "cortex_m.h"
#endif

namespace attn {
namespace platform {
namespace {

const char* compiled_features() {
  return ""
#if defined(__ARM_FP)
         " fpu"
#endif
#if defined(__ARM_FEATURE_DSP)
         " dsp"
#endif
#if defined(__ARM_FEATURE_MVE)
#if (__ARM_FEATURE_MVE & 2)
         " mve.fp"
#else
         " mve"
#endif
#endif
#if defined(__ARM_NEON)
         " neon"
#endif
#if defined(__ARM_FEATURE_SVE)
         " sve"
#endif
#if defined(__ARM_FEATURE_DOTPROD)
         " dotprod"
#endif
#if defined(__SSE4_2__)
         " sse4.2"
#endif
#if defined(__AVX2__)
         " avx2"
#endif
#if defined(__FMA__)
         " fma"
#endif
#if defined(__AVX512F__)
         " avx512f"
#endif
      ;
}

#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
const char* part_name(uint32_t part) {
  switch (part) {
    case 0xC20: return "Cortex-M0";
    case 0xC60: return "Cortex-M0+";
    case 0xC23: return "Cortex-M3";
    case 0xC24: return "Cortex-M4";
    case 0xC27: return "Cortex-M7";
    case 0xD20: return "Cortex-M23";
    case 0xD21: return "Cortex-M33";
    case 0xD22: return "Cortex-M55";
    case 0xD23: return "Cortex-M85";
    default: return "unknown Cortex-M";
  }
}
#endif

}  // namespace

void print_cpu_report() {
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
  const uint32_t cpuid = cm::reg(cm::kCpuid);
  const uint32_t part = (cpuid >> 4) & 0xFFFu;
  print("cpu: %s r%up%u (CPUID 0x%08x)\n", part_name(part),
        static_cast<unsigned>((cpuid >> 20) & 0xFu), static_cast<unsigned>(cpuid & 0xFu),
        static_cast<unsigned>(cpuid));
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
  const uint32_t mvfr1 = cm::reg(cm::kMvfr1);
  print("fpu: MVFR0 0x%08x MVFR1 0x%08x (MVE field %u)\n",
        static_cast<unsigned>(cm::reg(cm::kMvfr0)), static_cast<unsigned>(mvfr1),
        static_cast<unsigned>((mvfr1 >> 8) & 0xFu));
#endif
#elif defined(__aarch64__)
  print("cpu: AArch64\n");
#elif defined(__arm__)
  print("cpu: AArch32\n");
#elif defined(__x86_64__)
  print("cpu: x86-64\n");
#else
  print("cpu: unknown\n");
#endif
  print("compiled for:%s\n", compiled_features());
  if (cycle_counter_init()) {
    const uint32_t hz = attn_platform_cpu_hz();
    if (hz != 0) {
      print("cycle counter: %s, core clock %u Hz\n", cycle_counter_name(),
            static_cast<unsigned>(hz));
    } else {
      print("cycle counter: %s\n", cycle_counter_name());
    }
  } else {
    print(
        "cycle counter: %s does not count (emulator: QEMU does not model it); "
        "cycles are not reported\n",
        cycle_counter_name());
  }
}

}  // namespace platform
}  // namespace attn
