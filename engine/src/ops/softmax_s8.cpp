// int8 softmax: eval (see attn/softmax_s8.h). Integer arithmetic only.
#include "attn/softmax_s8.h"

#include <cstddef>

#include "kernels/s8/fixedpoint.h"
#include "core/softmax_row_s8.h"

namespace attn {

Status softmax_s8(const SoftmaxS8Params& params, int32_t rows, int32_t cols, const int8_t* in,
                  int8_t* out) {
  if (in == nullptr || out == nullptr) return Status::kNullPointer;
  if (rows <= 0 || cols <= 0) return Status::kBadShape;
  if (cols > kSoftmaxS8MaxCols) return Status::kOverflow;
  const auto n = static_cast<std::size_t>(cols);
  for (int32_t r = 0; r < rows; ++r) {
    const std::size_t off = static_cast<std::size_t>(r) * n;
    detail::softmax_row_s8(params, in + off, out + off, cols, nullptr);
  }
  return Status::kOk;
}

}  // namespace attn
