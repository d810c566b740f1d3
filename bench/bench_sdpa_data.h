// The float SDPA benchmarks' inputs (one batch item, fixed seeds),
// their double-precision reference and scratch for `workers` workers; shared
// by the serial, threaded and Eigen benchmarks so they time the same data.
#pragma once

#include <cstdint>
#include <string>

#include "attn/sdpa.h"
#include "bench_check.h"
#include "bench_common.h"

namespace attn_bench {

struct SdpaData {
  SdpaData(int32_t sq, int32_t skv, int32_t d, int32_t workers = 1)
      : q(Random(Z(sq) * Z(d), 1)),
        k(Random(Z(skv) * Z(d), 2)),
        v(Random(Z(skv) * Z(d), 3)),
        out(Z(sq) * Z(d)),
        shape{1, sq, skv, d, d},
        scratch(attn::sdpa_f32_scratch_bytes(shape, workers)) {}
  const Expected& expected() const {
    return Memo(SdpaKey(shape.seq_q, shape.seq_kv, shape.dim_k), [&] {
      return SdpaExpected(shape.seq_q, shape.seq_kv, shape.dim_k, q.data(), k.data(), v.data());
    });
  }
  FVec q, k, v, out;
  attn::SdpaShape shape;
  AlignedVec<unsigned char> scratch;
};

}  // namespace attn_bench
