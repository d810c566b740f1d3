// The float MHA benchmarks' inputs (PyTorch self-attention of one batch
// item, packed in_proj, fixed seeds), their double-precision reference,
// scratch for `workers` workers and the Eigen peer's buffers; shared by the
// serial, threaded and Eigen benchmarks so they time the same data.
#pragma once

#include <cstdint>
#include <string>

#include "attn/mha.h"
#include "bench_check.h"
#include "bench_common.h"

namespace attn_bench {

struct MhaData {
  MhaData(int32_t e, int32_t h, int32_t s, int32_t workers = 1)
      : x(Random(Z(s) * Z(e), 4)),
        w_in(Random(3 * Z(e) * Z(e), 5, -0.2f, 0.2f)),
        b_in(Random(3 * Z(e), 6)),
        w_out(Random(Z(e) * Z(e), 7, -0.2f, 0.2f)),
        b_out(Random(Z(e), 8)),
        out(Z(s) * Z(e)),
        shape{1, s, s, e, h, 0, 0},
        scratch(attn::mha_f32_scratch_bytes(shape, workers)) {}
  const Expected& expected() const {
    const int32_t e = shape.embed_dim, h = shape.num_heads, s = shape.seq_q;
    const std::string key = "mha/" + std::to_string(e) + "/" + std::to_string(h) + "/" +
                            std::to_string(s);
    return Memo(key, [&] {
      return MhaExpected(s, e, h, x.data(), w_in.data(), b_in.data(), w_out.data(), b_out.data());
    });
  }
  // The Eigen peer's buffers (EigenMha).
  FVec eigen_work() const {
    const std::size_t s = Z(shape.seq_q), e = Z(shape.embed_dim);
    return FVec(4 * s * e + s * s);
  }
  FVec x, w_in, b_in, w_out, b_out, out;
  attn::MhaShape shape;
  AlignedVec<unsigned char> scratch;
};

// Multiply-adds count 2: the four projections, every head's Q K^T and P V.
inline double MhaFlops(int32_t e, int32_t s) { return 8.0 * s * e * e + 4.0 * s * s * e; }

}  // namespace attn_bench
