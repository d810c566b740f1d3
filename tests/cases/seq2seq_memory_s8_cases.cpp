// Prepared encoder memory, int8: bahdanau_s8_memory + bahdanau_s8_step and
// luong_general_s8_memory + luong_general_s8_step equal the one-shot
// bahdanau_s8 / luong_s8 bit for bit (context and weights), several decoder
// steps against one memory, shapes from 1 across the 64-key blocks, key
// lengths 0 / full / random. The one-shot ops are held to the NumPy reference
// of the TFLite op sequence in attention_s8_cases.cpp. Buffers from the test
// arena (the file runs on every board).
#include <cmath>
#include <cstdint>

#include "attn/bahdanau_s8.h"
#include "attn/luong_s8.h"
#include "case.h"

namespace {

using attn_test::Arena;
using attn_test::Rng;

std::size_t uz(int i) { return static_cast<std::size_t>(i); }

struct MemoryConfig {
  int batch, seq, dq, dk, units;
  bool biases, lengths, weights;
};

const MemoryConfig kConfigs[] = {
    {1, 1, 1, 1, 1, true, false, true},    {1, 1, 5, 4, 3, false, false, true},
    {2, 7, 5, 4, 6, true, true, true},     {3, 33, 8, 5, 7, true, true, false},
    {2, 65, 3, 9, 16, false, false, true}, {3, 100, 17, 8, 33, true, true, true},
    {1, 129, 7, 7, 7, true, false, true},  {3, 64, 16, 16, 16, true, true, true},
};
constexpr int kSteps = 3;

void draw(Rng& r, int8_t* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<int8_t>(r.range(-128, 127));
}

// A layer of n_out x n_in int8 weights whose outputs stay mostly in range:
// real weights about +-0.5 / sqrt(n_in) for inputs of scale 0.02.
struct Layer {
  int8_t* weight = nullptr;
  float* scales = nullptr;
  int32_t* bias = nullptr;
  attn::FcS8Weights fc(bool biases) const { return {weight, scales, biases ? bias : nullptr}; }
};

bool make_layer(Arena& arena, Rng& r, int n_in, int n_out, Layer* l) {
  l->weight = arena.alloc<int8_t>(uz(n_in) * uz(n_out));
  l->scales = arena.alloc<float>(uz(n_out));
  l->bias = arena.alloc<int32_t>(uz(n_out));
  if (!arena.ok()) return false;
  draw(r, l->weight, uz(n_in) * uz(n_out));
  const float base = 0.5f / (127.0f * std::sqrt(static_cast<float>(n_in)));
  for (int c = 0; c < n_out; ++c) {
    l->scales[c] = base * (1.0f + 0.05f * static_cast<float>(c % 7));
    l->bias[c] = r.range(-3000, 3000);
  }
  return true;
}

int count_diff(const int8_t* a, const int8_t* b, std::size_t n) {
  int d = 0;
  for (std::size_t i = 0; i < n; ++i) d += a[i] != b[i] ? 1 : 0;
  return d;
}

// The buffers of one configuration: inputs, both ops' outputs, lengths.
struct Buffers {
  int8_t *keys, *query, *ctx_one, *ctx_step, *w_one, *w_step;
  int32_t* lens;
};

bool make_buffers(Arena& arena, Rng& r, const MemoryConfig& c, Buffers* b) {
  const std::size_t n = uz(c.batch);
  b->keys = arena.alloc<int8_t>(n * uz(c.seq) * uz(c.dk));
  b->query = arena.alloc<int8_t>(n * uz(c.dq));
  b->ctx_one = arena.alloc<int8_t>(n * uz(c.dk));
  b->ctx_step = arena.alloc<int8_t>(n * uz(c.dk));
  b->w_one = arena.alloc<int8_t>(n * uz(c.seq));
  b->w_step = arena.alloc<int8_t>(n * uz(c.seq));
  b->lens = arena.alloc<int32_t>(n);
  if (!arena.ok()) return false;
  draw(r, b->keys, n * uz(c.seq) * uz(c.dk));
  for (std::size_t i = 0; i < n; ++i) {
    b->lens[i] = i == 1 ? c.seq : (i == 2 ? 0 : r.range(0, c.seq));
  }
  return true;
}

void expect_same(attn_test::Context& ctx, const MemoryConfig& c, const Buffers& b, int step) {
  const int dc = count_diff(b.ctx_step, b.ctx_one, uz(c.batch) * uz(c.dk));
  const int dw = c.weights ? count_diff(b.w_step, b.w_one, uz(c.batch) * uz(c.seq)) : 0;
  ATTN_EXPECT_EQ_INT(dc, 0);
  ATTN_EXPECT_EQ_INT(dw, 0);
  if (dc != 0 || dw != 0) {
    attn_test::fail(ctx, __FILE__, __LINE__, "in config B=%d T=%d Dq=%d Dk=%d units=%d step %d",
                    c.batch, c.seq, c.dq, c.dk, c.units, step);
  }
}

}  // namespace

