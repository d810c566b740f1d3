// sdpa_f32 against the double-precision reference (ref_double.h): random
// shapes (1, odd, across the query tile and the 64-key block), every mask
// kind alone and combined, broadcast and per-batch matrices, fully masked rows,
// the optional weights, explicit and default scale, inputs off 64-byte
// alignment, and the seed's Keras batch (B=64, S=5, d=64).
#include <cmath>
#include <cstdio>
#include <limits>

#include "attn/sdpa.h"
#include "case.h"
#include "ref_double.h"

namespace {

using attn_test::Arena;
using attn_test::Rng;

struct SdpaConfig {
  int batch = 1;
  int sq = 1;
  int skv = 1;
  int dk = 1;
  int dv = 1;
  bool causal = false;
  bool lengths = false;    // key padding: lengths 0, full and random
  bool keras = false;      // Keras float mask (1 = masked)
  bool additive = false;   // additive float mask with some -inf
  bool boolean = false;    // uint8 mask
  bool per_batch = false;  // matrices [batch, sq, skv] instead of broadcast
  bool weights = true;
  float scale = 0.0f;     // 0 = default 1/sqrt(dk)
  float q_amp = 1.0f;     // query amplitude (large = peaky softmax)
  int masked_row = -1;    // a row every key of which a matrix mask hides
  bool misalign = false;  // q/k/v/out/weights one float past 64-byte alignment
  uint32_t seed = 1;
};

std::size_t uz(int i) { return static_cast<std::size_t>(i); }

// Bytes a config needs in the arena (inputs, outputs, masks, scratch, reference).
std::size_t arena_bytes(const SdpaConfig& c) {
  const std::size_t b = uz(c.batch);
  const std::size_t mats = c.per_batch ? b : 1;
  const std::size_t sqkv = uz(c.sq) * uz(c.skv);
  std::size_t n = 4 * b *
                  (uz(c.sq) * uz(c.dk) + uz(c.skv) * uz(c.dk) + uz(c.skv) * uz(c.dv) +
                   uz(c.sq) * uz(c.dv) + sqkv);
  n += mats * sqkv * (4 * 2 + 1);
  n += attn::sdpa_f32_scratch_bytes({c.batch, c.sq, c.skv, c.dk, c.dv});
  n += 16 * (sqkv + uz(c.sq) * uz(c.dv));  // reference: weights, outputs, tolerances
  return n + 12 * 64;                      // alignment
}

void describe(attn_test::Context& ctx, const SdpaConfig& c, int line) {
  attn_test::fail(ctx, __FILE__, line,
                  "in config B=%d Sq=%d Skv=%d Dk=%d Dv=%d causal=%d lengths=%d keras=%d "
                  "additive=%d bool=%d per_batch=%d weights=%d scale=%g q_amp=%g masked_row=%d "
                  "misalign=%d seed=%lu",
                  c.batch, c.sq, c.skv, c.dk, c.dv, c.causal, c.lengths, c.keras, c.additive,
                  c.boolean, c.per_batch, c.weights, static_cast<double>(c.scale),
                  static_cast<double>(c.q_amp), c.masked_row, c.misalign,
                  static_cast<unsigned long>(c.seed));
  --ctx.failures;  // context for the failures above, not a failure itself
}

// Runs sdpa_f32 on a random problem of config c and compares every output and
// weight with the reference within its bound (see ref_double.h).
void run_sdpa(attn_test::Context& ctx, const SdpaConfig& c) {
  const int failures_before = ctx.failures;
  Arena arena;
  const std::size_t b = uz(c.batch);
  const std::size_t mats = c.per_batch ? b : 1;
  const std::size_t sqkv = uz(c.sq) * uz(c.skv);
  const std::size_t off = c.misalign ? 1 : 0;
  const std::size_t nq = b * uz(c.sq) * uz(c.dk), nk = b * uz(c.skv) * uz(c.dk);
  const std::size_t nv = b * uz(c.skv) * uz(c.dv), no = b * uz(c.sq) * uz(c.dv);
  float* q = arena.alloc<float>(nq + off) + off;
  float* k = arena.alloc<float>(nk + off) + off;
  float* v = arena.alloc<float>(nv + off) + off;
  float* out = arena.alloc<float>(no + off) + off;
  float* w = c.weights ? arena.alloc<float>(b * sqkv + off) + off : nullptr;
  auto* lens = arena.alloc<int32_t>(b);
  float* keras = c.keras ? arena.alloc<float>(mats * sqkv) : nullptr;
  float* additive = c.additive ? arena.alloc<float>(mats * sqkv) : nullptr;
  uint8_t* boolean = c.boolean ? arena.alloc<uint8_t>(mats * sqkv) : nullptr;
  const attn::SdpaShape shape{c.batch, c.sq, c.skv, c.dk, c.dv};
  const std::size_t scratch_bytes = attn::sdpa_f32_scratch_bytes(shape);
  void* scratch = arena.bytes(scratch_bytes);
  ATTN_ASSERT_TRUE(arena.ok());

  Rng rng(c.seed);
  attn_test::fill_uniform(rng, q, nq, -c.q_amp, c.q_amp);
  attn_test::fill_uniform(rng, k, nk, -1.0f, 1.0f);
  attn_test::fill_uniform(rng, v, nv, -1.0f, 1.0f);
  for (std::size_t i = 0; i < b; ++i) {
    // Item 0 random, 1 full, 2 empty, then random again.
    lens[i] = i == 1 ? c.skv : (i == 2 ? 0 : rng.range(0, c.skv));
  }
  const float kNegInf = -std::numeric_limits<float>::infinity();
  for (std::size_t i = 0; i < mats * sqkv; ++i) {
    if (keras != nullptr) keras[i] = rng.range(0, 3) == 0 ? 1.0f : 0.0f;
    if (additive != nullptr) {
      additive[i] = rng.range(0, 4) == 0 ? kNegInf : rng.uniform(-2.0f, 1.0f);
    }
    if (boolean != nullptr) boolean[i] = rng.range(0, 3) == 0 ? 1 : 0;
  }
  if (c.masked_row >= 0 && c.masked_row < c.sq) {
    for (std::size_t m = 0; m < mats; ++m) {
      for (int j = 0; j < c.skv; ++j) {
        const std::size_t at = m * sqkv + uz(c.masked_row) * uz(c.skv) + uz(j);
        if (boolean != nullptr)
          boolean[at] = 1;
        else if (additive != nullptr)
          additive[at] = kNegInf;
        else if (keras != nullptr)
          keras[at] = 1.0f;
      }
    }
  }

  attn::SdpaF32Args args;
  args.q = q;
  args.k = k;
  args.v = v;
  args.out = out;
  args.probs = w;
  args.scale = c.scale;
  args.mask.causal = c.causal;
  args.mask.key_lengths = c.lengths ? lens : nullptr;
  args.mask.keras = keras;
  args.mask.additive = additive;
  args.mask.boolean = boolean;
  args.mask.matrix_batch_stride = c.per_batch ? sqkv : 0;
  const attn::Status st = attn::sdpa_f32(shape, args, attn::Scratch{scratch, scratch_bytes});
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
    double* p = item.alloc<double>(sqkv);
    double* p_tol = item.alloc<double>(sqkv);
    double* o = item.alloc<double>(uz(c.sq) * uz(c.dv));
    double* o_tol = item.alloc<double>(uz(c.sq) * uz(c.dv));
    ATTN_ASSERT_TRUE(item.ok());
    attn_ref::MaskView mv;
    mv.causal = c.causal;
    mv.key_length = c.lengths ? lens[bi] : -1;
    const std::size_t moff = c.per_batch ? bi * sqkv : 0;
    mv.keras = keras != nullptr ? keras + moff : nullptr;
    mv.additive = additive != nullptr ? additive + moff : nullptr;
    mv.boolean = boolean != nullptr ? boolean + moff : nullptr;
    attn_ref::attention<float>(
        c.sq, c.skv, c.dk, c.dv, scale, scale_err, q + bi * uz(c.sq) * uz(c.dk), uz(c.dk), nullptr,
        k + bi * uz(c.skv) * uz(c.dk), uz(c.dk), nullptr, v + bi * uz(c.skv) * uz(c.dv), uz(c.dv),
        nullptr, mv, p, p_tol, o, o_tol, uz(c.dv));
    ATTN_EXPECT_CLOSE("out", out + bi * uz(c.sq) * uz(c.dv), o, o_tol, uz(c.sq) * uz(c.dv));
    if (w != nullptr) ATTN_EXPECT_CLOSE("weights", w + bi * sqkv, p, p_tol, sqkv);
  }
  if (ctx.failures != failures_before) describe(ctx, c, __LINE__);
}

