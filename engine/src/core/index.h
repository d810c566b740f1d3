// idx(i): a non-negative int32_t count or index as std::size_t, for pointer
// and byte offsets (internal).
#pragma once

#include <cstddef>
#include <cstdint>

namespace attn {
namespace detail {

inline std::size_t idx(int32_t i) { return static_cast<std::size_t>(i); }

}  // namespace detail
}  // namespace attn
