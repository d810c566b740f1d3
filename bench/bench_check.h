// What every benchmark checks before its timed loop: the status of one call
// of the code it times, and that call's output against a reference, with the
// bound the tests state for it:
//   float ops (and their Eigen peers): the double-precision references of the
//     portable test cases (tests/cases/ref_double.h) and their worst-case
//     per-element bounds;
//   float kernels (and the Eigen softmax): the attn::ref kernel on the same
//     input, within the bounds tests/simd/kernels_test.cpp states;
//   int8: bit for bit against the portable scalar kernels (level "scalar").
// A failed check calls State::SkipWithError (the benchmark is reported as an
// error and not timed) and is counted: attn_bench exits nonzero after the run
// when any check failed, so the smoke ctest fails.
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "attn/status.h"

namespace attn_bench {

// Expected values and the bound of each: |got - value| <= tol passes.
struct Expected {
  std::vector<double> value, tol;
};

// Reports the failure on the benchmark and counts it.
void Fail(benchmark::State& st, const std::string& why);
// Checks run so far, and how many failed.
int CheckCount();
int FailureCount();

// Each returns true when the check passes, else fails the benchmark.
bool CheckStatus(benchmark::State& st, attn::Status s);
bool CheckClose(benchmark::State& st, const char* what, const float* got, const Expected& want);
// int8 outputs: every byte equal to the expected one (tolerances unused).
bool CheckExact(benchmark::State& st, const char* what, const int8_t* got, const Expected& want);

// The reference for `key`, made once: a benchmark function runs once per
// repetition and per iteration-count probe, and its inputs depend only on
// the key (fixed seeds).
const Expected& Memo(const std::string& key, const std::function<Expected()>& make);

// References of the float ops on the benchmarks' inputs (one batch item,
// no mask). PyTorch layouts for MHA (in_proj [3E, E], out_proj [E, E]),
// Keras layouts for Bahdanau (w1 [dq, units], w2 [dk, units]) and Luong
// general (w [dk, dq]); w null for Luong dot.
Expected SdpaExpected(int32_t sq, int32_t skv, int32_t d, const float* q, const float* k,
                      const float* v);
Expected MhaExpected(int32_t s, int32_t e, int32_t heads, const float* x, const float* w_in,
                     const float* b_in, const float* w_out, const float* b_out);
Expected BahdanauExpected(int32_t seq, int32_t d, const float* query, const float* keys,
                          const float* w1, const float* b1, const float* w2, const float* b2,
                          const float* v, float bv);
Expected LuongExpected(int32_t seq, int32_t d, const float* query, const float* keys,
                       const float* w, const float* b);

}  // namespace attn_bench