const int kSq[] = {1, 2, 3, 5, 7, 8, 9, 13, 16, 17, 31};
const int kSkv[] = {1, 2, 3, 5, 8, 13, 63, 64, 65, 100, 129};
const int kDim[] = {1, 2, 3, 4, 7, 8, 16, 17, 33, 64};

template <std::size_t N>
int pick(Rng& rng, const int (&values)[N]) {
  return values[rng.range(0, static_cast<int32_t>(N) - 1)];
}

// A random shape within the arena budget; mask flags are set by the caller.
SdpaConfig random_shape(Rng& rng, uint32_t seed) {
  SdpaConfig c;
  c.batch = rng.range(1, 3);
  c.sq = pick(rng, kSq);
  c.skv = pick(rng, kSkv);
  c.dk = pick(rng, kDim);
  c.dv = pick(rng, kDim);
  c.weights = rng.range(0, 3) != 0;
  c.misalign = rng.range(0, 3) == 0;
  c.scale = rng.range(0, 3) == 0 ? rng.uniform(0.05f, 1.5f) : 0.0f;
  c.q_amp = rng.range(0, 3) == 0 ? 4.0f : 1.0f;
  c.seed = seed;
  return c;
}

void fit_budget(SdpaConfig& c) {
  const std::size_t budget = attn_test::kArenaBytes - 4096;
  while (arena_bytes(c) > budget && c.batch > 1) --c.batch;
  while (arena_bytes(c) > budget && c.skv > 1) c.skv /= 2;
}

