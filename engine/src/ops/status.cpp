#include "attn/status.h"

namespace attn {

const char* status_str(Status status) {
  switch (status) {
    case Status::kOk: return "ok";
    case Status::kNullPointer: return "a required pointer is null";
    case Status::kBadShape: return "a dimension is zero, negative or over 2^20";
    case Status::kShapeMismatch: return "dimensions do not agree";
    case Status::kBadArgument: return "an argument is out of range";
    case Status::kScratchTooSmall: return "scratch buffer too small";
    case Status::kUnsupported: return "not supported by this build";
    case Status::kOverflow: return "shape too large for exact integer accumulation";
    case Status::kBadModel: return "model blob failed validation";
    case Status::kCacheFull: return "KV cache full";
  }
  return "unknown status";
}

}  // namespace attn
