// Key ranges of the cores' key split (internal): part p of `parts` of the
// keys below `limit` in equal ranges rounded up to 16 keys, the last ones
// possibly short or empty. Shared by the float and int8 splits.
#pragma once

#include <cstdint>

namespace attn {
namespace detail {

inline void key_range(int32_t limit, int32_t part, int32_t parts, int32_t* begin, int32_t* end) {
  const int32_t chunk = ((limit + parts - 1) / parts + 15) / 16 * 16;
  const int64_t b = static_cast<int64_t>(part) * chunk;
  const int64_t e = b + chunk;
  *begin = b < limit ? static_cast<int32_t>(b) : limit;
  *end = e < limit ? static_cast<int32_t>(e) : limit;
}

}  // namespace detail
}  // namespace attn
