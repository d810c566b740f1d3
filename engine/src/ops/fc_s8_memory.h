// The prepared key memory of the int8 context ops (internal): one
// FULLY_CONNECTED layer over every key row, bahdanau_s8_memory's B_j and
// luong_general_s8_memory's K'. Integer only.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/config.h"
#include "attn/int8/layers_s8.h"
#include "attn/parallel.h"
#include "core/split.h"
#include "ops/fc_s8.h"

namespace attn {
namespace detail {

// keys [batch, seq, key_dim] -> memory [batch, seq, out] through layer l
// (prepared with key_dim inputs and out outputs). With an executor of more
// than one worker the rows are split in blocks (parallel_rows); each row is
// computed alone, so the bits do not depend on the split.
inline void fc_s8_memory([[maybe_unused]] const Executor& executor, const FcS8Layer& l,
                         int32_t batch, int32_t seq, int32_t key_dim, int32_t out,
                         const int8_t* keys, int8_t* memory) {
  const auto t = static_cast<std::size_t>(seq);
  const auto ni = static_cast<std::size_t>(key_dim);
  const auto no = static_cast<std::size_t>(out);
#if ATTN_PARALLEL
  if (executor.workers > 1) {
    auto rows = [&](int32_t b, int32_t r0, int32_t r1) {
      const std::size_t row = static_cast<std::size_t>(b) * t + static_cast<std::size_t>(r0);
      fc_s8(l, keys + row * ni, ni, r1 - r0, memory + row * no, no);
    };
    parallel_rows(executor, batch, seq, static_cast<int64_t>(key_dim) * out / 4, rows);
    return;
  }
#endif
  for (int32_t b = 0; b < batch; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    fc_s8(l, keys + ub * t * ni, ni, seq, memory + ub * t * no, no);
  }
}

}  // namespace detail
}  // namespace attn
