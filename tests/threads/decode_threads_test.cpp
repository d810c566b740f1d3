// mha_decode_f32 and mha_decode_s8 with an executor (attn::ThreadPool and a
// striped executor of 1, 2, 3 and 7 workers) against the same calls without
// one, over a prefill in chunks and then decode steps (GQA, MQA, MHA, float32
// and float16 caches, linear and sliding-window, RoPE, packed in_proj):
//   - int8: bit-identical, always;
//   - float: bit-identical, except where the key split applies
//     (attn/mha_decode.h: one tile per kv head, fewer kv heads than workers,
//     at least 2 * kDecodeKeyBlock visible keys): there deterministic (the pool
//     and the striped executor give the same bits), every output within the
//     double-precision reference's bound for any summation order
//     (tests/cases/ref_double.h; a float16 cache adds each element's half
//     rounding), and within twice that bound of the serial output.
// Float16 weights (the float cases with every weight matrix, or the packed
// in_proj_weight, as binary16): the bits of the same run with float32
// weights holding the widened values, for every worker count and executor
// (the SIMD backends' contract, attn/mha_decode.h; every hosted preset's
// ops use hwy).
// Scratch sized exactly mha_decode_*_scratch_bytes(shape, .., workers); one
// byte less returns kScratchTooSmall and an invalid executor kBadArgument,
// neither writing the output nor the cache.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include "attn/kv_cache.h"
#include "attn/mha_decode.h"
#include "attn/mha_decode_s8.h"
#include "attn/thread_pool.h"
#include "executors.h"
#include "kernels/f32/f16.h"
#include "ref_double.h"

