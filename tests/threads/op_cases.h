// The threaded op cases: every op but sdpa (sdpa_threads_test.cpp) and the
// decode ops, each a shape with its inputs, outputs and a run function that
// takes an executor and scratch. Built once (allocating), then run any number
// of times without allocating (threads_alloc_test.cpp).
//
// Expectations (ops_threads_test.cpp): int8 outputs equal the serial op's
// bits at every worker count; float outputs too, except from `split_from`
// workers on, where the case's float op splits a long item by key range and
// sums in another order: then every output is within the double-precision
// reference's bound (`reference`, tests/cases/ref_double.h) and within twice
// that bound of the serial output.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "attn/parallel.h"
#include "attn/scratch.h"
#include "attn/status.h"

namespace threads_test {

// An output buffer of a case: float or int8 elements. `exact`: the serial
// bits at every worker count, also in a split_from case (a memory op's rows).
struct Output {
  void* data;
  std::size_t count;
  bool is_float;
  bool exact = false;
  std::size_t bytes() const { return count * (is_float ? 4 : 1); }
};

struct OpCase {
  std::string name;
  std::shared_ptr<void> data;  // the inputs and outputs, kept alive
  std::vector<Output> outputs;
  std::function<std::size_t(int32_t workers)> scratch_bytes;
  std::function<attn::Status(const attn::Executor&, attn::Scratch)> run;
  attn::Status setup = attn::Status::kOk;  // the prepare and serial memory calls
  int32_t split_from = 0;                  // 0: bit-identical at every worker count
  // Float cases with split_from: the reference and its bound, one per element
  // of the outputs that are not `exact`, in the order of `outputs`.
  std::function<void(std::vector<double>* ref, std::vector<double>* tol)> reference;
};

// Each memory op (bahdanau, luong general; float and int8) is checked by the
// step case that uses it: the step's setup runs it serially, and `run` runs
// the step on that memory, then the memory op again through the executor
// into a second buffer, an `exact` output of the case.
std::vector<OpCase> float_cases();
std::vector<OpCase> int8_cases();

}  // namespace threads_test