// Runs `count` random shapes with the mask flags of `base`.
void run_random(attn_test::Context& ctx, const SdpaConfig& base, uint32_t seed, int count) {
  Rng rng(seed);
  for (int n = 0; n < count; ++n) {
    SdpaConfig c = random_shape(rng, seed * 1000u + static_cast<uint32_t>(n));
    c.causal = base.causal;
    c.lengths = base.lengths;
    c.keras = base.keras;
    c.additive = base.additive;
    c.boolean = base.boolean;
    c.per_batch = base.per_batch;
    if (base.lengths && n % 2 == 0) c.batch = 3;  // lengths 0 and full appear
    fit_budget(c);
    run_sdpa(ctx, c);
  }
}

}  // namespace

ATTN_CASE(Sdpa, UnitShapes) {
  SdpaConfig c;  // B = Sq = Skv = Dk = Dv = 1
  run_sdpa(ctx, c);
  c.causal = true;
  run_sdpa(ctx, c);
  c.lengths = true;
  c.batch = 3;
  run_sdpa(ctx, c);
}

ATTN_CASE(Sdpa, NoMaskRandomShapes) { run_random(ctx, SdpaConfig{}, 11, 40); }

ATTN_CASE(Sdpa, CausalRandomShapes) {
  SdpaConfig base;
  base.causal = true;
  run_random(ctx, base, 12, 40);
  // Skv > Sq (decode offset) and Skv < Sq (first rows see nothing), across tiles.
  const int shapes[][2] = {{1, 9}, {3, 70}, {9, 130}, {8, 64}, {9, 1}, {17, 5}, {70, 3}, {20, 19}};
  for (const auto& s : shapes) {
    SdpaConfig c;
    c.causal = true;
    c.sq = s[0];
    c.skv = s[1];
    c.dk = 5;
    c.dv = 3;
    c.batch = 2;
    c.seed = static_cast<uint32_t>(s[0] * 1000 + s[1]);
    run_sdpa(ctx, c);
  }
}

ATTN_CASE(Sdpa, KeyLengths) {
  SdpaConfig base;
  base.lengths = true;
  run_random(ctx, base, 13, 30);
}

ATTN_CASE(Sdpa, KerasMask) {
  SdpaConfig base;
  base.keras = true;
  run_random(ctx, base, 14, 20);
  base.per_batch = true;
  run_random(ctx, base, 15, 20);
}

ATTN_CASE(Sdpa, AdditiveMaskWithNegInf) {
  SdpaConfig base;
  base.additive = true;
  run_random(ctx, base, 16, 20);
  base.per_batch = true;
  run_random(ctx, base, 17, 20);
}

ATTN_CASE(Sdpa, BooleanMask) {
  SdpaConfig base;
  base.boolean = true;
  run_random(ctx, base, 18, 20);
  base.per_batch = true;
  run_random(ctx, base, 19, 20);
}

