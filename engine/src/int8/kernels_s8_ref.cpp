// Portable reference int8 kernels (see kernels_s8.h).
#include "attn/int8/kernels_s8.h"

namespace attn {
namespace detail {

int32_t dot_s8_ref(const int8_t* a, const int8_t* b, int32_t n, int32_t* sum_b) {
  int32_t acc = 0;
  int32_t sb = 0;
  for (int32_t i = 0; i < n; ++i) {
    acc += static_cast<int32_t>(a[i]) * static_cast<int32_t>(b[i]);
    sb += b[i];
  }
  *sum_b = sb;
  return acc;
}

void mac_s8_ref(int32_t* acc, const int8_t* b, int32_t w, int32_t n) {
  for (int32_t i = 0; i < n; ++i) acc[i] += w * static_cast<int32_t>(b[i]);
}

#if !defined(ATTN_S8_KERNELS_MVE) && !defined(ATTN_S8_KERNELS_DSP)
int32_t dot_s8(const int8_t* a, const int8_t* b, int32_t n, int32_t* sum_b) {
  return dot_s8_ref(a, b, n, sum_b);
}
void mac_s8(int32_t* acc, const int8_t* b, int32_t w, int32_t n) { mac_s8_ref(acc, b, w, n); }
const char* kernels_s8_name() { return "ref"; }
#endif

}  // namespace detail
}  // namespace attn
