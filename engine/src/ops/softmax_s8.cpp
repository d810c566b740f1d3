// int8 softmax: eval (see attn/softmax_s8.h). Integer arithmetic only.
#include "attn/softmax_s8.h"

#include <cstddef>

#include "core/softmax_row_s8.h"
#include "kernels/s8/fixedpoint.h"

namespace attn {

Status softmax_s8(const SoftmaxS8Shape& shape, const SoftmaxS8Params& params,
                  const SoftmaxS8Args& args) {
  if (args.in == nullptr || args.out == nullptr) return Status::kNullPointer;
  if (shape.rows <= 0 || shape.cols <= 0) return Status::kBadShape;
  if (shape.cols > kSoftmaxS8MaxCols) return Status::kOverflow;
  const auto n = static_cast<std::size_t>(shape.cols);
  for (int32_t r = 0; r < shape.rows; ++r) {
    const std::size_t off = static_cast<std::size_t>(r) * n;
    detail::softmax_row_s8(params, args.in + off, args.out + off, shape.cols, nullptr);
  }
  return Status::kOk;
}

}  // namespace attn
