// general_attention_f32 against the double-precision reference: Q = X W_q,
// K = X W_k, V = X W_v in NumPy layout, then softmax(Q K^T * scale + mask) V,
// over random shapes, default and explicit scale, every mask kind, weights.
#include <cmath>
#include <limits>

#include "attn/general_attention.h"
#include "case.h"
#include "ref_double.h"

namespace {

using attn_test::Arena;
using attn_test::Rng;

std::size_t uz(int i) { return static_cast<std::size_t>(i); }

struct GeneralConfig {
  int batch = 1;
  int seq = 1;
  int in_dim = 1;
  int dk = 1;
  int dv = 1;
  float scale = 0.0f;
  bool weights = true;
  bool causal = false;
  bool lengths = false;
  bool keras = false;
  bool additive = false;
  bool boolean = false;
  bool per_batch = false;
  uint32_t seed = 1;
};

void describe(attn_test::Context& ctx, const GeneralConfig& c, int line) {
  attn_test::fail(ctx, __FILE__, line,
                  "in config B=%d S=%d in=%d Dk=%d Dv=%d scale=%g weights=%d causal=%d "
                  "lengths=%d keras=%d additive=%d bool=%d per_batch=%d seed=%lu",
                  c.batch, c.seq, c.in_dim, c.dk, c.dv, static_cast<double>(c.scale), c.weights,
                  c.causal, c.lengths, c.keras, c.additive, c.boolean, c.per_batch,
                  static_cast<unsigned long>(c.seed));
  --ctx.failures;
}

// Arena bytes a config needs (inputs, outputs, masks, scratch, reference).
std::size_t arena_bytes(const GeneralConfig& c) {
  const std::size_t b = uz(c.batch), ss = uz(c.seq) * uz(c.seq);
  const std::size_t mats = c.per_batch ? b : 1;
  const std::size_t d = uz(c.in_dim) + 2 * uz(c.dk) + 2 * uz(c.dv);
  return 4 * b * (uz(c.seq) * d + ss) + 9 * mats * ss + 16 * ss + 48 * uz(c.seq) * d +
         attn::general_attention_f32_scratch_bytes({c.batch, c.seq, c.in_dim, c.dk, c.dv}) +
         24 * 64;
}

void run(attn_test::Context& ctx, GeneralConfig c) {
  while (arena_bytes(c) > attn_test::kArenaBytes - 4096 && c.seq > 1) c.seq = c.seq / 2 + 1;
  const int failures_before = ctx.failures;
  Arena arena;
  const std::size_t b = uz(c.batch);
  const std::size_t ss = uz(c.seq) * uz(c.seq);
  const std::size_t mats = c.per_batch ? b : 1;
  float* x = arena.alloc<float>(b * uz(c.seq) * uz(c.in_dim));
  float* wq = arena.alloc<float>(uz(c.in_dim) * uz(c.dk));
  float* wk = arena.alloc<float>(uz(c.in_dim) * uz(c.dk));
  float* wv = arena.alloc<float>(uz(c.in_dim) * uz(c.dv));
  float* out = arena.alloc<float>(b * uz(c.seq) * uz(c.dv));
  float* w = c.weights ? arena.alloc<float>(b * ss) : nullptr;
  auto* lens = arena.alloc<int32_t>(b);
  float* keras = c.keras ? arena.alloc<float>(mats * ss) : nullptr;
  float* additive = c.additive ? arena.alloc<float>(mats * ss) : nullptr;
  uint8_t* boolean = c.boolean ? arena.alloc<uint8_t>(mats * ss) : nullptr;
  const attn::GeneralAttentionShape shape{c.batch, c.seq, c.in_dim, c.dk, c.dv};
  const std::size_t scratch_bytes = attn::general_attention_f32_scratch_bytes(shape);
  void* scratch = arena.bytes(scratch_bytes);
  ATTN_ASSERT_TRUE(arena.ok());

  Rng rng(c.seed);
  attn_test::fill_uniform(rng, x, b * uz(c.seq) * uz(c.in_dim), -1.0f, 1.0f);
  const float a = 1.5f / std::sqrt(static_cast<float>(c.in_dim));
  attn_test::fill_uniform(rng, wq, uz(c.in_dim) * uz(c.dk), -a, a);
  attn_test::fill_uniform(rng, wk, uz(c.in_dim) * uz(c.dk), -a, a);
  attn_test::fill_uniform(rng, wv, uz(c.in_dim) * uz(c.dv), -a, a);
  for (std::size_t i = 0; i < b; ++i) lens[i] = i == 1 ? c.seq : (i == 2 ? 0 : rng.range(0, c.seq));
  const float kNegInf = -std::numeric_limits<float>::infinity();
  for (std::size_t i = 0; i < mats * ss; ++i) {
    if (keras != nullptr) keras[i] = rng.range(0, 3) == 0 ? 1.0f : 0.0f;
    if (additive != nullptr)
      additive[i] = rng.range(0, 4) == 0 ? kNegInf : rng.uniform(-2.0f, 1.0f);
    if (boolean != nullptr) boolean[i] = rng.range(0, 3) == 0 ? 1 : 0;
  }

  attn::GeneralAttentionF32Args args;
  args.x = x;
  args.out = out;
  args.probs = w;
  args.scale = c.scale;
  args.mask.causal = c.causal;
  args.mask.key_lengths = c.lengths ? lens : nullptr;
  args.mask.keras = keras;
  args.mask.additive = additive;
  args.mask.boolean = boolean;
  args.mask.matrix_batch_stride = c.per_batch ? ss : 0;
  const attn::Status st =
      attn::general_attention_f32(shape, {wq, wk, wv}, args, {scratch, scratch_bytes});
  ATTN_EXPECT_STATUS(st, attn::Status::kOk);
  if (st != attn::Status::kOk) {
    describe(ctx, c, __LINE__);
    return;
  }

  const double scale = c.scale == 0.0f ? 1.0 / std::sqrt(static_cast<double>(c.dk))
                                       : static_cast<double>(c.scale);
  const double scale_err = c.scale == 0.0f ? attn_ref::kEps : 0.0;
  for (std::size_t bi = 0; bi < b; ++bi) {
    Arena item;
    const std::size_t nk = uz(c.seq) * uz(c.dk), nv = uz(c.seq) * uz(c.dv);
    double* q = item.alloc<double>(nk);
    double* qe = item.alloc<double>(nk);
    double* k = item.alloc<double>(nk);
    double* ke = item.alloc<double>(nk);
    double* v = item.alloc<double>(nv);
    double* ve = item.alloc<double>(nv);
    double* p = item.alloc<double>(ss);
    double* pt = item.alloc<double>(ss);
    double* o = item.alloc<double>(nv);
    double* ot = item.alloc<double>(nv);
    ATTN_ASSERT_TRUE(item.ok());
    const float* xb = x + bi * uz(c.seq) * uz(c.in_dim);
    // NumPy layout X @ W: W(o, i) = w[i * n_out + o].
    attn_ref::project<float>(c.seq, c.in_dim, c.dk, xb, uz(c.in_dim), nullptr, wq, 1, uz(c.dk),
                             nullptr, q, qe, uz(c.dk));
    attn_ref::project<float>(c.seq, c.in_dim, c.dk, xb, uz(c.in_dim), nullptr, wk, 1, uz(c.dk),
                             nullptr, k, ke, uz(c.dk));
    attn_ref::project<float>(c.seq, c.in_dim, c.dv, xb, uz(c.in_dim), nullptr, wv, 1, uz(c.dv),
                             nullptr, v, ve, uz(c.dv));
    attn_ref::MaskView mv;
    mv.causal = c.causal;
    mv.key_length = c.lengths ? lens[bi] : -1;
    const std::size_t moff = c.per_batch ? bi * ss : 0;
    mv.keras = keras != nullptr ? keras + moff : nullptr;
    mv.additive = additive != nullptr ? additive + moff : nullptr;
    mv.boolean = boolean != nullptr ? boolean + moff : nullptr;
    attn_ref::attention<double>(c.seq, c.seq, c.dk, c.dv, scale, scale_err, q, uz(c.dk), qe, k,
                                uz(c.dk), ke, v, uz(c.dv), ve, mv, p, pt, o, ot, uz(c.dv));
    ATTN_EXPECT_CLOSE("out", out + bi * nv, o, ot, nv);
    if (w != nullptr) ATTN_EXPECT_CLOSE("weights", w + bi * ss, p, pt, ss);
  }
  if (ctx.failures != failures_before) describe(ctx, c, __LINE__);
}

GeneralConfig random_config(Rng& rng, uint32_t seed) {
  static const int kSeq[] = {1, 2, 3, 4, 5, 8, 9, 17, 33, 65};
  static const int kDim[] = {1, 2, 3, 4, 7, 8, 16, 17};
  GeneralConfig c;
  c.batch = rng.range(1, 3);
  c.seq = kSeq[rng.range(0, 9)];
  c.in_dim = kDim[rng.range(0, 7)];
  c.dk = kDim[rng.range(0, 7)];
  c.dv = kDim[rng.range(0, 7)];
  c.scale = rng.range(0, 3) == 0 ? rng.uniform(0.1f, 2.0f) : 0.0f;
  c.weights = rng.range(0, 3) != 0;
  c.seed = seed;
  return c;
}

}  // namespace

ATTN_CASE(GeneralAttention, RandomShapesAgainstDoubleReference) {
  Rng rng(301);
  for (int n = 0; n < 40; ++n) run(ctx, random_config(rng, 30100u + static_cast<uint32_t>(n)));
}

ATTN_CASE(GeneralAttention, EveryMaskKind) {
  Rng rng(302);
  for (int bits = 0; bits < 64; ++bits) {
    GeneralConfig c = random_config(rng, 30200u + static_cast<uint32_t>(bits));
    c.causal = (bits & 1) != 0;
    c.lengths = (bits & 2) != 0;
    c.keras = (bits & 4) != 0;
    c.additive = (bits & 8) != 0;
    c.boolean = (bits & 16) != 0;
    c.per_batch = (bits & 32) != 0;
    if (c.lengths) c.batch = 3;
    run(ctx, c);
  }
}
