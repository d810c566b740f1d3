// The ops `attn bench` times (bench_ops.cpp, bench_model.cpp): each prepares
// one call of an engine op on synthetic deterministic data of the user's
// shape, with its scratch, and states how many operations a call does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "attn/status.h"
#include "common.h"

namespace attn_cli {

// The sizes `attn bench` takes on the command line.
struct BenchShape {
  int32_t batch = 1;
  int32_t seq_q = 128;
  int32_t seq_kv = 128;
  int32_t dim = 64;
  int32_t heads = 1;
  int32_t kv_heads = 0;    // mha-decode: --kv-heads (0 = heads)
  bool f16_cache = false;  // mha-decode: --cache-dtype f16
  MaskInputs masks;        // --mask causal|none|FILE
};

// One prepared op call. `call` owns the inputs, outputs, parameters and
// scratch; it may run any number of times and returns the op's status.
struct BenchCall {
  std::function<attn::Status()> call;
  std::size_t scratch_bytes = 0;  // the op's *_scratch_bytes for the shape
  double ops = 0.0;               // operations per call (set by the model runs)
  bool int8 = false;              // int8 op (set by the model runs)
};

using BenchPrepare = BenchCall (*)(const BenchShape& shape);

// An op `attn bench` knows. Multiply-adds count two operations.
struct BenchOp {
  const char* name;
  const char* formula;                     // operations per call, in the shape's letters
  double (*ops)(const BenchShape& shape);  // that formula's value
  bool seq_q;                              // takes --seq-q (else one query per batch item)
  bool heads;                              // takes --heads
  bool mask;                               // takes --mask
  BenchPrepare f32;                        // null: no float32 form
  BenchPrepare int8;                       // null: no int8 form
  // The int8 form's count when it differs (it follows TFLite's op sequence).
  const char* int8_formula = nullptr;
  double (*int8_ops)(const BenchShape& shape) = nullptr;
};

// The op named `name`, or null.
const BenchOp* find_bench_op(const std::string& name);
// "sdpa, mha, ..." for help texts.
std::string bench_op_names();

// Operation counts (the formulas of the table in bench_ops.cpp), shared by the
// model runs.
double mha_ops(int64_t b, int64_t sq, int64_t skv, int64_t e, int64_t kdim, int64_t vdim);
double bahdanau_ops(int64_t b, int64_t t, int64_t dq, int64_t dk, int64_t u);
double luong_general_ops(int64_t b, int64_t t, int64_t dq, int64_t dk, bool int8);

// One decoder step of Sq new tokens at context Skv (bench_decode_ops.cpp).
double mha_decode_ops(const BenchShape& s);
BenchCall mha_decode_f32_call(const BenchShape& s);
BenchCall mha_decode_s8_call(const BenchShape& s);

// A model blob's op on synthetic inputs (bench_model.cpp): mha, bahdanau or
// luong-general, float32 or int8 as the blob says; dimensions from the blob,
// batch and sequence lengths from `shape`. Throws CliError when the blob is
// invalid or holds another op than `op`.
BenchCall prepare_model_call(const std::string& op, const std::string& path,
                             const BenchShape& shape);

// Deterministic synthetic data: a 32-bit LCG seeded by `seed`.
void fill_f32(float* p, std::size_t n, uint32_t seed);  // uniform in [-1, 1)
void fill_s8(int8_t* p, std::size_t n, uint32_t seed);  // uniform in [-128, 127]

}  // namespace attn_cli
