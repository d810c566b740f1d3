// Status codes returned by every public function of the engine.
//
// The engine never throws, aborts or allocates: a bad argument is reported by
// one of these values and nothing is written to the outputs.
#pragma once

#include <cstdint>

namespace attn {

enum class Status : int32_t {
  kOk = 0,
  kNullPointer = 1,      // a required pointer argument is null
  kBadShape = 2,         // a dimension is zero, negative or over 2^20 (1,048,576)
  kShapeMismatch = 3,    // dimensions disagree with each other (e.g. heads not dividing E)
  kBadArgument = 4,      // a value is out of range (NaN or negative scale, key length > seq)
  kScratchTooSmall = 5,  // the caller's scratch is smaller than *_scratch_bytes()
  kUnsupported = 6,      // a valid request this build does not implement
  kOverflow = 7,         // the shape would overflow an exact integer accumulation
  kBadModel = 8,         // a model blob failed validation
  kCacheFull = 9,        // a KV cache without a sliding window has no room for the new tokens
};

// A short, static, human-readable text for a status (never null).
const char* status_str(Status status);

}  // namespace attn