namespace {

std::size_t uz(int32_t i) { return static_cast<std::size_t>(i); }

using threads_test::pool;
using threads_test::striped;

struct Case {
  int32_t e, heads, kv_heads;
  attn::KvElement element;  // kF32 / kF16 (float); the int8 cases use kS8
  bool window;
  int32_t capacity, tokens, chunk;  // chunks of `chunk` tokens, the last 4 one by one
  int32_t rope_dims;
  bool packed;  // float: in_proj_weight (kv_heads == heads)
};

using attn::KvElement;
const Case kF32Cases[] = {
    {64, 8, 2, KvElement::kF32, false, 300, 204, 100, 0, false},  // GQA: 4 rows per kv head
    {64, 4, 1, KvElement::kF16, false, 400, 336, 111, 0, false},  // MQA, float16
    {48, 6, 6, KvElement::kF32, true, 150, 400, 7, 0, false},     // MHA, window wrapped
    {64, 8, 8, KvElement::kF32, false, 200, 150, 50, 8, false},   // RoPE, 8 kv heads
    {32, 2, 2, KvElement::kF16, true, 140, 300, 1, 0, true},      // packed, float16 window
    {64, 8, 1, KvElement::kF16, true, 130, 300, 9, 0, false},     // a group of 8
    {64, 8, 1, KvElement::kF32, false, 260, 250, 3, 0, false},    // 3-token chunks, 24 rows
};
const Case kS8Cases[] = {
    {64, 8, 2, KvElement::kS8, false, 300, 260, 128, 0, false},  // 4 rows per kv head
    {64, 4, 1, KvElement::kS8, true, 130, 300, 5, 0, false},     // MQA window
    {32, 2, 2, KvElement::kS8, false, 200, 150, 37, 4, false},   // RoPE
    {64, 8, 8, KvElement::kS8, false, 100, 90, 30, 8, false},    // MHA, RoPE
};

std::vector<float> uniform(std::size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

// The call sizes of a case: chunks, then the last 4 tokens one by one.
std::vector<int32_t> calls(const Case& c) {
  std::vector<int32_t> n;
  int32_t t = 0;
  while (t < c.tokens - 4) {
    n.push_back(c.chunk < c.tokens - 4 - t ? c.chunk : c.tokens - 4 - t);
    t += n.back();
  }
  for (; t < c.tokens; ++t) n.push_back(1);
  return n;
}

int32_t visible(const Case& c, int64_t p) {
  return c.window && p >= c.capacity ? c.capacity : static_cast<int32_t>(p + 1);
}

// The key-split rule of attn/mha_decode.h, restated, for a call of n tokens
// from position p0 (a window attends token by token).
bool key_split_expected(const Case& c, int32_t workers, int32_t n, int64_t p0) {
  const int32_t group = c.heads / c.kv_heads;
  const int32_t rows = (c.window ? 1 : n) * group;
  if (workers <= 1 || c.kv_heads >= workers || rows > attn::kSdpaQueryTile) return false;
  const int32_t parts =
      std::min(workers / c.kv_heads, visible(c, p0 + n - 1) / attn::kDecodeKeyBlock);
  return parts >= 2;
}

// One run of a case's calls (Args: the op's args; op(args, scratch) calls
// it) with `ex` over a cache of `cs` and scratch of ws_bytes, into out
// [tokens, E] (`sentinel` until written). The first call of a threaded run is
// first made one byte of scratch short and with an executor without run:
// both rejected (kScratchTooSmall, kBadArgument), writing neither the output
// nor the cache.
template <class Args, class T, class Op>
std::vector<T> run_calls(const Case& c, const attn::Executor& ex, const attn::KvCacheShape& cs,
                         std::size_t ws_bytes,
                         const typename std::remove_pointer<decltype(Args::x)>::type* x, T sentinel,
                         const Op& op) {
  std::vector<unsigned char> store(attn::kv_cache_bytes(cs)), ws(ws_bytes);
  attn::KvCache cache;
  EXPECT_EQ(attn::kv_cache_init(cs, store.data(), store.size(), &cache), attn::Status::kOk);
  std::vector<T> out(uz(c.tokens) * uz(c.e), sentinel);
  int32_t t0 = 0;
  for (int32_t n : calls(c)) {
    Args a;
    a.x = x + uz(t0) * uz(c.e);
    a.out = out.data() + uz(t0) * uz(c.e);
    a.tokens = n;
    a.executor = ex;
    if (ex.workers > 1 && t0 == 0) {
      const std::vector<unsigned char> before = store;
      EXPECT_EQ(op(a, &cache, attn::Scratch{ws.data(), ws.size() - 1}),
                attn::Status::kScratchTooSmall);
      Args bad = a;
      bad.executor.run = nullptr;
      EXPECT_EQ(op(bad, &cache, attn::Scratch{ws.data(), ws.size()}), attn::Status::kBadArgument);
      EXPECT_EQ(out[0], sentinel);
      EXPECT_TRUE(store == before && cache.position == 0);
    }
    EXPECT_EQ(op(a, &cache, attn::Scratch{ws.data(), ws.size()}), attn::Status::kOk);
    t0 += n;
  }
  return out;
}

// ------------------------------------------------------------------ float
struct F32Model {
  explicit F32Model(const Case& c)
      : hd(c.e / c.heads),
        kvd(c.kv_heads * hd),
        x(uniform(uz(c.tokens) * uz(c.e), 1, -1.0f, 1.0f)),
        wq(uniform(uz(c.e) * uz(c.e), 2, -0.3f, 0.3f)),
        wk(uniform(uz(kvd) * uz(c.e), 3, -0.3f, 0.3f)),
        wv(uniform(uz(kvd) * uz(c.e), 4, -0.3f, 0.3f)),
        wo(uniform(uz(c.e) * uz(c.e), 5, -0.3f, 0.3f)),
        b_in(uniform(uz(c.e + 2 * kvd), 6, -0.2f, 0.2f)),
        bo(uniform(uz(c.e), 7, -0.2f, 0.2f)),
        w_in(uz(c.e + 2 * kvd) * uz(c.e)) {
    std::copy(wq.begin(), wq.end(), w_in.begin());
    std::copy(wk.begin(), wk.end(), w_in.begin() + static_cast<std::ptrdiff_t>(wq.size()));
    std::copy(wv.begin(), wv.end(),
              w_in.begin() + static_cast<std::ptrdiff_t>(wq.size() + wk.size()));
  }
  // Rounds the weight matrices to binary16 (nearest even): the bits into
  // the *16 vectors, the widened values into the float32 ones.
  void round_weights_to_halves() {
    const auto round = [](std::vector<float>* w, std::vector<uint16_t>* h) {
      h->resize(w->size());
      for (std::size_t i = 0; i < w->size(); ++i) {
        (*h)[i] = attn::f16::from_f32((*w)[i]);
        (*w)[i] = attn::f16::to_f32((*h)[i]);
      }
    };
    round(&wq, &wq16);
    round(&wk, &wk16);
    round(&wv, &wv16);
    round(&wo, &wo16);
    round(&w_in, &w_in16);
  }
  // The weights: float32, or (f16) the binary16 matrices of
  // round_weights_to_halves.
  attn::MhaDecodeF32Weights weights(const Case& c, bool f16 = false) const {
    attn::MhaDecodeF32Weights w = weights_f32(c);
    if (!f16) return w;
    if (c.packed) {
      w.in_proj_weight = nullptr;
      w.in_proj_weight_f16 = w_in16.data();
    } else {
      w.q_proj_weight = nullptr;
      w.k_proj_weight = nullptr;
      w.v_proj_weight = nullptr;
      w.q_proj_weight_f16 = wq16.data();
      w.k_proj_weight_f16 = wk16.data();
      w.v_proj_weight_f16 = wv16.data();
    }
    w.out_proj_weight = nullptr;
    w.out_proj_weight_f16 = wo16.data();
    return w;
  }
  attn::MhaDecodeF32Weights weights_f32(const Case& c) const {
    attn::MhaDecodeF32Weights w;
    if (c.packed) {
      w.in_proj_weight = w_in.data();
      w.in_proj_bias = b_in.data();
    } else {
      w.q_proj_weight = wq.data();
      w.k_proj_weight = wk.data();
      w.v_proj_weight = wv.data();
      w.q_proj_bias = b_in.data();
      w.k_proj_bias = b_in.data() + c.e;
      w.v_proj_bias = b_in.data() + c.e + kvd;
    }
    w.out_proj_weight = wo.data();
    w.out_proj_bias = bo.data();
    return w;
  }
  int32_t hd, kvd;
  std::vector<float> x, wq, wk, wv, wo, b_in, bo, w_in;
  std::vector<uint16_t> wq16, wk16, wv16, wo16, w_in16;
};

// The double-precision step output of token p and its bound (no RoPE).
struct Reference {
  Reference(const Case& c, const F32Model& m) : c_(c), m_(m) {
    const std::size_t nq = uz(c.tokens) * uz(c.e), nk = uz(c.tokens) * uz(m.kvd);
    q.resize(nq);
    q_err.resize(nq);
    k.resize(nk);
    k_err.resize(nk);
    v.resize(nk);
    v_err.resize(nk);
    attn_ref::project<float>(c.tokens, c.e, c.e, m.x.data(), uz(c.e), nullptr, m.wq.data(), uz(c.e),
                             1, m.b_in.data(), q.data(), q_err.data(), uz(c.e));
    attn_ref::project<float>(c.tokens, c.e, m.kvd, m.x.data(), uz(c.e), nullptr, m.wk.data(),
                             uz(c.e), 1, m.b_in.data() + c.e, k.data(), k_err.data(), uz(m.kvd));
    attn_ref::project<float>(c.tokens, c.e, m.kvd, m.x.data(), uz(c.e), nullptr, m.wv.data(),
                             uz(c.e), 1, m.b_in.data() + c.e + m.kvd, v.data(), v_err.data(),
                             uz(m.kvd));
    if (c.element == KvElement::kF16) {
      for (std::size_t i = 0; i < nk; ++i) {
        k_err[i] += (std::fabs(k[i]) + k_err[i]) * 0x1p-11 + 0x1p-25;
        v_err[i] += (std::fabs(v[i]) + v_err[i]) * 0x1p-11 + 0x1p-25;
      }
    }
  }
  // Output row of token p into value / tol ([E]).
  void step(int32_t p, std::vector<double>* value, std::vector<double>* tol) const {
    const int32_t first = p + 1 - visible(c_, p);
    const int32_t skv = p + 1 - first;
    const int32_t group = c_.heads / c_.kv_heads;
    std::vector<double> o(uz(c_.e)), o_err(uz(c_.e)), pr(uz(skv)), pt(uz(skv));
    const std::size_t row = uz(p) * uz(c_.e), key = uz(first) * uz(m_.kvd);
    for (int32_t h = 0; h < c_.heads; ++h) {
      const std::size_t qc = uz(h) * uz(m_.hd), kc = uz(h / group) * uz(m_.hd);
      attn_ref::attention<double>(
          1, skv, m_.hd, m_.hd, 1.0 / std::sqrt(double(m_.hd)), attn_ref::kEps, q.data() + row + qc,
          uz(c_.e), q_err.data() + row + qc, k.data() + key + kc, uz(m_.kvd),
          k_err.data() + key + kc, v.data() + key + kc, uz(m_.kvd), v_err.data() + key + kc,
          attn_ref::MaskView{}, pr.data(), pt.data(), o.data() + qc, o_err.data() + qc, uz(c_.e));
    }
    value->assign(uz(c_.e), 0.0);
    tol->assign(uz(c_.e), 0.0);
    attn_ref::project<double>(1, c_.e, c_.e, o.data(), uz(c_.e), o_err.data(), m_.wo.data(),
                              uz(c_.e), 1, m_.bo.data(), value->data(), tol->data(), uz(c_.e));
  }
  const Case& c_;
  const F32Model& m_;
  std::vector<double> q, q_err, k, k_err, v, v_err;
};

attn::MhaDecodeShape shape_of(const Case& c) {
  attn::MhaDecodeShape s;
  s.embed_dim = c.e;
  s.num_heads = c.heads;
  s.num_kv_heads = c.kv_heads;
  s.max_tokens = c.chunk;
  s.cache_element = c.element;
  s.rope.dims = c.rope_dims;
  s.rope.style = c.rope_dims == 4 ? attn::RopeStyle::kInterleaved : attn::RopeStyle::kHalfSplit;
  return s;
}

// One run of a case's float calls with `ex` (default: serial); f16: the
// binary16 weights; kt_cache: a packed cache (K in transposed blocks).
std::vector<float> run_f32(const Case& c, const F32Model& m, const attn::Executor& ex,
                           bool f16 = false, bool kt_cache = false) {
  const attn::MhaDecodeShape s = shape_of(c);
  const attn::MhaDecodeF32Weights w = m.weights(c, f16);
  return run_calls<attn::MhaDecodeF32Args>(
      c, ex, {c.capacity, c.kv_heads, m.hd, c.element, c.window, kt_cache},
      attn::mha_decode_f32_scratch_bytes(s, ex.workers), m.x.data(), -7.0f,
      [&](const attn::MhaDecodeF32Args& a, attn::KvCache* cache, attn::Scratch ws) {
        return attn::mha_decode_f32(s, w, a, cache, ws);
      });
}

class DecodeThreads : public testing::TestWithParam<int32_t> {};

// Every case with a plain and with a packed cache (K in transposed blocks:
// the key split's ranges start at block boundaries).
TEST_P(DecodeThreads, FloatMatchesSerial) {
  const int32_t workers = GetParam();
  for (const bool kt : {false, true}) {
    for (const Case& c : kF32Cases) {
      SCOPED_TRACE(testing::Message() << "E=" << c.e << " H=" << c.heads << " G=" << c.kv_heads
                                      << " f16=" << (c.element == KvElement::kF16) << " window="
                                      << c.window << " chunk=" << c.chunk << " rope=" << c.rope_dims
                                      << " packed cache=" << kt << " workers=" << workers);
      const F32Model m(c);
      const std::vector<float> serial = run_f32(c, m, attn::Executor{}, false, kt);
      const std::vector<float> pooled = run_f32(c, m, pool(workers).executor(), false, kt);
      const std::vector<float> stripes = run_f32(c, m, striped(workers), false, kt);
      ASSERT_EQ(std::memcmp(pooled.data(), stripes.data(), pooled.size() * 4), 0)
          << "depends on the executor";
      const Reference ref(c, m);
      std::vector<double> value, tol;
      int32_t t0 = 0;
      int split_calls = 0;
      for (int32_t n : calls(c)) {
        const std::size_t first = uz(t0) * uz(c.e), count = uz(n) * uz(c.e);
        if (!key_split_expected(c, workers, n, t0)) {
          ASSERT_EQ(std::memcmp(serial.data() + first, pooled.data() + first, count * 4), 0)
              << "not bit-identical, tokens " << t0 << " + " << n;
          t0 += n;
          continue;
        }
        ++split_calls;
        ASSERT_EQ(c.rope_dims, 0) << "the reference has no rotation";
        for (int32_t t = t0; t < t0 + n; ++t) {
          ref.step(t, &value, &tol);
          for (std::size_t i = 0; i < uz(c.e); ++i) {
            const std::size_t at = uz(t) * uz(c.e) + i;
            ASSERT_LE(std::fabs(static_cast<double>(pooled[at]) - value[i]), tol[i])
                << "token " << t << " i " << i;
            ASSERT_LE(std::fabs(static_cast<double>(pooled[at]) - serial[at]), 2.0 * tol[i])
                << "token " << t << " i " << i;
          }
        }
        t0 += n;
      }
      if (workers >= 3 && c.kv_heads == 1) {
        EXPECT_GT(split_calls, 0) << "the key split not reached";
      }
    }
  }
}

TEST_P(DecodeThreads, Float16WeightsBitIdenticalToWidened) {
  const int32_t workers = GetParam();
  for (const Case& c : kF32Cases) {
    SCOPED_TRACE(testing::Message()
                 << "E=" << c.e << " H=" << c.heads << " G=" << c.kv_heads << " f16 cache="
                 << (c.element == KvElement::kF16) << " window=" << c.window << " chunk=" << c.chunk
                 << " rope=" << c.rope_dims << " packed=" << c.packed << " workers=" << workers);
    F32Model m(c);
    m.round_weights_to_halves();
    const attn::Executor serial{};
    for (const attn::Executor& ex : {serial, pool(workers).executor(), striped(workers)}) {
      const std::vector<float> widened = run_f32(c, m, ex);
      const std::vector<float> halves = run_f32(c, m, ex, true);
      ASSERT_EQ(std::memcmp(widened.data(), halves.data(), widened.size() * 4), 0)
          << "workers " << ex.workers;
    }
  }
}

// ------------------------------------------------------------------ int8
struct S8Model {
  explicit S8Model(const Case& c)
      : hd(c.e / c.heads), kvd(c.kv_heads * hd), scales(uniform(uz(c.e), 9, 0.004f, 0.006f)) {
    std::mt19937 rng(10);
    std::uniform_int_distribution<int> i8(-127, 127);
    const auto codes = [&](std::size_t n) {
      std::vector<int8_t> v(n);
      for (int8_t& code : v) code = static_cast<int8_t>(i8(rng));
      return v;
    };
    x = codes(uz(c.tokens) * uz(c.e));
    wq = codes(uz(c.e) * uz(c.e));
    wk = codes(uz(kvd) * uz(c.e));
    wv = codes(uz(kvd) * uz(c.e));
    wo = codes(uz(c.e) * uz(c.e));
    for (int32_t i = 0; i < c.e; ++i) bias.push_back((i % 61) * 50 - 1500);
    quant.input = {0.05f, 3};
    quant.q = {0.05f, -2};
    quant.k = {0.05f, 1};
    quant.v = {0.05f, -5};
    quant.scores = {0.5f, 4};
    quant.attn = {0.05f, -1};
    quant.out = {0.05f, 2};
  }
  int32_t hd, kvd;
  std::vector<float> scales;
  std::vector<int8_t> x, wq, wk, wv, wo;
  std::vector<int32_t> bias;
  attn::MhaDecodeS8Quant quant;
};

// packed_cache: a packed int8 cache (KvCacheShape::packed), the same bits.
std::vector<int8_t> run_s8(const Case& c, const S8Model& m, const attn::MhaDecodeS8Params& p,
                           const attn::Executor& ex, bool packed_cache = false) {
  // Exactly the scratch the cache's shape needs (no K/V copies when packed).
  const attn::KvCacheShape cs{c.capacity, c.kv_heads, m.hd, KvElement::kS8, c.window, packed_cache};
  return run_calls<attn::MhaDecodeS8Args>(
      c, ex, cs, attn::mha_decode_s8_scratch_bytes(p.shape, cs, ex.workers), m.x.data(), int8_t{55},
      [&](const attn::MhaDecodeS8Args& a, attn::KvCache* cache, attn::Scratch ws) {
        return attn::mha_decode_s8(&p, a, cache, ws);
      });
}

TEST_P(DecodeThreads, Int8BitIdentical) {
  const int32_t workers = GetParam();
  for (const Case& c : kS8Cases) {
    SCOPED_TRACE(testing::Message()
                 << "E=" << c.e << " H=" << c.heads << " G=" << c.kv_heads << " window=" << c.window
                 << " chunk=" << c.chunk << " rope=" << c.rope_dims << " workers=" << workers);
    const S8Model m(c);
    attn::MhaS8Weights w;
    w.q = {m.wq.data(), m.scales.data(), m.bias.data()};
    w.k = {m.wk.data(), m.scales.data(), m.bias.data()};
    w.v = {m.wv.data(), m.scales.data(), m.bias.data()};
    w.out = {m.wo.data(), m.scales.data(), m.bias.data()};
    attn::MhaDecodeShape s = shape_of(c);
    std::vector<attn::QuantizedMultiplier> channels(attn::mha_decode_s8_channel_count(s));
    attn::MhaDecodeS8Params p;
    ASSERT_EQ(attn::mha_decode_s8_prepare(s, c.capacity, m.quant, w, channels.data(), &p),
              attn::Status::kOk);
    const std::vector<int8_t> serial = run_s8(c, m, p, attn::Executor{});
    int distinct = 0;  // not a degenerate output
    for (int8_t v : serial) distinct += v != serial[0] ? 1 : 0;
    EXPECT_GT(distinct, static_cast<int>(serial.size() / 2));
    EXPECT_EQ(serial, run_s8(c, m, p, pool(workers).executor()));
    EXPECT_EQ(serial, run_s8(c, m, p, striped(workers)));
    EXPECT_EQ(serial, run_s8(c, m, p, pool(workers).executor(), true));
  }
}

INSTANTIATE_TEST_SUITE_P(Workers, DecodeThreads, testing::Values(1, 2, 3, 7));

TEST(DecodeThreadsArgs, ScratchFormulasScaleWithWorkers) {
  attn::MhaDecodeShape s;
  s.embed_dim = 64;
  s.num_heads = 8;
  s.num_kv_heads = 2;
  s.max_tokens = 3;
  s.cache_element = KvElement::kF16;
  const std::size_t one = attn::mha_decode_f32_scratch_bytes(s);
  const std::size_t slice = attn::MhaDecodeF32Layout<>(8).bytes;
  EXPECT_EQ(one, attn::mha_decode_f32_scratch_bytes(s, 1));
  EXPECT_EQ(attn::mha_decode_f32_scratch_bytes(s, 7), one + 6 * slice);
  EXPECT_EQ(attn::mha_decode_f32_scratch_bytes(s, 0), 0u);
  s.cache_element = KvElement::kS8;
  const std::size_t one8 = attn::mha_decode_s8_scratch_bytes(s, 100);
  const auto slice8 = static_cast<std::size_t>(
      attn::mha_decode_s8_slice_bytes64(64, 8, 100, attn::mha_decode_s8_core_rows(s)));
  EXPECT_EQ(attn::mha_decode_s8_scratch_bytes(s, 100, 3), one8 + 2 * slice8);
  EXPECT_EQ(attn::mha_decode_s8_scratch_bytes(s, 100, -1), 0u);
}

}  // namespace
