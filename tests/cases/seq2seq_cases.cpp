// bahdanau_f32, luong_dot_f32 and luong_general_f32 against the double-precision
// reference (ref_double.h): random shapes (1, odd, across the 64-key block),
// with and without the Dense biases, key lengths 0 / full / random, the
// optional weights output.
#include <cmath>

#include "attn/bahdanau.h"
#include "attn/luong.h"
#include "case.h"
#include "ref_double.h"

namespace {

using attn_test::Arena;
using attn_test::Rng;

std::size_t uz(int i) { return static_cast<std::size_t>(i); }

enum class Op { kBahdanau, kLuongDot, kLuongGeneral };

struct Seq2SeqConfig {
  Op op = Op::kLuongDot;
  int batch = 1;
  int seq = 1;
  int dq = 1;  // query dim (== dk for Luong dot)
  int dk = 1;
  int units = 1;       // Bahdanau
  bool biases = true;  // Bahdanau b1, b2, bv; Luong general b
  bool lengths = false;
  bool weights = true;
  float q_amp = 1.0f;
  uint32_t seed = 1;
};

void describe(attn_test::Context& ctx, const Seq2SeqConfig& c, int line) {
  attn_test::fail(ctx, __FILE__, line,
                  "in config op=%d B=%d T=%d Dq=%d Dk=%d units=%d biases=%d lengths=%d "
                  "weights=%d q_amp=%g seed=%lu",
                  static_cast<int>(c.op), c.batch, c.seq, c.dq, c.dk, c.units, c.biases, c.lengths,
                  c.weights, static_cast<double>(c.q_amp), static_cast<unsigned long>(c.seed));
  --ctx.failures;
}

void run(attn_test::Context& ctx, Seq2SeqConfig c) {
  if (c.op == Op::kLuongDot) c.dq = c.dk;
  const int failures_before = ctx.failures;
  Arena arena;
  const std::size_t b = uz(c.batch);
  float* q = arena.alloc<float>(b * uz(c.dq));
  float* keys = arena.alloc<float>(b * uz(c.seq) * uz(c.dk));
  float* context = arena.alloc<float>(b * uz(c.dk));
  float* w = c.weights ? arena.alloc<float>(b * uz(c.seq)) : nullptr;
  auto* lens = arena.alloc<int32_t>(b);
  float* w1 = arena.alloc<float>(uz(c.dq) * uz(c.units));
  float* b1 = arena.alloc<float>(uz(c.units));
  float* w2 = arena.alloc<float>(uz(c.dk) * uz(c.units));
  float* b2 = arena.alloc<float>(uz(c.units));
  float* vv = arena.alloc<float>(uz(c.units));
  float* wg = arena.alloc<float>(uz(c.dk) * uz(c.dq));
  float* bg = arena.alloc<float>(uz(c.dq));
  std::size_t scratch_bytes = 0;
  if (c.op == Op::kBahdanau) {
    scratch_bytes = attn::bahdanau_f32_scratch_bytes({c.batch, c.seq, c.dq, c.dk, c.units});
  } else if (c.op == Op::kLuongDot) {
    scratch_bytes = attn::luong_dot_f32_scratch_bytes({c.batch, c.seq, c.dk});
  } else {
    scratch_bytes = attn::luong_general_f32_scratch_bytes({c.batch, c.seq, c.dq, c.dk});
  }
  void* scratch = arena.bytes(scratch_bytes);
  ATTN_ASSERT_TRUE(arena.ok());

  Rng rng(c.seed);
  attn_test::fill_uniform(rng, q, b * uz(c.dq), -c.q_amp, c.q_amp);
  attn_test::fill_uniform(rng, keys, b * uz(c.seq) * uz(c.dk), -1.0f, 1.0f);
  const float aq = 1.5f / std::sqrt(static_cast<float>(c.dq));
  const float ak = 1.5f / std::sqrt(static_cast<float>(c.dk));
  attn_test::fill_uniform(rng, w1, uz(c.dq) * uz(c.units), -aq, aq);
  attn_test::fill_uniform(rng, b1, uz(c.units), -0.5f, 0.5f);
  attn_test::fill_uniform(rng, w2, uz(c.dk) * uz(c.units), -ak, ak);
  attn_test::fill_uniform(rng, b2, uz(c.units), -0.5f, 0.5f);
  attn_test::fill_uniform(rng, vv, uz(c.units), -2.0f, 2.0f);
  attn_test::fill_uniform(rng, wg, uz(c.dk) * uz(c.dq), -ak, ak);
  attn_test::fill_uniform(rng, bg, uz(c.dq), -0.5f, 0.5f);
  const float bv = c.biases ? rng.uniform(-1.0f, 1.0f) : 0.0f;
  for (std::size_t i = 0; i < b; ++i) lens[i] = i == 1 ? c.seq : (i == 2 ? 0 : rng.range(0, c.seq));
  const int32_t* key_lengths = c.lengths ? lens : nullptr;

  attn::Status st = attn::Status::kOk;
  const attn::Scratch s{scratch, scratch_bytes};
  if (c.op == Op::kBahdanau) {
    attn::BahdanauF32Weights bw;
    bw.w1 = w1;
    bw.b1 = c.biases ? b1 : nullptr;
    bw.w2 = w2;
    bw.b2 = c.biases ? b2 : nullptr;
    bw.v = vv;
    bw.bv = bv;
    attn::BahdanauF32Args a;
    a.query = q;
    a.keys = keys;
    a.context = context;
    a.probs = w;
    a.key_lengths = key_lengths;
    st = attn::bahdanau_f32({c.batch, c.seq, c.dq, c.dk, c.units}, bw, a, s);
  } else {
    attn::LuongF32Args a;
    a.query = q;
    a.keys = keys;
    a.context = context;
    a.probs = w;
    a.key_lengths = key_lengths;
    if (c.op == Op::kLuongDot) {
      st = attn::luong_dot_f32({c.batch, c.seq, c.dk}, a, s);
    } else {
      st = attn::luong_general_f32({c.batch, c.seq, c.dq, c.dk}, {wg, c.biases ? bg : nullptr}, a,
                                   s);
    }
  }
  ATTN_EXPECT_STATUS(st, attn::Status::kOk);
  if (st != attn::Status::kOk) {
    describe(ctx, c, __LINE__);
    return;
  }

  for (std::size_t bi = 0; bi < b; ++bi) {
    Arena item;
    double* p = item.alloc<double>(uz(c.seq));
    double* pt = item.alloc<double>(uz(c.seq));
    double* o = item.alloc<double>(uz(c.dk));
    double* ot = item.alloc<double>(uz(c.dk));
    ATTN_ASSERT_TRUE(item.ok());
    const int len = key_lengths != nullptr ? lens[bi] : c.seq;
    const float* kb = keys + bi * uz(c.seq) * uz(c.dk);
    if (c.op == Op::kBahdanau) {
      attn_ref::bahdanau(c.seq, c.dq, c.dk, c.units, q + bi * uz(c.dq), kb, w1,
                         c.biases ? b1 : nullptr, w2, c.biases ? b2 : nullptr, vv, bv, len, p, pt,
                         o, ot);
    } else {
      attn_ref::luong(c.seq, c.dq, c.dk, q + bi * uz(c.dq), kb,
                      c.op == Op::kLuongGeneral ? wg : nullptr,
                      c.op == Op::kLuongGeneral && c.biases ? bg : nullptr, len, p, pt, o, ot);
    }
    ATTN_EXPECT_CLOSE("context", context + bi * uz(c.dk), o, ot, uz(c.dk));
    if (w != nullptr) ATTN_EXPECT_CLOSE("weights", w + bi * uz(c.seq), p, pt, uz(c.seq));
  }
  if (ctx.failures != failures_before) describe(ctx, c, __LINE__);
}

void run_random(attn_test::Context& ctx, Op op, uint32_t seed, int count) {
  static const int kSeq[] = {1, 2, 3, 5, 8, 13, 63, 64, 65, 100, 129};
  static const int kDim[] = {1, 2, 3, 4, 7, 8, 16, 17, 33};
  Rng rng(seed);
  for (int n = 0; n < count; ++n) {
    Seq2SeqConfig c;
    c.op = op;
    c.batch = rng.range(1, 3);
    c.seq = kSeq[rng.range(0, 10)];
    c.dq = kDim[rng.range(0, 8)];
    c.dk = kDim[rng.range(0, 8)];
    c.units = kDim[rng.range(0, 8)];
    c.biases = rng.range(0, 2) != 0;
    c.lengths = rng.range(0, 1) != 0;
    if (c.lengths) c.batch = 3;  // lengths 0 and full appear
    c.weights = rng.range(0, 3) != 0;
    c.q_amp = rng.range(0, 3) == 0 ? 4.0f : 1.0f;
    c.seed = seed * 1000u + static_cast<uint32_t>(n);
    run(ctx, c);
  }
}

}  // namespace

