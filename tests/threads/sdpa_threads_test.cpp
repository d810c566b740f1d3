// sdpa_f32 and sdpa_s8 with an executor (attn::ThreadPool of 1, 2, 3 and 7
// workers) against the same op without one: every mask kind, key lengths,
// causal, the weights output, batch > 1 and decode shapes.
//   - int8: bit-identical, always;
//   - float, query-tile split: bit-identical;
//   - float, key-range split (attn/sdpa.h: <= 4 queries, fewer query tiles
//     than workers, two ranges of enough work): deterministic (the pool
//     and a striped executor give the same bits), every output within the double-precision
//     reference's bound for any summation order (tests/cases/ref_double.h),
//     and within twice that bound of the serial output; weights likewise.
// Scratch is sized exactly sdpa_*_scratch_bytes(shape, workers); one byte
// less returns kScratchTooSmall, an invalid executor kBadArgument, and
// neither writes the output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "attn/sdpa.h"
#include "attn/sdpa_s8.h"
#include "attn/thread_pool.h"
#include "executors.h"
#include "ref_double.h"

namespace {

using threads_test::pool;
using threads_test::striped;

std::size_t uz(int32_t i) { return static_cast<std::size_t>(i); }

struct Case {
  attn::SdpaShape shape;
  bool causal = false;
  bool lengths = false;
  bool keras = false;
  bool additive = false;  // 0 or -inf (int8 accepts these), plus small values in float
  bool boolean = false;
  bool per_batch = false;
  bool weights = false;
};

const Case kCases[] = {
    {{1, 37, 53, 16, 24}},
    {{1, 37, 53, 16, 24}, false, false, false, false, false, false, true},
    {{3, 70, 130, 32, 8}, true, false, false, false, false, false, true},
    {{2, 45, 200, 8, 16}, false, true},
    {{2, 33, 77, 12, 12}, false, false, true, false, false, true, true},
    {{1, 50, 90, 16, 16}, false, false, false, true, false, false, true},
    {{2, 20, 65, 16, 16}, true, true, false, false, true, true},
    {{5, 9, 300, 64, 64}},
    {{1, 128, 128, 64, 64}, true},
    // Decode shapes: a few queries against a long context.
    {{1, 1, 4000, 64, 64}},
    {{1, 1, 4000, 64, 64}, false, false, false, false, false, false, true},
    {{2, 3, 1000, 32, 32}, true},
    {{3, 4, 777, 64, 64}, false, true},
    {{1, 2, 900, 64, 64}, false, false, true},
    {{1, 1, 1500, 64, 64}, false, false, false, true},
    {{1, 1, 2000, 64, 64}, false, false, false, false, true, true},
    {{1, 1, 1000, 8, 8}, false, false, false, false, true, true},
    {{1, 1, 100, 16, 16}},
    {{2, 5, 2000, 16, 16}, true},
    {{1, 3, 900, 64, 32}, true, true, false, false, false, false, true},
    {{2, 1, 1400, 64, 64}, false, false, true, false, false, true, true},
    {{1, 2, 1100, 32, 32}, false, false, false, true, true, false, true},
    // Long and wide enough for the int8 key split (attn/sdpa_s8.h: ranges of
    // three tasks' work), with masks.
    {{1, 2, 3900, 256, 256}, false, false, false, true, true, false, true},
    {{2, 1, 4000, 192, 256}, false, true, true, false, false, true, true},
};

// Inputs and masks of one case, float and int8 alike.
struct Inputs {
  std::vector<float> q, k, v;
  std::vector<int8_t> q8, k8, v8;
  std::vector<int32_t> lengths;
  std::vector<float> keras, additive_f, additive_s8;
  std::vector<uint8_t> boolean;
};

Inputs make_inputs(const Case& c, uint32_t seed) {
  const attn::SdpaShape& s = c.shape;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::uniform_int_distribution<int> i8(-128, 127);
  Inputs in;
  const std::size_t nq = uz(s.batch) * uz(s.seq_q) * uz(s.dim_k);
  const std::size_t nk = uz(s.batch) * uz(s.seq_kv) * uz(s.dim_k);
  const std::size_t nv = uz(s.batch) * uz(s.seq_kv) * uz(s.dim_v);
  for (std::size_t i = 0; i < nq; ++i) in.q.push_back(2.0f * u(rng));
  for (std::size_t i = 0; i < nk; ++i) in.k.push_back(u(rng));
  for (std::size_t i = 0; i < nv; ++i) in.v.push_back(u(rng));
  // Key 5 of each item aligned with its first query: a row max in the first
  // key range, so a key split's merge must rescale the later ranges.
  for (int32_t b = 0; b < s.batch && s.seq_kv > 5; ++b) {
    const float* q0 = in.q.data() + uz(b) * uz(s.seq_q) * uz(s.dim_k);
    float* k5 = in.k.data() + (uz(b) * uz(s.seq_kv) + 5) * uz(s.dim_k);
    for (int32_t d = 0; d < s.dim_k; ++d) k5[d] = q0[d] < 0 ? -1.0f : 1.0f;
  }
  for (std::size_t i = 0; i < nq; ++i) in.q8.push_back(static_cast<int8_t>(i8(rng)));
  for (std::size_t i = 0; i < nk; ++i) in.k8.push_back(static_cast<int8_t>(i8(rng)));
  for (std::size_t i = 0; i < nv; ++i) in.v8.push_back(static_cast<int8_t>(i8(rng)));
  for (int32_t b = 0; b < s.batch; ++b) {
    // Key lengths: 0, full and random in between.
    const int32_t len = b == 0 ? s.seq_kv
                               : (b == 1 ? 0 : static_cast<int32_t>(rng() % uz(s.seq_kv)));
    in.lengths.push_back(len);
  }
  const std::size_t mats = (c.per_batch ? uz(s.batch) : 1) * uz(s.seq_q) * uz(s.seq_kv);
  const float inf = std::numeric_limits<float>::infinity();
  for (std::size_t i = 0; i < mats; ++i) {
    const uint32_t r = rng() % 8;
    in.keras.push_back(r == 0 ? 1.0f : 0.0f);
    in.additive_f.push_back(r == 0 ? -inf : 0.25f * u(rng));
    in.additive_s8.push_back(r == 0 ? -inf : 0.0f);
    in.boolean.push_back(r == 1 ? 1 : 0);
  }
  return in;
}

attn::Mask make_mask(const Case& c, const Inputs& in, bool int8) {
  attn::Mask m;
  m.causal = c.causal;
  if (c.lengths) m.key_lengths = in.lengths.data();
  if (c.keras) m.keras = in.keras.data();
  if (c.additive) m.additive = int8 ? in.additive_s8.data() : in.additive_f.data();
  if (c.boolean) m.boolean = in.boolean.data();
  if (c.per_batch) m.matrix_batch_stride = uz(c.shape.seq_q) * uz(c.shape.seq_kv);
  return m;
}

// The key-range split rule of attn/sdpa.h, restated: with it, float outputs
// are compared with bounds instead of bits. Ranges of whole key blocks, each
// at least attn::kParallelMinTaskWork (a block: seq_q * 64 * (dim_k + dim_v +
// 4), 4 for a score's softmax), at least two of them.
bool key_split_expected(const Case& c, const Inputs& in, int32_t workers, int32_t b) {
  const attn::SdpaShape& s = c.shape;
  const int64_t tiles = (s.seq_q + attn::kSdpaQueryTile - 1) / attn::kSdpaQueryTile;
  if (workers <= 1 || s.seq_q > 4 || s.batch * tiles >= workers) return false;
  // Keys the last query row may see (its causal limit is seq_kv).
  const int32_t visible = c.lengths ? in.lengths[uz(b)] : s.seq_kv;
  const int64_t block_work = int64_t{s.seq_q} * attn::kSdpaKeyBlock * (s.dim_k + s.dim_v + 4);
  const int64_t per_range = (attn::kParallelMinTaskWork + block_work - 1) / block_work;
  return visible / attn::kSdpaKeyBlock / per_range >= 2;
}

class SdpaThreads : public testing::TestWithParam<int32_t> {};

TEST_P(SdpaThreads, FloatMatchesSerial) {
  const int32_t workers = GetParam();
  uint32_t seed = 1;
  for (const Case& c : kCases) {
    const attn::SdpaShape& s = c.shape;
    SCOPED_TRACE(testing::Message()
                 << "B=" << s.batch << " Sq=" << s.seq_q << " Skv=" << s.seq_kv << " dk=" << s.dim_k
                 << " dv=" << s.dim_v << " causal=" << c.causal << " lengths=" << c.lengths
                 << " keras=" << c.keras << " additive=" << c.additive << " bool=" << c.boolean
                 << " weights=" << c.weights << " workers=" << workers);
    const Inputs in = make_inputs(c, seed++);
    const std::size_t n_out = uz(s.batch) * uz(s.seq_q) * uz(s.dim_v);
    const std::size_t n_w = uz(s.batch) * uz(s.seq_q) * uz(s.seq_kv);
    std::vector<float> out0(n_out), w0(n_w), out1(n_out, -7.0f), w1(n_w), out2(n_out), w2(n_w);
    attn::SdpaF32Args args;
    args.q = in.q.data();
    args.k = in.k.data();
    args.v = in.v.data();
    args.mask = make_mask(c, in, false);
    std::vector<unsigned char> ws0(attn::sdpa_f32_scratch_bytes(s));
    args.out = out0.data();
    args.probs = c.weights ? w0.data() : nullptr;
    ASSERT_EQ(attn::sdpa_f32(s, args, {ws0.data(), ws0.size()}), attn::Status::kOk);

    args.executor = pool(workers).executor();
    std::vector<unsigned char> ws(attn::sdpa_f32_scratch_bytes(s, workers));
    args.out = out1.data();
    args.probs = c.weights ? w1.data() : nullptr;
    if (workers > 1) {
      EXPECT_EQ(attn::sdpa_f32(s, args, {ws.data(), ws.size() - 1}),
                attn::Status::kScratchTooSmall);
      EXPECT_EQ(out1[0], -7.0f) << "kScratchTooSmall wrote the output";
    }
    ASSERT_EQ(attn::sdpa_f32(s, args, {ws.data(), ws.size()}), attn::Status::kOk);
    args.executor = striped(workers);
    args.out = out2.data();
    args.probs = c.weights ? w2.data() : nullptr;
    ASSERT_EQ(attn::sdpa_f32(s, args, {ws.data(), ws.size()}), attn::Status::kOk);
    EXPECT_EQ(std::memcmp(out1.data(), out2.data(), n_out * 4), 0) << "depends on the executor";
    if (c.weights) {
      EXPECT_EQ(std::memcmp(w2.data(), w1.data(), n_w * 4), 0);
    }

    const std::size_t item_out = uz(s.seq_q) * uz(s.dim_v);
    for (int32_t b = 0; b < s.batch; ++b) {
      const float* o0 = out0.data() + uz(b) * item_out;
      const float* o1 = out1.data() + uz(b) * item_out;
      const std::size_t item_w = uz(s.seq_q) * uz(s.seq_kv);
      const float* w0b = w0.data() + uz(b) * item_w;
      const float* w1b = w1.data() + uz(b) * item_w;
      if (!key_split_expected(c, in, workers, b)) {
        EXPECT_EQ(std::memcmp(o0, o1, item_out * 4), 0) << "query split not bit-identical, b=" << b;
        if (c.weights) {
          EXPECT_EQ(std::memcmp(w0b, w1b, item_w * 4), 0) << "b=" << b;
        }
        continue;
      }
      attn_ref::MaskView mv;
      mv.causal = c.causal;
      mv.key_length = c.lengths ? in.lengths[uz(b)] : -1;
      const std::size_t moff = c.per_batch ? uz(b) * uz(s.seq_q) * uz(s.seq_kv) : 0;
      if (c.keras) mv.keras = in.keras.data() + moff;
      if (c.additive) mv.additive = in.additive_f.data() + moff;
      if (c.boolean) mv.boolean = in.boolean.data() + moff;
      std::vector<double> p(uz(s.seq_q) * uz(s.seq_kv)), pt(p.size()), ref(item_out), tol(item_out);
      attn_ref::attention(s.seq_q, s.seq_kv, s.dim_k, s.dim_v,
                          1.0 / std::sqrt(static_cast<double>(s.dim_k)), attn_ref::kEps,
                          in.q.data() + uz(b) * uz(s.seq_q) * uz(s.dim_k), uz(s.dim_k), nullptr,
                          in.k.data() + uz(b) * uz(s.seq_kv) * uz(s.dim_k), uz(s.dim_k), nullptr,
                          in.v.data() + uz(b) * uz(s.seq_kv) * uz(s.dim_v), uz(s.dim_v), nullptr,
                          mv, p.data(), pt.data(), ref.data(), tol.data(), uz(s.dim_v));
      for (std::size_t e = 0; e < item_out; ++e) {
        ASSERT_LE(std::fabs(static_cast<double>(o1[e]) - ref[e]), tol[e])
            << "b=" << b << " e=" << e;
        ASSERT_LE(std::fabs(static_cast<double>(o1[e]) - static_cast<double>(o0[e])), 2.0 * tol[e])
            << "b=" << b << " e=" << e;
      }
      for (std::size_t e = 0; c.weights && e < item_w; ++e) {
        ASSERT_LE(std::fabs(static_cast<double>(w1b[e]) - p[e]), pt[e])
            << "weight b=" << b << " e=" << e;
        ASSERT_LE(std::fabs(static_cast<double>(w1b[e]) - static_cast<double>(w0b[e])), 2.0 * pt[e])
            << "weight b=" << b << " e=" << e;
      }
    }
  }
}

TEST_P(SdpaThreads, Int8BitIdentical) {
  const int32_t workers = GetParam();
  uint32_t seed = 100;
  for (const Case& c : kCases) {
    attn::SdpaShape s = c.shape;
    SCOPED_TRACE(testing::Message()
                 << "B=" << s.batch << " Sq=" << s.seq_q << " Skv=" << s.seq_kv
                 << " causal=" << c.causal << " lengths=" << c.lengths << " keras=" << c.keras
                 << " additive=" << c.additive << " bool=" << c.boolean << " weights=" << c.weights
                 << " workers=" << workers);
    const Inputs in = make_inputs(c, seed++);
    attn::SdpaS8Quant quant;
    quant.q = {0.02f, 3};
    quant.k = {0.03f, -5};
    quant.v = {0.01f, 7};
    quant.scores = {0.05f, -2};
    quant.out = {0.004f, 1};
    attn::SdpaS8Params params;
    ASSERT_EQ(attn::sdpa_s8_prepare(s, quant, &params), attn::Status::kOk);
    const std::size_t n_out = uz(s.batch) * uz(s.seq_q) * uz(s.dim_v);
    const std::size_t n_w = uz(s.batch) * uz(s.seq_q) * uz(s.seq_kv);
    std::vector<int8_t> out0(n_out), w0(n_w), out1(n_out, 55), w1(n_w);
    attn::SdpaS8Args args;
    args.q = in.q8.data();
    args.k = in.k8.data();
    args.v = in.v8.data();
    args.mask = make_mask(c, in, true);
    std::vector<unsigned char> ws0(attn::sdpa_s8_scratch_bytes(s));
    args.out = out0.data();
    args.probs = c.weights ? w0.data() : nullptr;
    ASSERT_EQ(attn::sdpa_s8(params, args, {ws0.data(), ws0.size()}), attn::Status::kOk);

    args.executor = pool(workers).executor();
    std::vector<unsigned char> ws(attn::sdpa_s8_scratch_bytes(s, workers));
    args.out = out1.data();
    args.probs = c.weights ? w1.data() : nullptr;
    if (workers > 1) {
      EXPECT_EQ(attn::sdpa_s8(params, args, {ws.data(), ws.size() - 1}),
                attn::Status::kScratchTooSmall);
      EXPECT_EQ(out1[0], 55) << "kScratchTooSmall wrote the output";
    }
    for (const attn::Executor& ex : {pool(workers).executor(), striped(workers)}) {
      args.executor = ex;
      std::fill(out1.begin(), out1.end(), int8_t{55});
      ASSERT_EQ(attn::sdpa_s8(params, args, {ws.data(), ws.size()}), attn::Status::kOk);
      EXPECT_EQ(out0, out1);
      if (c.weights) {
        EXPECT_EQ(w0, w1);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Workers, SdpaThreads, testing::Values(1, 2, 3, 7));

TEST(SdpaThreadsArgs, ScratchFormulaScalesWithWorkers) {
  const attn::SdpaShape s{1, 10, 20, 16, 16};
  const std::size_t one = attn::sdpa_f32_scratch_bytes(s);
  EXPECT_EQ(one, attn::sdpa_f32_scratch_bytes(s, 1));
  EXPECT_EQ(attn::sdpa_f32_scratch_bytes(s, 7), attn::kAlign + 7 * (one - attn::kAlign));
  EXPECT_EQ(attn::sdpa_f32_scratch_bytes(s, 0), 0u);
  const std::size_t one8 = attn::sdpa_s8_scratch_bytes(s);
  EXPECT_EQ(attn::sdpa_s8_scratch_bytes(s, 3), attn::kAlign + 3 * (one8 - attn::kAlign));
  EXPECT_EQ(attn::sdpa_s8_scratch_bytes(s, -1), 0u);
  static_assert(attn::sdpa_f32_scratch_bytes({1, 1, 1, 64, 64}, 4) > 0, "constexpr");
}

TEST(SdpaThreadsArgs, InvalidExecutorIsBadArgumentAndWritesNothing) {
  const attn::SdpaShape s{1, 4, 8, 4, 4};
  std::vector<float> q(16, 0.5f), k(32, 0.25f), v(32, 1.0f), out(16, -3.0f);
  std::vector<unsigned char> ws(attn::sdpa_f32_scratch_bytes(s, 64));
  attn::SdpaF32Args args;
  args.q = q.data();
  args.k = k.data();
  args.v = v.data();
  args.out = out.data();
  args.executor.workers = 2;  // no run function
  EXPECT_EQ(attn::sdpa_f32(s, args, {ws.data(), ws.size()}), attn::Status::kBadArgument);
  args.executor = pool(2).executor();
  args.executor.workers = 0;
  EXPECT_EQ(attn::sdpa_f32(s, args, {ws.data(), ws.size()}), attn::Status::kBadArgument);
  for (float x : out) EXPECT_EQ(x, -3.0f);

  attn::SdpaS8Params params;
  attn::SdpaS8Quant quant;
  quant.q = quant.k = quant.v = quant.scores = quant.out = {0.1f, 0};
  ASSERT_EQ(attn::sdpa_s8_prepare(s, quant, &params), attn::Status::kOk);
  std::vector<int8_t> q8(16, 1), k8(32, 2), v8(32, 3), out8(16, 9);
  attn::SdpaS8Args a8;
  a8.q = q8.data();
  a8.k = k8.data();
  a8.v = v8.data();
  a8.out = out8.data();
  a8.executor.workers = 3;
  EXPECT_EQ(attn::sdpa_s8(params, a8, {ws.data(), ws.size()}), attn::Status::kBadArgument);
  for (int8_t x : out8) EXPECT_EQ(x, 9);
}

}  // namespace
