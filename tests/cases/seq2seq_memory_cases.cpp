// Prepared encoder memory: bahdanau_f32_memory + bahdanau_f32_step and
// luong_general_f32_memory + luong_general_f32_step against the one-shot ops
// (and the double-precision reference, ref_double.h), several decoder steps
// against one memory, shapes from 1 across the key tiles and blocks, with and
// without key lengths (0, full, random) and the optional weights output.
//
// Bahdanau: bahdanau_f32 is the memory of a tile computed into scratch plus the
// step's code, with the same kernel calls on the same operands, so the step
// equals it bit for bit. Luong general: the one-shot op scores (W q) . h_j,
// the step q . (h_j W); both are held to the reference's bound, and to each
// other within the sum of the two bounds.
#include <cmath>

#include "attn/bahdanau.h"
#include "attn/luong.h"
#include "case.h"
#include "ref_double.h"

namespace {

using attn_test::Arena;
using attn_test::Rng;

std::size_t uz(int i) { return static_cast<std::size_t>(i); }

struct MemoryConfig {
  int batch, seq, dq, dk, units;
  bool biases, lengths, weights;
};

// T = 1, odd sizes, across the 32-key tile and the 64-key block.
const MemoryConfig kConfigs[] = {
    {1, 1, 1, 1, 1, true, false, true},    {1, 1, 5, 4, 3, false, false, true},
    {2, 7, 5, 4, 6, true, true, true},     {3, 33, 8, 5, 7, true, true, false},
    {2, 65, 3, 9, 16, false, false, true}, {3, 100, 17, 8, 33, true, true, true},
    {1, 129, 7, 7, 7, true, false, true},  {3, 64, 16, 16, 16, true, true, true},
};
constexpr int kSteps = 3;  // decoder steps against one memory

struct Tensors {
  float *keys, *w1, *b1, *w2, *b2, *v, *wg, *bg;
  int32_t* lens;
  float bv;
};

bool make_tensors(Arena& arena, const MemoryConfig& c, uint32_t seed, Tensors* t) {
  const std::size_t b = uz(c.batch);
  t->keys = arena.alloc<float>(b * uz(c.seq) * uz(c.dk));
  t->w1 = arena.alloc<float>(uz(c.dq) * uz(c.units));
  t->b1 = arena.alloc<float>(uz(c.units));
  t->w2 = arena.alloc<float>(uz(c.dk) * uz(c.units));
  t->b2 = arena.alloc<float>(uz(c.units));
  t->v = arena.alloc<float>(uz(c.units));
  t->wg = arena.alloc<float>(uz(c.dk) * uz(c.dq));
  t->bg = arena.alloc<float>(uz(c.dq));
  t->lens = arena.alloc<int32_t>(b);
  if (!arena.ok()) return false;
  Rng rng(seed);
  attn_test::fill_uniform(rng, t->keys, b * uz(c.seq) * uz(c.dk), -1.0f, 1.0f);
  const float aq = 1.5f / std::sqrt(static_cast<float>(c.dq));
  const float ak = 1.5f / std::sqrt(static_cast<float>(c.dk));
  attn_test::fill_uniform(rng, t->w1, uz(c.dq) * uz(c.units), -aq, aq);
  attn_test::fill_uniform(rng, t->b1, uz(c.units), -0.5f, 0.5f);
  attn_test::fill_uniform(rng, t->w2, uz(c.dk) * uz(c.units), -ak, ak);
  attn_test::fill_uniform(rng, t->b2, uz(c.units), -0.5f, 0.5f);
  attn_test::fill_uniform(rng, t->v, uz(c.units), -2.0f, 2.0f);
  attn_test::fill_uniform(rng, t->wg, uz(c.dk) * uz(c.dq), -ak, ak);
  attn_test::fill_uniform(rng, t->bg, uz(c.dq), -0.5f, 0.5f);
  t->bv = c.biases ? rng.uniform(-1.0f, 1.0f) : 0.0f;
  for (std::size_t i = 0; i < b; ++i) {
    t->lens[i] = i == 1 ? c.seq : (i == 2 ? 0 : rng.range(0, c.seq));
  }
  return true;
}

// The reference for batch item bi, and a check of the step's context and
// weights (weights may be null) against it within its bound; when `one` (the
// one-shot op's context, then weights) is not null, also the step against the
// one-shot op within twice the bound (|step - one| <= |step - ref| + |ref - one|).
void check_reference(attn_test::Context& ctx, const MemoryConfig& c, const Tensors& t, bool luong,
                     const float* q, int bi, const float* context, const float* weights,
                     const float* one_context, const float* one_weights) {
  Arena item;
  double* p = item.alloc<double>(uz(c.seq));
  double* pt = item.alloc<double>(uz(c.seq));
  double* o = item.alloc<double>(uz(c.dk));
  double* ot = item.alloc<double>(uz(c.dk));
  ATTN_ASSERT_TRUE(item.ok());
  const int len = c.lengths ? t.lens[bi] : c.seq;
  const float* kb = t.keys + uz(bi) * uz(c.seq) * uz(c.dk);
  if (luong) {
    attn_ref::luong(c.seq, c.dq, c.dk, q, kb, t.wg, c.biases ? t.bg : nullptr, len, p, pt, o, ot);
  } else {
    attn_ref::bahdanau(c.seq, c.dq, c.dk, c.units, q, kb, t.w1, c.biases ? t.b1 : nullptr, t.w2,
                       c.biases ? t.b2 : nullptr, t.v, t.bv, len, p, pt, o, ot);
  }
  ATTN_EXPECT_CLOSE("step context vs reference", context, o, ot, uz(c.dk));
  if (weights != nullptr) ATTN_EXPECT_CLOSE("step weights vs reference", weights, p, pt, uz(c.seq));
  if (one_context == nullptr) return;
  for (int i = 0; i < c.dk; ++i) {
    o[i] = static_cast<double>(one_context[i]);
    ot[i] *= 2.0;
  }
  ATTN_EXPECT_CLOSE("step context vs one-shot", context, o, ot, uz(c.dk));
  if (weights == nullptr) return;
  for (int j = 0; j < c.seq; ++j) {
    p[j] = static_cast<double>(one_weights[j]);
    pt[j] *= 2.0;
  }
  ATTN_EXPECT_CLOSE("step weights vs one-shot", weights, p, pt, uz(c.seq));
}

}  // namespace

