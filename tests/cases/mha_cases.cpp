// mha_f32 against the double-precision reference: PyTorch nn.MultiheadAttention
// weight layout (packed in_proj_weight, or separate q/k/v_proj_weight with
// kdim/vdim != E), with and without biases, self- and cross-attention, every
// mask kind, head-averaged and per-head weights, fully masked rows.
//
// The reference projects in double (Q = x Wq^T + bq, split into heads), runs
// attn_ref::attention per head with the projections' error bounds carried
// into the scores and values, and applies the output projection with the
// heads' output bounds propagated (see ref_double.h).
#include <cmath>
#include <limits>

#include "attn/mha.h"
#include "case.h"
#include "ref_double.h"

namespace {

using attn_test::Arena;
using attn_test::Rng;

std::size_t uz(int i) { return static_cast<std::size_t>(i); }

enum class WeightsOut { kNone, kAveraged, kPerHead };

struct MhaConfig {
  int batch = 1;
  int sq = 1;
  int skv = 1;
  int e = 4;
  int heads = 1;
  int kdim = 0;  // 0 = e
  int vdim = 0;
  bool packed = true;      // in_proj_weight (needs kdim == vdim == e)
  bool self_attn = false;  // query, key and value are one pointer (sq == skv)
  bool in_bias = true;
  bool out_bias = true;
  WeightsOut weights = WeightsOut::kAveraged;
  bool causal = false;
  bool lengths = false;
  bool keras = false;
  bool additive = false;
  bool boolean = false;
  bool per_batch = false;
  uint32_t seed = 1;
};

void describe(attn_test::Context& ctx, const MhaConfig& c, int line) {
  attn_test::fail(ctx, __FILE__, line,
                  "in config B=%d Sq=%d Skv=%d E=%d H=%d kdim=%d vdim=%d packed=%d self=%d "
                  "in_bias=%d out_bias=%d weights=%d causal=%d lengths=%d keras=%d additive=%d "
                  "bool=%d per_batch=%d seed=%lu",
                  c.batch, c.sq, c.skv, c.e, c.heads, c.kdim, c.vdim, c.packed, c.self_attn,
                  c.in_bias, c.out_bias, static_cast<int>(c.weights), c.causal, c.lengths, c.keras,
                  c.additive, c.boolean, c.per_batch, static_cast<unsigned long>(c.seed));
  --ctx.failures;
}

void run_mha(attn_test::Context& ctx, const MhaConfig& c) {
  const int failures_before = ctx.failures;
  Arena arena;
  const int e = c.e;
  const int kd = c.kdim == 0 ? e : c.kdim;
  const int vd = c.vdim == 0 ? e : c.vdim;
  const int hd = e / c.heads;
  const std::size_t b = uz(c.batch);
  const std::size_t sqkv = uz(c.sq) * uz(c.skv);
  const std::size_t mats = c.per_batch ? b : 1;

  float* query = arena.alloc<float>(b * uz(c.sq) * uz(e));
  float* key = c.self_attn ? query : arena.alloc<float>(b * uz(c.skv) * uz(kd));
  float* value = c.self_attn ? query : arena.alloc<float>(b * uz(c.skv) * uz(vd));
  float* out = arena.alloc<float>(b * uz(c.sq) * uz(e));
  const std::size_t nw = c.weights == WeightsOut::kPerHead ? b * uz(c.heads) * sqkv : b * sqkv;
  float* w = c.weights != WeightsOut::kNone ? arena.alloc<float>(nw) : nullptr;
  float* in_proj = c.packed ? arena.alloc<float>(3 * uz(e) * uz(e)) : nullptr;
  float* wq = c.packed ? nullptr : arena.alloc<float>(uz(e) * uz(e));
  float* wk = c.packed ? nullptr : arena.alloc<float>(uz(e) * uz(kd));
  float* wv = c.packed ? nullptr : arena.alloc<float>(uz(e) * uz(vd));
  float* in_bias = c.in_bias ? arena.alloc<float>(3 * uz(e)) : nullptr;
  float* wo = arena.alloc<float>(uz(e) * uz(e));
  float* bo = c.out_bias ? arena.alloc<float>(uz(e)) : nullptr;
  auto* lens = arena.alloc<int32_t>(b);
  float* keras = c.keras ? arena.alloc<float>(mats * sqkv) : nullptr;
  float* additive = c.additive ? arena.alloc<float>(mats * sqkv) : nullptr;
  uint8_t* boolean = c.boolean ? arena.alloc<uint8_t>(mats * sqkv) : nullptr;
  attn::MhaShape shape{c.batch, c.sq, c.skv, e, c.heads, c.kdim, c.vdim};
  const std::size_t scratch_bytes = attn::mha_f32_scratch_bytes(shape);
  void* scratch = arena.bytes(scratch_bytes);
  ATTN_ASSERT_TRUE(arena.ok());

  Rng rng(c.seed);
  attn_test::fill_uniform(rng, query, b * uz(c.sq) * uz(e), -1.0f, 1.0f);
  if (!c.self_attn) {
    attn_test::fill_uniform(rng, key, b * uz(c.skv) * uz(kd), -1.0f, 1.0f);
    attn_test::fill_uniform(rng, value, b * uz(c.skv) * uz(vd), -1.0f, 1.0f);
  }
  // Xavier-like weight ranges keep projections O(1).
  const float ae = 1.5f / std::sqrt(static_cast<float>(e));
  if (c.packed) attn_test::fill_uniform(rng, in_proj, 3 * uz(e) * uz(e), -ae, ae);
  if (!c.packed) {
    attn_test::fill_uniform(rng, wq, uz(e) * uz(e), -ae, ae);
    attn_test::fill_uniform(rng, wk, uz(e) * uz(kd), -ae, ae);
    attn_test::fill_uniform(rng, wv, uz(e) * uz(vd), -ae, ae);
  }
  if (in_bias != nullptr) attn_test::fill_uniform(rng, in_bias, 3 * uz(e), -0.5f, 0.5f);
  attn_test::fill_uniform(rng, wo, uz(e) * uz(e), -ae, ae);
  if (bo != nullptr) attn_test::fill_uniform(rng, bo, uz(e), -0.5f, 0.5f);
  for (std::size_t i = 0; i < b; ++i) lens[i] = i == 1 ? c.skv : (i == 2 ? 0 : rng.range(0, c.skv));
  const float kNegInf = -std::numeric_limits<float>::infinity();
  for (std::size_t i = 0; i < mats * sqkv; ++i) {
    if (keras != nullptr) keras[i] = rng.range(0, 3) == 0 ? 1.0f : 0.0f;
    if (additive != nullptr)
      additive[i] = rng.range(0, 4) == 0 ? kNegInf : rng.uniform(-2.0f, 1.0f);
    if (boolean != nullptr) boolean[i] = rng.range(0, 3) == 0 ? 1 : 0;
  }

  attn::MhaF32Weights weights;
  weights.in_proj_weight = in_proj;
  weights.q_proj_weight = wq;
  weights.k_proj_weight = wk;
  weights.v_proj_weight = wv;
  weights.in_proj_bias = in_bias;
  weights.out_proj_weight = wo;
  weights.out_proj_bias = bo;
  attn::MhaF32Args args;
  args.query = query;
  args.key = key;
  args.value = value;
  args.out = out;
  args.probs = w;
  args.probs_mode = c.weights == WeightsOut::kPerHead ? attn::MhaProbsMode::kPerHead
                                                      : attn::MhaProbsMode::kAveraged;
  args.mask.causal = c.causal;
  args.mask.key_lengths = c.lengths ? lens : nullptr;
  args.mask.keras = keras;
  args.mask.additive = additive;
  args.mask.boolean = boolean;
  args.mask.matrix_batch_stride = c.per_batch ? sqkv : 0;
  const attn::Status st = attn::mha_f32(shape, weights, args, {scratch, scratch_bytes});
  ATTN_EXPECT_STATUS(st, attn::Status::kOk);
  if (st != attn::Status::kOk) {
    describe(ctx, c, __LINE__);
    return;
  }

  // Reference, one batch item at a time.
  const float* ref_wq = c.packed ? in_proj : wq;
  const float* ref_wk = c.packed ? in_proj + uz(e) * uz(e) : wk;
  const float* ref_wv = c.packed ? in_proj + 2 * uz(e) * uz(e) : wv;
  const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
  for (std::size_t bi = 0; bi < b; ++bi) {
    Arena item;
    double* qp = item.alloc<double>(uz(c.sq) * uz(e));
    double* qe = item.alloc<double>(uz(c.sq) * uz(e));
    double* kp = item.alloc<double>(uz(c.skv) * uz(e));
    double* ke = item.alloc<double>(uz(c.skv) * uz(e));
    double* vp = item.alloc<double>(uz(c.skv) * uz(e));
    double* ve = item.alloc<double>(uz(c.skv) * uz(e));
    double* o = item.alloc<double>(uz(c.sq) * uz(e));
    double* oe = item.alloc<double>(uz(c.sq) * uz(e));
    double* p = item.alloc<double>(sqkv);
    double* pt = item.alloc<double>(sqkv);
    double* avg = item.alloc<double>(sqkv);
    double* avg_t = item.alloc<double>(sqkv);
    double* y = item.alloc<double>(uz(c.sq) * uz(e));
    double* ye = item.alloc<double>(uz(c.sq) * uz(e));
    ATTN_ASSERT_TRUE(item.ok());
    const float* xq = query + bi * uz(c.sq) * uz(e);
    const float* xk = key + bi * uz(c.skv) * uz(kd);
    const float* xv = value + bi * uz(c.skv) * uz(vd);
    attn_ref::project<float>(c.sq, e, e, xq, uz(e), nullptr, ref_wq, uz(e), 1, in_bias, qp, qe,
                             uz(e));
    attn_ref::project<float>(c.skv, kd, e, xk, uz(kd), nullptr, ref_wk, uz(kd), 1,
                             in_bias != nullptr ? in_bias + e : nullptr, kp, ke, uz(e));
    attn_ref::project<float>(c.skv, vd, e, xv, uz(vd), nullptr, ref_wv, uz(vd), 1,
                             in_bias != nullptr ? in_bias + 2 * e : nullptr, vp, ve, uz(e));
    attn_ref::MaskView mv;
    mv.causal = c.causal;
    mv.key_length = c.lengths ? lens[bi] : -1;
    const std::size_t moff = c.per_batch ? bi * sqkv : 0;
    mv.keras = keras != nullptr ? keras + moff : nullptr;
    mv.additive = additive != nullptr ? additive + moff : nullptr;
    mv.boolean = boolean != nullptr ? boolean + moff : nullptr;
    for (std::size_t i = 0; i < sqkv; ++i) avg[i] = avg_t[i] = 0.0;
    const double inv_h = 1.0 / static_cast<double>(c.heads);
    for (int h = 0; h < c.heads; ++h) {
      const std::size_t col = uz(h) * uz(hd);
      attn_ref::attention<double>(c.sq, c.skv, hd, hd, scale, attn_ref::kEps, qp + col, uz(e),
                                  qe + col, kp + col, uz(e), ke + col, vp + col, uz(e), ve + col,
                                  mv, p, pt, o + col, oe + col, uz(e));
      if (c.weights == WeightsOut::kPerHead) {
        ATTN_EXPECT_CLOSE("per-head weights", w + (bi * uz(c.heads) + uz(h)) * sqkv, p, pt, sqkv);
      }
      for (std::size_t i = 0; i < sqkv; ++i) {
        avg[i] += inv_h * p[i];
        avg_t[i] += inv_h * pt[i];
      }
    }
    if (c.weights == WeightsOut::kAveraged) {
      // H-term accumulation of alpha * p: (H + 2) more roundings.
      for (std::size_t i = 0; i < sqkv; ++i) {
        avg_t[i] += attn_ref::kEps * static_cast<double>(c.heads + 2) * avg[i];
      }
      ATTN_EXPECT_CLOSE("averaged weights", w + bi * sqkv, avg, avg_t, sqkv);
    }
    attn_ref::project<double>(c.sq, e, e, o, uz(e), oe, wo, uz(e), 1, bo, y, ye, uz(e));
    float* ob = out + bi * uz(c.sq) * uz(e);
    ATTN_EXPECT_CLOSE("out", ob, y, ye, uz(c.sq) * uz(e));
    // A row with every key masked: zero attention, so out is out_proj_bias exactly.
    for (int i = 0; i < c.sq; ++i) {
      bool empty = true;
      for (int j = 0; j < c.skv && empty; ++j) empty = pt[uz(i) * uz(c.skv) + uz(j)] == 0.0;
      if (!empty) continue;
      for (int col = 0; col < e; ++col) {
        const float want = bo != nullptr ? bo[col] : 0.0f;
        ATTN_EXPECT_TRUE(ob[uz(i) * uz(e) + uz(col)] == want);
      }
    }
  }
  if (ctx.failures != failures_before) describe(ctx, c, __LINE__);
}

// A random configuration: divisor head counts, packed or separate weights.
MhaConfig random_config(Rng& rng, uint32_t seed) {
  static const int kE[] = {1, 2, 3, 4, 6, 8, 12, 16};
  MhaConfig c;
  c.e = kE[rng.range(0, 7)];
  do {
    c.heads = rng.range(1, c.e);
  } while (c.e % c.heads != 0);
  c.batch = rng.range(1, 3);
  c.sq = rng.range(1, 19);
  c.skv = rng.range(1, 19);
  c.packed = rng.range(0, 1) == 0;
  if (!c.packed && rng.range(0, 1) == 0) {
    c.kdim = rng.range(1, 9);
    c.vdim = rng.range(1, 9);
  }
  c.self_attn = c.packed && rng.range(0, 3) == 0;
  if (c.self_attn) c.skv = c.sq;
  c.in_bias = rng.range(0, 3) != 0;
  c.out_bias = rng.range(0, 3) != 0;
  c.weights = static_cast<WeightsOut>(rng.range(0, 2));
  c.seed = seed;
  return c;
}

}  // namespace

