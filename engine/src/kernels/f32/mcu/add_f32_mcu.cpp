// Cortex-M scalar-FPU add (kernels_f32.h, namespace attn::mcu):
//
//   y[i] = a[i] + b[i]
//
// Four elements a step from four-register VLDM / VSTM (GCC only emits
// one-register loads and stores: 12 for the same four elements), the rest
// one at a time; the same sums as ref.
#include <cstdint>

#include "kernels/f32/kernels_f32.h"

namespace attn {
namespace mcu {

void add_f32(float* y, const float* a, const float* b, int32_t n) {
  int32_t i = n;
  for (; i >= 4; i -= 4) {
    __asm__(
        "vldmia %[a]!, {s8-s11}\n\t"
        "vldmia %[b]!, {s12-s15}\n\t"
        "vadd.f32 s8, s8, s12\n\t"
        "vadd.f32 s9, s9, s13\n\t"
        "vadd.f32 s10, s10, s14\n\t"
        "vadd.f32 s11, s11, s15\n\t"
        "vstmia %[y]!, {s8-s11}"
        : [y] "+r"(y), [a] "+r"(a), [b] "+r"(b)
        :
        : "s8", "s9", "s10", "s11", "s12", "s13", "s14", "s15", "memory");
  }
  for (; i > 0; --i) *y++ = *a++ + *b++;
}

}  // namespace mcu
}  // namespace attn