ATTN_CASE(BahdanauMemory, StepsEqualOneShotBitForBit) {
  uint32_t seed = 301;
  for (const MemoryConfig& c : kConfigs) {
    Arena arena;
    Tensors t;
    ATTN_ASSERT_TRUE(make_tensors(arena, c, seed++, &t));
    const attn::BahdanauShape shape{c.batch, c.seq, c.dq, c.dk, c.units};
    const std::size_t b = uz(c.batch);
    const std::size_t memory_bytes = attn::bahdanau_f32_memory_bytes(shape);
    ATTN_EXPECT_EQ_INT(memory_bytes, 4 * b * uz(c.seq) * uz(c.units));
    auto* memory = static_cast<float*>(arena.bytes(memory_bytes));
    const std::size_t scratch_bytes = attn::bahdanau_f32_scratch_bytes(shape);
    void* scratch = arena.bytes(scratch_bytes);
    float* q = arena.alloc<float>(b * uz(c.dq));
    float* ctx_one = arena.alloc<float>(b * uz(c.dk));
    float* ctx_step = arena.alloc<float>(b * uz(c.dk));
    float* w_one = arena.alloc<float>(b * uz(c.seq));
    float* w_step = arena.alloc<float>(b * uz(c.seq));
    ATTN_ASSERT_TRUE(arena.ok());
    attn::BahdanauF32Weights w;
    w.w1 = t.w1;
    w.b1 = c.biases ? t.b1 : nullptr;
    w.w2 = t.w2;
    w.b2 = c.biases ? t.b2 : nullptr;
    w.v = t.v;
    w.bv = t.bv;
    ATTN_EXPECT_STATUS(attn::bahdanau_f32_memory(shape, w, t.keys, memory, memory_bytes),
                       attn::Status::kOk);
    attn::BahdanauF32Weights step_weights = w;  // the step reads neither w2 nor b2
    step_weights.w2 = nullptr;
    step_weights.b2 = nullptr;
    Rng rng(seed * 7u);
    for (int step = 0; step < kSteps; ++step) {
      attn_test::fill_uniform(rng, q, b * uz(c.dq), -2.0f, 2.0f);
      attn::BahdanauF32Args a;
      a.query = q;
      a.keys = t.keys;
      a.context = ctx_one;
      a.probs = c.weights ? w_one : nullptr;
      a.key_lengths = c.lengths ? t.lens : nullptr;
      const attn::Scratch s{scratch, scratch_bytes};
      ATTN_EXPECT_STATUS(attn::bahdanau_f32(shape, w, a, s), attn::Status::kOk);
      a.context = ctx_step;
      a.probs = c.weights ? w_step : nullptr;
      ATTN_EXPECT_STATUS(attn::bahdanau_f32_step(shape, step_weights, a, memory, memory_bytes, s),
                         attn::Status::kOk);
      ATTN_EXPECT_SAME_BITS("step context", ctx_step, ctx_one, b * uz(c.dk));
      if (c.weights) ATTN_EXPECT_SAME_BITS("step weights", w_step, w_one, b * uz(c.seq));
      for (int bi = 0; bi < c.batch; ++bi) {
        check_reference(ctx, c, t, false, q + uz(bi) * uz(c.dq), bi, ctx_step + uz(bi) * uz(c.dk),
                        c.weights ? w_step + uz(bi) * uz(c.seq) : nullptr, nullptr, nullptr);
      }
    }
  }
}

