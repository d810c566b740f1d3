// Key ranges of the cores' key split (internal): part p of `parts` of the
// keys below `limit` in equal ranges rounded up to `align` keys (16 unless
// given), the last ones possibly short or empty. Shared by the float and
// int8 splits.
#pragma once

#include <cstdint>

namespace attn {
namespace detail {

inline void key_range(int32_t limit, int32_t part, int32_t parts, int32_t* begin, int32_t* end,
                      int32_t align = 16) {
  const int32_t chunk = ((limit + parts - 1) / parts + align - 1) / align * align;
  const int64_t b = static_cast<int64_t>(part) * chunk;
  const int64_t e = b + chunk;
  *begin = b < limit ? static_cast<int32_t>(b) : limit;
  *end = e < limit ? static_cast<int32_t>(e) : limit;
}

}  // namespace detail
}  // namespace attn
