// Threaded op calls allocate nothing once the pool is built: sdpa_f32 and
// sdpa_s8 (query split, and key split for a decode shape), and every op case
// of op_cases.h (every other op but the decode ones, each split it has), run
// through an attn::ThreadPool of 3 workers between alloc_counter::arm() and
// disarm() (tests/host: every malloc and operator new of every thread is
// counted). Control: building a pool inside the window IS counted.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "alloc_counter.h"
#include "attn/sdpa.h"
#include "attn/sdpa_s8.h"
#include "attn/thread_pool.h"
#include "op_cases.h"

namespace {

TEST(ThreadsAllocation, ControlPoolConstructionIsCounted) {
  alloc_counter::arm();
  { attn::ThreadPool pool(2); }
  const alloc_counter::Counts c = alloc_counter::disarm();
  EXPECT_GT(c.malloc_calls + c.new_calls, 0);
}

TEST(ThreadsAllocation, ThreadedOpsAllocateNothing) {
  attn::ThreadPool pool(3);
  const attn::SdpaShape tiles{2, 70, 90, 16, 16};
  const attn::SdpaShape decode{1, 1, 2000, 32, 32};
  std::vector<float> q(2 * 70 * 32, 0.1f), k(2000 * 32, 0.2f), v(2000 * 32, 0.3f);
  std::vector<float> out(2 * 70 * 32), w(2 * 70 * 90);
  std::vector<int8_t> q8(2 * 70 * 16, 3), k8(2 * 90 * 16, -4), v8(2 * 90 * 16, 5),
      out8(2 * 70 * 16);
  std::vector<unsigned char> ws(attn::sdpa_f32_scratch_bytes(decode, 3) +
                                attn::sdpa_s8_scratch_bytes({1, 1, 1500, 16, 16}, 3) +
                                attn::sdpa_s8_scratch_bytes(tiles, 3));
  attn::SdpaF32Args f;
  f.q = q.data();
  f.k = k.data();
  f.v = v.data();
  f.out = out.data();
  f.executor = pool.executor();
  attn::SdpaS8Quant quant;
  quant.q = quant.k = quant.v = quant.scores = quant.out = {0.05f, 1};
  attn::SdpaS8Params params;
  ASSERT_EQ(attn::sdpa_s8_prepare(tiles, quant, &params), attn::Status::kOk);
  const attn::SdpaShape decode8{1, 1, 1500, 16, 16};
  attn::SdpaS8Params decode_params;
  ASSERT_EQ(attn::sdpa_s8_prepare(decode8, quant, &decode_params), attn::Status::kOk);
  std::vector<int8_t> k8_long(1500 * 16, 6), v8_long(1500 * 16, -2);
  attn::SdpaS8Args a8;
  a8.q = q8.data();
  a8.k = k8.data();
  a8.v = v8.data();
  a8.out = out8.data();
  a8.executor = pool.executor();
  const attn::Scratch scratch{ws.data(), ws.size()};
  f.probs = w.data();
  ASSERT_EQ(attn::sdpa_f32(tiles, f, scratch), attn::Status::kOk);  // warm-up outside the window

  alloc_counter::arm();
  const attn::Status s1 = attn::sdpa_f32(tiles, f, scratch);
  f.probs = nullptr;
  const attn::Status s2 = attn::sdpa_f32(decode, f, scratch);
  const attn::Status s3 = attn::sdpa_s8(params, a8, scratch);
  a8.k = k8_long.data();
  a8.v = v8_long.data();
  const attn::Status s4 = attn::sdpa_s8(decode_params, a8, scratch);
  const alloc_counter::Counts c = alloc_counter::disarm();
  EXPECT_EQ(s1, attn::Status::kOk);
  EXPECT_EQ(s2, attn::Status::kOk);
  EXPECT_EQ(s3, attn::Status::kOk);
  EXPECT_EQ(s4, attn::Status::kOk);
  EXPECT_EQ(c.malloc_calls, 0);
  EXPECT_EQ(c.new_calls, 0);
}

TEST(ThreadsAllocation, EveryThreadedOpAllocatesNothing) {
  attn::ThreadPool pool(3);
  std::vector<threads_test::OpCase> cases = threads_test::float_cases();
  for (threads_test::OpCase& c : threads_test::int8_cases()) cases.push_back(std::move(c));
  std::size_t bytes = 0;
  for (const threads_test::OpCase& c : cases) {
    ASSERT_EQ(c.setup, attn::Status::kOk) << c.name;
    bytes = c.scratch_bytes(3) > bytes ? c.scratch_bytes(3) : bytes;
  }
  std::vector<unsigned char> ws(bytes);
  const attn::Scratch scratch{ws.data(), ws.size()};
  for (const threads_test::OpCase& c : cases) {  // warm-up outside the window
    ASSERT_EQ(c.run(pool.executor(), scratch), attn::Status::kOk) << c.name;
  }
  std::vector<attn::Status> st(cases.size());
  alloc_counter::arm();
  for (std::size_t i = 0; i < cases.size(); ++i) st[i] = cases[i].run(pool.executor(), scratch);
  const alloc_counter::Counts counts = alloc_counter::disarm();
  for (std::size_t i = 0; i < cases.size(); ++i)
    EXPECT_EQ(st[i], attn::Status::kOk) << cases[i].name;
  EXPECT_EQ(counts.malloc_calls, 0);
  EXPECT_EQ(counts.new_calls, 0);
}

}  // namespace