ATTN_CASE(LuongGeneralMemory, StepsEqualOneShotWithinRounding) {
  uint32_t seed = 401;
  for (const MemoryConfig& c : kConfigs) {
    Arena arena;
    Tensors t;
    ATTN_ASSERT_TRUE(make_tensors(arena, c, seed++, &t));
    const attn::LuongGeneralShape shape{c.batch, c.seq, c.dq, c.dk};
    const std::size_t b = uz(c.batch);
    const std::size_t memory_bytes = attn::luong_general_f32_memory_bytes(shape);
    ATTN_EXPECT_EQ_INT(memory_bytes, 4 * b * uz(c.seq) * uz(c.dq));
    auto* memory = static_cast<float*>(arena.bytes(memory_bytes));
    const std::size_t one_bytes = attn::luong_general_f32_scratch_bytes(shape);
    const std::size_t step_bytes = attn::luong_general_f32_step_scratch_bytes(shape);
    void* one_scratch = arena.bytes(one_bytes);
    void* step_scratch = arena.bytes(step_bytes);
    float* q = arena.alloc<float>(b * uz(c.dq));
    float* ctx_one = arena.alloc<float>(b * uz(c.dk));
    float* ctx_step = arena.alloc<float>(b * uz(c.dk));
    float* w_one = arena.alloc<float>(b * uz(c.seq));
    float* w_step = arena.alloc<float>(b * uz(c.seq));
    ATTN_ASSERT_TRUE(arena.ok());
    const attn::LuongGeneralF32Weights w{t.wg, c.biases ? t.bg : nullptr};
    ATTN_EXPECT_STATUS(attn::luong_general_f32_memory(shape, w, t.keys, memory, memory_bytes),
                       attn::Status::kOk);
    Rng rng(seed * 7u);
    for (int step = 0; step < kSteps; ++step) {
      attn_test::fill_uniform(rng, q, b * uz(c.dq), -2.0f, 2.0f);
      attn::LuongF32Args a;
      a.query = q;
      a.keys = t.keys;
      a.context = ctx_one;
      a.probs = c.weights ? w_one : nullptr;
      a.key_lengths = c.lengths ? t.lens : nullptr;
      ATTN_EXPECT_STATUS(attn::luong_general_f32(shape, w, a, {one_scratch, one_bytes}),
                         attn::Status::kOk);
      a.context = ctx_step;
      a.probs = c.weights ? w_step : nullptr;
      ATTN_EXPECT_STATUS(
          attn::luong_general_f32_step(shape, a, memory, memory_bytes, {step_scratch, step_bytes}),
          attn::Status::kOk);
      for (int bi = 0; bi < c.batch; ++bi) {
        const std::size_t cb = uz(bi) * uz(c.dk);
        const std::size_t wb = uz(bi) * uz(c.seq);
        check_reference(ctx, c, t, true, q + uz(bi) * uz(c.dq), bi, ctx_step + cb,
                        c.weights ? w_step + wb : nullptr, ctx_one + cb, w_one + wb);
      }
    }
  }
}
