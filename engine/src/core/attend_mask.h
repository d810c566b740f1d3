// The mask of one batch item as both attention cores (attend_f32, attend_s8)
// read it: matrices already offset to that item, rows of seq_kv entries
// (internal; built by batch_mask in ops/op_helpers.h).
#pragma once

#include <cstdint>

namespace attn {
namespace detail {

struct AttendMask {
  bool causal = false;
  int32_t key_length = 0;  // keys j >= key_length are masked; seq_kv when unused
  const float* keras = nullptr;
  const float* additive = nullptr;
  const uint8_t* boolean = nullptr;
};

}  // namespace detail
}  // namespace attn
