// Calls of every public engine function for the allocation test: each group
// (float ops, int8 ops and prepares, models) records every call's status
// next to the status it must return. Every buffer lives in Inputs / Blobs,
// made before the counters are armed; the calls themselves allocate nothing
// on the test's side (fixed arrays only).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attn/int8/quantize.h"
#include "attn/status.h"

namespace alloc_ops {

struct Result {
  const char* name;
  attn::Status status;
  attn::Status expected;
};

struct Results {
  static constexpr int kMax = 96;
  Result items[kMax];
  int count = 0;
  bool overflowed = false;
  void add(const char* name, attn::Status status, attn::Status expected = attn::Status::kOk) {
    if (count == kMax) {
      overflowed = true;
      return;
    }
    items[count++] = {name, status, expected};
  }
};

// Pseudo-random inputs (fixed seed) and outputs large enough for every call.
struct Inputs {
  Inputs();
  static constexpr std::size_t kN = 1 << 15;
  std::vector<float> a, b, c, w1, w2, w3, w4, bias;
  std::vector<float> out, weights;
  std::vector<int8_t> qa, qb, qc, qw1, qw2, qw3, qw4;
  std::vector<int32_t> qbias;
  std::vector<float> channel_scales;
  std::vector<int8_t> qout, qweights;
  std::vector<attn::QuantizedMultiplier> channels;  // prepare's per-channel storage
  std::vector<float> keras, additive;               // [2, 3, 4] mask matrices (one masked key each)
  std::vector<uint8_t> boolean;
  int32_t lens[2] = {3, 4};
  std::vector<unsigned char> scratch;  // the ops get it 1 byte off alignment
};

// The committed model blobs (tests/data/model), 64-byte aligned.
struct Blobs {
  bool read(const std::string& dir);
  struct Blob {
    std::vector<unsigned char> storage;
    const unsigned char* data = nullptr;
    std::size_t size = 0;
  };
  Blob mha, bahdanau, luong, mha_s8, bahdanau_s8, luong_s8;
  std::vector<unsigned char> corrupt;  // mha with one payload byte changed
  std::string missing;                 // the file that could not be read
};

void float_ops(Inputs& in, Results* r);
void int8_ops(Inputs& in, Results* r);
void model_ops(const Blobs& blobs, Inputs& in, Results* r);

}  // namespace alloc_ops
