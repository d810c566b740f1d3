// Every op but sdpa (sdpa_threads_test.cpp) and the decode ops with an
// executor of 1, 2, 3 and 7 workers, through attn::ThreadPool and through the
// striped executor that forces concurrency (executors.h), against the same op
// without an executor (op_cases.h):
//   - int8, and float split by batch item, head or query tile: the serial
//     op's bits;
//   - float from a case's split_from workers on (a long item split by key
//     range, summed in another order): deterministic (the pool and the
//     striped executor give the same bits), every output within the
//     double-precision reference's bound for any summation order
//     (tests/cases/ref_double.h) and within twice that bound of the serial
//     output; a memory op's rows stay the serial bits.
// Scratch is sized exactly *_scratch_bytes(shape, workers); one byte less
// returns kScratchTooSmall, an invalid executor kBadArgument, and neither
// writes an output.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "attn/bahdanau.h"
#include "attn/bahdanau_s8.h"
#include "attn/luong.h"
#include "attn/luong_s8.h"
#include "attn/mha.h"
#include "executors.h"
#include "op_cases.h"

namespace {

using threads_test::OpCase;
using threads_test::Output;

using Bytes = std::vector<unsigned char>;

std::vector<Bytes> snapshot(const OpCase& c) {
  std::vector<Bytes> v;
  for (const Output& o : c.outputs) {
    const auto* p = static_cast<const unsigned char*>(o.data);
    v.emplace_back(p, p + o.bytes());
  }
  return v;
}

void fill(const OpCase& c, unsigned char byte) {
  for (const Output& o : c.outputs) std::memset(o.data, byte, o.bytes());
}

bool untouched(const OpCase& c, unsigned char byte) {
  for (const Output& o : c.outputs) {
    const auto* p = static_cast<const unsigned char*>(o.data);
    for (std::size_t i = 0; i < o.bytes(); ++i) {
      if (p[i] != byte) return false;
    }
  }
  return true;
}

float as_float(const Bytes& b, std::size_t i) {
  float f = 0.0f;
  std::memcpy(&f, b.data() + 4 * i, 4);
  return f;
}

// The split_from expectation: each non-exact float output against the
// reference's bound, and within twice that bound of the serial output.
void expect_bounded(const OpCase& c, const std::vector<Bytes>& serial,
                    const std::vector<Bytes>& got) {
  std::vector<double> ref, tol;
  c.reference(&ref, &tol);
  std::size_t k = 0;
  for (std::size_t o = 0; o < c.outputs.size(); ++o) {
    if (c.outputs[o].exact) continue;
    ASSERT_TRUE(c.outputs[o].is_float);
    for (std::size_t i = 0; i < c.outputs[o].count; ++i, ++k) {
      ASSERT_LT(k, ref.size());
      const double x = static_cast<double>(as_float(got[o], i));
      const double x0 = static_cast<double>(as_float(serial[o], i));
      ASSERT_LE(std::fabs(x - ref[k]), tol[k]) << "output " << o << " element " << i;
      ASSERT_LE(std::fabs(x - x0), 2.0 * tol[k]) << "output " << o << " element " << i;
    }
  }
  EXPECT_EQ(k, ref.size());
}

void check_case(const OpCase& c, int32_t workers) {
  SCOPED_TRACE(testing::Message() << c.name << ", " << workers << " workers");
  ASSERT_EQ(c.setup, attn::Status::kOk);
  Bytes ws0(c.scratch_bytes(1));
  ASSERT_EQ(c.run(attn::Executor{}, attn::Scratch{ws0.data(), ws0.size()}), attn::Status::kOk);
  const std::vector<Bytes> serial = snapshot(c);

  Bytes ws(c.scratch_bytes(workers));
  ASSERT_GE(ws.size(), ws0.size());
  std::vector<std::vector<Bytes>> results;
  for (const attn::Executor& ex :
       {threads_test::pool(workers).executor(), threads_test::striped(workers)}) {
    fill(c, 0x5a);
    if (workers > 1) {
      EXPECT_EQ(c.run(ex, attn::Scratch{ws.data(), ws.size() - 1}), attn::Status::kScratchTooSmall);
      EXPECT_TRUE(untouched(c, 0x5a)) << "kScratchTooSmall wrote an output";
    }
    ASSERT_EQ(c.run(ex, attn::Scratch{ws.data(), ws.size()}), attn::Status::kOk);
    results.push_back(snapshot(c));
  }
  EXPECT_EQ(results[0], results[1]) << "depends on the executor";
  const bool split = c.split_from != 0 && workers >= c.split_from;
  for (std::size_t o = 0; o < c.outputs.size(); ++o) {
    if (!split || c.outputs[o].exact) {
      EXPECT_EQ(results[0][o], serial[o]) << "output " << o << " is not the serial bits";
    }
  }
  if (split) expect_bounded(c, serial, results[0]);
}

class OpsThreads : public testing::TestWithParam<int32_t> {};

TEST_P(OpsThreads, FloatOpsMatchSerial) {
  for (const OpCase& c : threads_test::float_cases()) check_case(c, GetParam());
}

TEST_P(OpsThreads, Int8OpsBitIdentical) {
  for (const OpCase& c : threads_test::int8_cases()) check_case(c, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Workers, OpsThreads, testing::Values(1, 2, 3, 7));

TEST(OpsThreadsArgs, InvalidExecutorIsBadArgumentAndWritesNothing) {
  attn::Executor no_run{};
  no_run.workers = 2;
  attn::Executor zero = threads_test::pool(2).executor();
  zero.workers = 0;
  for (const auto& cases : {threads_test::float_cases(), threads_test::int8_cases()}) {
    for (const OpCase& c : cases) {
      SCOPED_TRACE(c.name);
      Bytes ws(c.scratch_bytes(64));
      for (const attn::Executor& ex : {no_run, zero}) {
        fill(c, 0x3c);
        EXPECT_EQ(c.run(ex, attn::Scratch{ws.data(), ws.size()}), attn::Status::kBadArgument);
        EXPECT_TRUE(untouched(c, 0x3c));
      }
    }
  }
}

// The memory ops take the executor as a parameter: an invalid one is
// kBadArgument and writes nothing.
TEST(OpsThreadsArgs, MemoryOpsRejectAnInvalidExecutor) {
  attn::Executor bad{};
  bad.workers = 3;
  std::vector<float> keys(2 * 5 * 4, 0.5f), w(4 * 6, 0.25f), mem(2 * 5 * 6, -1.0f);
  const attn::BahdanauShape bs{2, 5, 3, 4, 6};
  attn::BahdanauF32Weights bw;
  bw.w2 = w.data();
  EXPECT_EQ(attn::bahdanau_f32_memory(bs, bw, keys.data(), mem.data(), mem.size() * 4, bad),
            attn::Status::kBadArgument);
  const attn::LuongGeneralShape ls{2, 5, 6, 4};
  EXPECT_EQ(attn::luong_general_f32_memory(ls, {w.data(), nullptr}, keys.data(), mem.data(),
                                           mem.size() * 4, bad),
            attn::Status::kBadArgument);
  for (float x : mem) EXPECT_EQ(x, -1.0f);
  std::vector<int8_t> keys8(2 * 5 * 4, 3), mem8(2 * 5 * 6, 7);
  attn::BahdanauS8Params bp;
  bp.shape = bs;
  EXPECT_EQ(attn::bahdanau_s8_memory(bp, keys8.data(), mem8.data(), mem8.size(), bad),
            attn::Status::kBadArgument);
  attn::LuongS8Params lp;
  lp.shape = ls;
  lp.general = true;
  EXPECT_EQ(attn::luong_general_s8_memory(lp, keys8.data(), mem8.data(), mem8.size(), bad),
            attn::Status::kBadArgument);
  for (int8_t x : mem8) EXPECT_EQ(x, 7);
}

TEST(OpsThreadsArgs, ScratchFormulasScaleWithWorkersAndStayConstexpr) {
  static_assert(attn::mha_f32_scratch_bytes({1, 4, 4, 8, 2, 0, 0}, 3) > 0, "constexpr");
  static_assert(attn::bahdanau_s8_scratch_bytes({1, 4, 4, 4, 4}, 2) > 0, "constexpr");
  static_assert(attn::luong_general_f32_scratch_bytes({1, 4, 4, 4}, 2) > 0, "constexpr");
  const attn::BahdanauShape b{1, 30, 4, 8, 16};
  const std::size_t one = attn::bahdanau_f32_scratch_bytes(b);
  EXPECT_EQ(attn::bahdanau_f32_scratch_bytes(b, 5), attn::kAlign + 5 * (one - attn::kAlign));
  EXPECT_EQ(attn::bahdanau_f32_scratch_bytes(b, 0), 0u);
  const attn::LuongGeneralShape l{1, 30, 4, 8};
  const std::size_t one8 = attn::luong_general_s8_scratch_bytes(l);
  EXPECT_EQ(attn::luong_general_s8_scratch_bytes(l, 3), attn::kAlign + 3 * (one8 - attn::kAlign));
  EXPECT_EQ(attn::luong_dot_s8_scratch_bytes({1, 30, 8}, -1), 0u);
}

}  // namespace