ATTN_CASE(BahdanauS8Memory, StepsEqualOneShotBitForBit) {
  attn::BahdanauS8Quant q;
  q.query = {0.03f, -4};
  q.keys = {0.02f, 6};
  q.query_proj = {0.02f, 3};
  q.keys_proj = {0.02f, -2};
  q.sum = {0.03f, 5};
  q.scores = {0.05f, -3};
  q.context = {0.02f, 1};
  uint32_t seed = 501;
  for (const MemoryConfig& c : kConfigs) {
    Arena arena;
    Rng r(seed++);
    Buffers b;
    Layer w1, w2, v;
    ATTN_ASSERT_TRUE(make_buffers(arena, r, c, &b));
    ATTN_ASSERT_TRUE(make_layer(arena, r, c.dq, c.units, &w1) &&
                     make_layer(arena, r, c.dk, c.units, &w2) &&
                     make_layer(arena, r, c.units, 1, &v));
    const attn::BahdanauShape shape{c.batch, c.seq, c.dq, c.dk, c.units};
    auto* storage = arena.alloc<attn::QuantizedMultiplier>(attn::bahdanau_s8_channel_count(shape));
    auto* params = arena.alloc<attn::BahdanauS8Params>(1);
    const std::size_t memory_bytes = attn::bahdanau_s8_memory_bytes(shape);
    auto* memory = arena.alloc<int8_t>(memory_bytes);
    const std::size_t scratch_bytes = attn::bahdanau_s8_scratch_bytes(shape);
    void* scratch = arena.bytes(scratch_bytes);
    ATTN_ASSERT_TRUE(arena.ok());
    ATTN_EXPECT_EQ_INT(memory_bytes, uz(c.batch) * uz(c.seq) * uz(c.units));
    const attn::BahdanauS8Weights w{w1.fc(c.biases), w2.fc(c.biases), v.fc(c.biases)};
    ATTN_ASSERT_TRUE(attn::bahdanau_s8_prepare(shape, q, w, storage, params) == attn::Status::kOk);
    ATTN_EXPECT_STATUS(attn::bahdanau_s8_memory(*params, b.keys, memory, memory_bytes),
                       attn::Status::kOk);
    for (int step = 0; step < kSteps; ++step) {
      draw(r, b.query, uz(c.batch) * uz(c.dq));
      attn::BahdanauS8Args a;
      a.query = b.query;
      a.keys = b.keys;
      a.context = b.ctx_one;
      a.probs = c.weights ? b.w_one : nullptr;
      a.key_lengths = c.lengths ? b.lens : nullptr;
      const attn::Scratch s{scratch, scratch_bytes};
      ATTN_EXPECT_STATUS(attn::bahdanau_s8(*params, a, s), attn::Status::kOk);
      a.context = b.ctx_step;
      a.probs = c.weights ? b.w_step : nullptr;
      ATTN_EXPECT_STATUS(attn::bahdanau_s8_step(*params, a, memory, memory_bytes, s),
                         attn::Status::kOk);
      expect_same(ctx, c, b, step);
    }
  }
}

ATTN_CASE(LuongGeneralS8Memory, StepsEqualOneShotBitForBit) {
  attn::LuongS8Quant q;
  q.query = {0.03f, -4};
  q.keys = {0.02f, 6};
  q.keys_proj = {0.02f, -1};
  q.scores = {0.1f, 3};
  q.context = {0.02f, -2};
  uint32_t seed = 601;
  for (const MemoryConfig& c : kConfigs) {
    Arena arena;
    Rng r(seed++);
    Buffers b;
    Layer proj;
    ATTN_ASSERT_TRUE(make_buffers(arena, r, c, &b));
    ATTN_ASSERT_TRUE(make_layer(arena, r, c.dk, c.dq, &proj));
    const attn::LuongGeneralShape shape{c.batch, c.seq, c.dq, c.dk};
    auto* storage = arena.alloc<attn::QuantizedMultiplier>(uz(c.dq));
    auto* params = arena.alloc<attn::LuongS8Params>(1);
    const std::size_t memory_bytes = attn::luong_general_s8_memory_bytes(shape);
    auto* memory = arena.alloc<int8_t>(memory_bytes);
    const std::size_t one_bytes = attn::luong_general_s8_scratch_bytes(shape);
    const std::size_t step_bytes = attn::luong_general_s8_step_scratch_bytes(shape);
    void* one_scratch = arena.bytes(one_bytes);
    void* step_scratch = arena.bytes(step_bytes);
    ATTN_ASSERT_TRUE(arena.ok());
    ATTN_EXPECT_EQ_INT(memory_bytes, uz(c.batch) * uz(c.seq) * uz(c.dq));
    ATTN_ASSERT_TRUE(attn::luong_general_s8_prepare(shape, q, proj.fc(c.biases), storage, params) ==
                     attn::Status::kOk);
    ATTN_EXPECT_STATUS(attn::luong_general_s8_memory(*params, b.keys, memory, memory_bytes),
                       attn::Status::kOk);
    for (int step = 0; step < kSteps; ++step) {
      draw(r, b.query, uz(c.batch) * uz(c.dq));
      attn::LuongS8Args a;
      a.query = b.query;
      a.keys = b.keys;
      a.context = b.ctx_one;
      a.probs = c.weights ? b.w_one : nullptr;
      a.key_lengths = c.lengths ? b.lens : nullptr;
      ATTN_EXPECT_STATUS(attn::luong_s8(*params, a, {one_scratch, one_bytes}), attn::Status::kOk);
      a.context = b.ctx_step;
      a.probs = c.weights ? b.w_step : nullptr;
      ATTN_EXPECT_STATUS(
          attn::luong_general_s8_step(*params, a, memory, memory_bytes, {step_scratch, step_bytes}),
          attn::Status::kOk);
      expect_same(ctx, c, b, step);
    }
  }
}