ATTN_CASE(Mha, PackedAndSeparateWeightsRandomShapes) {
  Rng rng(101);
  for (int n = 0; n < 40; ++n) {
    MhaConfig c = random_config(rng, 10100u + static_cast<uint32_t>(n));
    run_mha(ctx, c);
  }
}

ATTN_CASE(Mha, SelfAttentionOnePointer) {
  MhaConfig c;
  c.self_attn = true;
  c.e = 8;
  c.heads = 2;
  c.sq = c.skv = 9;
  c.batch = 2;
  c.seed = 102;
  run_mha(ctx, c);
  c.causal = true;
  c.weights = WeightsOut::kPerHead;
  run_mha(ctx, c);
}

ATTN_CASE(Mha, CrossAttentionKdimVdim) {
  // Separate weights with kdim != vdim != E, Skv > Sq and < Sq, across a key block.
  const int shapes[][4] = {{5, 70, 3, 7}, {9, 2, 5, 1}, {1, 13, 11, 4}, {17, 65, 2, 2}};
  for (const auto& s : shapes) {
    MhaConfig c;
    c.packed = false;
    c.sq = s[0];
    c.skv = s[1];
    c.kdim = s[2];
    c.vdim = s[3];
    c.e = 6;
    c.heads = 3;
    c.batch = 2;
    c.weights = WeightsOut::kPerHead;
    c.seed = static_cast<uint32_t>(s[0] * 100 + s[1]);
    run_mha(ctx, c);
  }
}

