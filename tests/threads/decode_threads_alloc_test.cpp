// Threaded decode steps allocate nothing once the pool is built:
// mha_decode_f32 (float32 and float16 caches; the key split of a step with
// fewer kv heads than workers) and mha_decode_s8 (its exact key split) run
// through an attn::ThreadPool of 3 workers between alloc_counter::arm() and
// disarm() (tests/host: every malloc and operator new of every thread is
// counted). The control that pool construction is counted is
// threads_alloc_test.cpp's.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "alloc_counter.h"
#include "attn/kv_cache.h"
#include "attn/mha_decode.h"
#include "attn/mha_decode_s8.h"
#include "attn/thread_pool.h"

namespace {

constexpr int32_t kE = 64, kH = 4, kG = 1, kHd = kE / kH, kCtx = 300;

TEST(ThreadsAllocation, ThreadedDecodeStepsAllocateNothing) {
  attn::ThreadPool pool(3);
  std::vector<float> w(static_cast<std::size_t>(kE) * kE, 0.01f), x(kCtx * kE, 0.5f),
      out(kCtx * kE);
  attn::MhaDecodeShape s;
  s.embed_dim = kE;
  s.num_heads = kH;
  s.num_kv_heads = kG;
  s.max_tokens = kCtx;
  attn::MhaDecodeF32Weights fw;
  fw.q_proj_weight = fw.k_proj_weight = fw.v_proj_weight = fw.out_proj_weight = w.data();
  std::vector<int8_t> w8(static_cast<std::size_t>(kE) * kE, 3), x8(kCtx * kE, 5), out8(kCtx * kE);
  std::vector<float> scales(kE, 0.01f);
  attn::MhaS8Weights sw;
  sw.q = sw.k = sw.v = sw.out = {w8.data(), scales.data(), nullptr};
  attn::MhaDecodeS8Quant quant;
  quant.input = quant.q = quant.k = quant.v = quant.attn = quant.out = {0.05f, 1};
  quant.scores = {0.5f, 0};
  attn::MhaDecodeShape s8 = s;
  s8.cache_element = attn::KvElement::kS8;
  std::vector<attn::QuantizedMultiplier> channels(attn::mha_decode_s8_channel_count(s8));
  attn::MhaDecodeS8Params params;
  ASSERT_EQ(attn::mha_decode_s8_prepare(s8, kCtx, quant, sw, channels.data(), &params),
            attn::Status::kOk);
  attn::MhaDecodeShape s16 = s;
  s16.cache_element = attn::KvElement::kF16;
  std::vector<unsigned char> ws(attn::mha_decode_f32_scratch_bytes(s16, 3) +
                                attn::mha_decode_s8_scratch_bytes(s8, kCtx, 3));
  const attn::Scratch scratch{ws.data(), ws.size()};
  std::vector<unsigned char> store(attn::kv_cache_bytes({kCtx, kG, kHd, attn::KvElement::kF32}));
  attn::KvCache c32, c16, c8;
  ASSERT_EQ(
      attn::kv_cache_init({kCtx, kG, kHd, attn::KvElement::kF32}, store.data(), store.size(), &c32),
      attn::Status::kOk);
  // Prefill all but the last token outside the window.
  attn::MhaDecodeF32Args a{x.data(), out.data(), kCtx - 1};
  a.executor = pool.executor();
  ASSERT_EQ(attn::mha_decode_f32(s, fw, a, &c32, scratch), attn::Status::kOk);
  attn::MhaDecodeF32Args step{x.data(), out.data(), 1};
  step.executor = pool.executor();
  attn::MhaDecodeS8Args step8{x8.data(), out8.data(), 1};
  step8.executor = pool.executor();

  alloc_counter::arm();
  const attn::Status s1 = attn::mha_decode_f32(s, fw, step, &c32, scratch);
  // The same storage as a float16 and an int8 cache (the contents do not
  // matter here: the steps' work and splits do).
  attn::Status s2 =
      attn::kv_cache_init({kCtx, kG, kHd, attn::KvElement::kF16}, store.data(), store.size(), &c16);
  c16.position = c16.next_slot = kCtx - 1;
  if (s2 == attn::Status::kOk) s2 = attn::mha_decode_f32(s16, fw, step, &c16, scratch);
  attn::Status s3 =
      attn::kv_cache_init({kCtx, kG, kHd, attn::KvElement::kS8}, store.data(), store.size(), &c8);
  c8.position = c8.next_slot = kCtx - 1;
  if (s3 == attn::Status::kOk) s3 = attn::mha_decode_s8(&params, step8, &c8, scratch);
  const alloc_counter::Counts counts = alloc_counter::disarm();
  EXPECT_EQ(s1, attn::Status::kOk);
  EXPECT_EQ(s2, attn::Status::kOk);
  EXPECT_EQ(s3, attn::Status::kOk);
  EXPECT_EQ(counts.malloc_calls, 0);
  EXPECT_EQ(counts.new_calls, 0);
}

}  // namespace