ATTN_CASE(Sdpa, MaskCombinations) {
  // Every subset of {causal, lengths, keras, additive, boolean}, broadcast and
  // per batch, on shapes that cross the query tile and the key block.
  Rng rng(20);
  for (int bits = 0; bits < 64; ++bits) {
    SdpaConfig c;
    c.causal = (bits & 1) != 0;
    c.lengths = (bits & 2) != 0;
    c.keras = (bits & 4) != 0;
    c.additive = (bits & 8) != 0;
    c.boolean = (bits & 16) != 0;
    c.per_batch = (bits & 32) != 0;
    c.batch = 3;
    c.sq = rng.range(1, 19);
    c.skv = rng.range(1, 140);
    c.dk = rng.range(1, 12);
    c.dv = rng.range(1, 12);
    c.misalign = (bits % 3) == 0;
    c.seed = 2000u + static_cast<uint32_t>(bits);
    fit_budget(c);
    run_sdpa(ctx, c);
  }
}

ATTN_CASE(Sdpa, FullyMaskedRowsAreExactZeros) {
  // Forced by each matrix kind (the reference's tolerance is 0 on such rows, so
  // the comparison demands exact zeros in out and weights).
  for (int kind = 0; kind < 3; ++kind) {
    SdpaConfig c;
    c.batch = 2;
    c.sq = 11;
    c.skv = 70;
    c.dk = 6;
    c.dv = 5;
    c.boolean = kind == 0;
    c.additive = kind == 1;
    c.keras = kind == 2;
    c.masked_row = 9;
    c.per_batch = true;
    c.seed = 30u + static_cast<uint32_t>(kind);
    run_sdpa(ctx, c);
  }
  // Key length 0 for every item, and causal with Skv < Sq (rows 0..Sq-Skv-1 empty).
  {
    static float q[2 * 3 * 4], k[2 * 5 * 4], v[2 * 5 * 2], out[2 * 3 * 2], w[2 * 3 * 5];
    Rng rng(33);
    attn_test::fill_uniform(rng, q, sizeof q / sizeof q[0], -1, 1);
    attn_test::fill_uniform(rng, k, sizeof k / sizeof k[0], -1, 1);
    attn_test::fill_uniform(rng, v, sizeof v / sizeof v[0], -1, 1);
    const int32_t lens[2] = {0, 0};
    constexpr attn::SdpaShape shape{2, 3, 5, 4, 2};
    static attn::Workspace<attn::sdpa_f32_scratch_bytes(shape)> ws;
    attn::SdpaF32Args a;
    a.q = q;
    a.k = k;
    a.v = v;
    a.out = out;
    a.probs = w;
    a.mask.key_lengths = lens;
    for (float& x : out) x = 1.0f;
    for (float& x : w) x = 1.0f;
    ATTN_EXPECT_STATUS(attn::sdpa_f32(shape, a, ws.scratch()), attn::Status::kOk);
    ATTN_EXPECT_ALL_BITS("out (key length 0)", out, 0.0f, sizeof out / sizeof out[0]);
    ATTN_EXPECT_ALL_BITS("weights (key length 0)", w, 0.0f, sizeof w / sizeof w[0]);
  }
  {
    SdpaConfig c;
    c.causal = true;
    c.sq = 12;
    c.skv = 4;  // rows 0..7 see no key
    c.dk = 3;
    c.dv = 3;
    c.seed = 34;
    run_sdpa(ctx, c);
  }
}

ATTN_CASE(Sdpa, PeakyAndFlatSoftmax) {
  // Large query amplitude: weights near one-hot (exp arguments far below 0);
  // tiny: near uniform.
  Rng rng(40);
  for (int n = 0; n < 10; ++n) {
    SdpaConfig c = random_shape(rng, 4000u + static_cast<uint32_t>(n));
    c.q_amp = n % 2 == 0 ? 30.0f : 1e-3f;
    c.causal = n % 3 == 0;
    fit_budget(c);
    run_sdpa(ctx, c);
  }
}

ATTN_CASE(Sdpa, SeedKerasBatch64x5x64) {
  // The seed's Keras example: B = 64, S = 5, d_k = d_v = 64, unmasked and with
  // the look-ahead mask, run as four calls of 16 batch items (the whole batch
  // needs 320 KiB of float inputs, more than a case's RAM budget on a board).
  for (int causal = 0; causal < 2; ++causal) {
    for (int chunk = 0; chunk < 4; ++chunk) {
      SdpaConfig c;
      c.batch = 16;
      c.sq = 5;
      c.skv = 5;
      c.dk = 64;
      c.dv = 64;
      c.causal = causal != 0;
      c.seed = 64005u + static_cast<uint32_t>(chunk);
      run_sdpa(ctx, c);
    }
  }
}
