// The strided rows one attention core call reads and writes (internal),
// shared by the float and int8 cores: element type T, row strides in
// elements between consecutive rows.
#pragma once

#include <cstddef>

namespace attn {
namespace detail {

template <class T>
struct AttendRows {
  const T* q = nullptr;  // [seq_q, dim_k]
  std::size_t q_stride = 0;
  const T* k = nullptr;  // [seq_kv, dim_k]
  std::size_t k_stride = 0;
  const T* v = nullptr;  // [seq_kv, dim_v]
  std::size_t v_stride = 0;
  T* out = nullptr;  // [seq_q, dim_v]
  std::size_t out_stride = 0;
};

}  // namespace detail
}  // namespace attn