ATTN_CASE(Bahdanau, RandomShapesAgainstDoubleReference) { run_random(ctx, Op::kBahdanau, 201, 40); }

ATTN_CASE(LuongDot, RandomShapesAgainstDoubleReference) { run_random(ctx, Op::kLuongDot, 202, 40); }

ATTN_CASE(LuongGeneral, RandomShapesAgainstDoubleReference) {
  run_random(ctx, Op::kLuongGeneral, 203, 40);
}

ATTN_CASE(Seq2Seq, UnitShapesAndEmptyKeys) {
  // Every dimension 1; then key length 0 everywhere: exact zeros.
  for (int op = 0; op < 3; ++op) {
    Seq2SeqConfig c;
    c.op = static_cast<Op>(op);
    c.seed = 204u + static_cast<uint32_t>(op);
    run(ctx, c);
    c.lengths = true;
    c.batch = 3;
    c.seq = 7;
    c.dq = 3;
    c.dk = 5;
    c.units = 4;
    run(ctx, c);
  }
}

ATTN_CASE(LuongGeneral, BiasDoesNotChangeResults) {
  // luong.h: q . b is the same for every key, so b changes neither context nor
  // weights. Against the reference (which includes q . b) and bit for bit
  // against a run without b, with a large b.
  Seq2SeqConfig c;
  c.op = Op::kLuongGeneral;
  c.batch = 2;
  c.seq = 9;
  c.dq = 5;
  c.dk = 6;
  c.biases = true;
  c.seed = 207;
  run(ctx, c);

  static float q[5], keys[9 * 6], w[6 * 5], b[5];
  static float ctx0[6], ctx1[6], w0[9], w1[9];
  Rng rng(208);
  attn_test::fill_uniform(rng, q, 5, -1, 1);
  attn_test::fill_uniform(rng, keys, 9 * 6, -1, 1);
  attn_test::fill_uniform(rng, w, 6 * 5, -1, 1);
  attn_test::fill_uniform(rng, b, 5, 50, 100);
  constexpr attn::LuongGeneralShape shape{1, 9, 5, 6};
  static attn::Workspace<attn::luong_general_f32_scratch_bytes(shape)> ws;
  attn::LuongF32Args a;
  a.query = q;
  a.keys = keys;
  a.context = ctx0;
  a.probs = w0;
  ATTN_EXPECT_STATUS(attn::luong_general_f32(shape, {w, nullptr}, a, ws.scratch()),
                     attn::Status::kOk);
  a.context = ctx1;
  a.probs = w1;
  ATTN_EXPECT_STATUS(attn::luong_general_f32(shape, {w, b}, a, ws.scratch()), attn::Status::kOk);
  ATTN_EXPECT_SAME_BITS("context with b", ctx1, ctx0, 6);
  ATTN_EXPECT_SAME_BITS("weights with b", w1, w0, 9);
}

ATTN_CASE(Seq2Seq, ManyKeyBlocksWithWeights) {
  // Luong takes its keys in blocks of up to 32 KiB (1024 keys of dim 8 with a
  // SIMD backend, 512 in ref builds), Bahdanau in blocks of kSdpaKeyBlock: the
  // running max grows across blocks and the earlier weights follow it.
  for (int op = 0; op < 3; ++op) {
    Seq2SeqConfig c;
    c.op = static_cast<Op>(op);
    c.seq = c.op == Op::kBahdanau ? 300 : 1100;
    c.dq = 5;
    c.dk = 8;
    c.units = 6;
    c.q_amp = 4.0f;
    c.seed = 210u + static_cast<uint32_t>(op);
    run(ctx, c);
    c.lengths = true;
    c.batch = 3;
    run(ctx, c);
  }
}