ATTN_CASE(Mha, EveryMaskKind) {
  Rng rng(103);
  for (int bits = 0; bits < 64; ++bits) {
    MhaConfig c = random_config(rng, 10300u + static_cast<uint32_t>(bits));
    c.causal = (bits & 1) != 0;
    c.lengths = (bits & 2) != 0;
    c.keras = (bits & 4) != 0;
    c.additive = (bits & 8) != 0;
    c.boolean = (bits & 16) != 0;
    c.per_batch = (bits & 32) != 0;
    if (c.lengths) c.batch = 3;  // key lengths 0 and full appear
    run_mha(ctx, c);
  }
}

ATTN_CASE(Mha, AveragedVersusPerHeadWeights) {
  // Same problem, both weight modes: the average of the per-head weights is
  // the averaged output (each checked against the reference in run_mha).
  for (int mode = 1; mode <= 2; ++mode) {
    MhaConfig c;
    c.e = 12;
    c.heads = 4;
    c.sq = 7;
    c.skv = 11;
    c.batch = 2;
    c.causal = true;
    c.boolean = true;
    c.weights = static_cast<WeightsOut>(mode);
    c.seed = 104;
    run_mha(ctx, c);
  }
}

ATTN_CASE(Mha, FullyMaskedRowsGiveOutProjBias) {
  // Causal with Skv < Sq: the first Sq - Skv rows see no key.
  MhaConfig c;
  c.e = 4;
  c.heads = 2;
  c.sq = 6;
  c.skv = 2;
  c.causal = true;
  c.weights = WeightsOut::kPerHead;
  c.seed = 105;
  run_mha(ctx, c);
  c.out_bias = false;
  run_mha(ctx, c);
  // Key length 0 for batch item 2.
  c.causal = false;
  c.lengths = true;
  c.batch = 3;
  c.out_bias = true;
  run_mha(ctx, c);
}
