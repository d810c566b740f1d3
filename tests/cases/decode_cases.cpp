// Token-by-token attention (mha_decode_f32 / mha_decode_s8 over a KV cache)
// against the one-shot ops over the whole sequence: float32 within 1e-6 of
// one-shot causal mha_f32 (relative to the output's largest magnitude), int8
// bit-identical to mha_s8 with a causal mask, and with a sliding window after
// the ring has wrapped (>= 3x the window) against a band mask. Chunk sizes 1,
// 3, 7 and the whole sequence. Grouped-query weights are compared with the
// one-shot op over the same weights with each kv head's rows repeated.
//
// Float16 weights (binary16 bits, float32 math): each chunking's output is
// within 1e-6 of the same chunking with float32 weights holding the widened
// values (the SIMD backends give its bits: tests/simd, tests/threads; the
// reference kernels may round the projections' sums differently), and within
// 1e-6 of the one-shot result over those weights
// (mha_f32 without RoPE and with a float32 cache; else the float32-weight
// decode op all at once, itself checked against mha_f32 above). GQA, MQA,
// RoPE (both styles), float32 and float16 caches, chunks of 1, 3, 7 and
// all tokens; binary16 for every matrix, or per matrix (some float32).
//
// Every float case runs with a plain and a packed cache (K in 32-slot
// transposed blocks, attn/kv_cache.h), under the same bounds.
#include <cmath>
#include <cstring>
#include <initializer_list>

#include "attn/kv_cache.h"
#include "attn/mha.h"
#include "attn/mha_decode.h"
#include "attn/mha_decode_s8.h"
#include "attn/mha_s8.h"
#include "case.h"
#include "kernels/f32/f16.h"

namespace {

using attn_test::Rng;

constexpr int kE = 16;
constexpr int kT = 24;  // tokens
constexpr int kW = 7;   // window: kT >= 3 * kW
constexpr int kMaxTok = 24;
constexpr int kChunks[] = {1, 3, 7, kT};

std::size_t uz(int i) { return static_cast<std::size_t>(i); }

struct Model {
  int heads = 4, kv_heads = 4;
  float wq[kE * kE], wk[kE * kE], wv[kE * kE], wo[kE * kE];
  float bq[kE], bk[kE], bv[kE], bo[kE];
  // MHA-shaped k/v weights: kv head rows repeated for each query head.
  float wk_full[kE * kE], wv_full[kE * kE], bk_full[kE], bv_full[kE];
};

// Rounds w[0, n) to binary16 (nearest even) and back: the values binary16
// weights stand for.
void round_to_halves(float* w, int n) {
  for (int i = 0; i < n; ++i) w[i] = attn::f16::to_f32(attn::f16::from_f32(w[i]));
}

// halves: the weight matrices rounded to binary16 values (round_to_halves).
void make_model(Rng& r, Model* m, int heads, int kv_heads, bool halves = false) {
  m->heads = heads;
  m->kv_heads = kv_heads;
  const int hd = kE / heads;
  const int kvd = kv_heads * hd;
  attn_test::fill_uniform(r, m->wq, uz(kE * kE), -0.5f, 0.5f);
  attn_test::fill_uniform(r, m->wk, uz(kvd * kE), -0.5f, 0.5f);
  attn_test::fill_uniform(r, m->wv, uz(kvd * kE), -0.5f, 0.5f);
  attn_test::fill_uniform(r, m->wo, uz(kE * kE), -0.5f, 0.5f);
  attn_test::fill_uniform(r, m->bq, uz(kE), -0.2f, 0.2f);
  attn_test::fill_uniform(r, m->bk, uz(kvd), -0.2f, 0.2f);
  attn_test::fill_uniform(r, m->bv, uz(kvd), -0.2f, 0.2f);
  attn_test::fill_uniform(r, m->bo, uz(kE), -0.2f, 0.2f);
  if (halves) {
    round_to_halves(m->wq, kE * kE);
    round_to_halves(m->wk, kvd * kE);
    round_to_halves(m->wv, kvd * kE);
    round_to_halves(m->wo, kE * kE);
  }
  const int group = heads / kv_heads;
  for (int h = 0; h < heads; ++h) {
    const int g = h / group;
    std::memcpy(m->wk_full + h * hd * kE, m->wk + g * hd * kE, uz(hd * kE) * 4);
    std::memcpy(m->wv_full + h * hd * kE, m->wv + g * hd * kE, uz(hd * kE) * 4);
    std::memcpy(m->bk_full + h * hd, m->bk + g * hd, uz(hd) * 4);
    std::memcpy(m->bv_full + h * hd, m->bv + g * hd, uz(hd) * 4);
  }
}

// Band mask [kT, kT]: query i sees keys i - w < j <= i.
void band_mask(uint8_t* m, int w) {
  for (int i = 0; i < kT; ++i) {
    for (int j = 0; j < kT; ++j) m[i * kT + j] = (j <= i && j > i - w) ? 0 : 1;
  }
}

float g_x[kT * kE], g_ref[kT * kE], g_out[kT * kE];
// Scratch from the shared case arena (set by check_f32).
unsigned char* g_scratch = nullptr;
constexpr std::size_t kScratchBytes = 40 * 1024;
alignas(64) unsigned char g_cache[5 * 1024];  // a packed float32 cache: 4,160 bytes

// One-shot causal (or band) mha_f32 with the repeated weights into g_ref.
bool one_shot_f32(const Model& m, const uint8_t* band) {
  const attn::MhaShape shape{1, kT, kT, kE, m.heads, 0, 0};
  attn::MhaF32Weights w;
  w.q_proj_weight = m.wq;
  w.k_proj_weight = m.wk_full;
  w.v_proj_weight = m.wv_full;
  static float in_bias[3 * kE];
  std::memcpy(in_bias, m.bq, sizeof m.bq);
  std::memcpy(in_bias + kE, m.bk_full, sizeof m.bk_full);
  std::memcpy(in_bias + 2 * kE, m.bv_full, sizeof m.bv_full);
  w.in_proj_bias = in_bias;
  w.out_proj_weight = m.wo;
  w.out_proj_bias = m.bo;
  attn::MhaF32Args a;
  a.query = a.key = a.value = g_x;
  a.out = g_ref;
  a.mask.causal = band == nullptr;
  a.mask.boolean = band;
  return attn::mha_f32(shape, w, a, {g_scratch, kScratchBytes}) == attn::Status::kOk;
}

// The binary16 bits of a model's weight matrices (Model16::kAll: every
// matrix as binary16; else the matrices whose bit is set, the rest float32).
struct Model16 {
  static constexpr int kQ = 1, kK = 2, kV = 4, kO = 8, kAll = 15;
  uint16_t wq[kE * kE], wk[kE * kE], wv[kE * kE], wo[kE * kE];
  int matrices = 0;
};

void to_halves(const Model& m, int matrices, Model16* h) {
  const int kvd = m.kv_heads * (kE / m.heads);
  const float* w[] = {m.wq, m.wk, m.wv, m.wo};
  uint16_t* out[] = {h->wq, h->wk, h->wv, h->wo};
  const int n[] = {kE * kE, kvd * kE, kvd * kE, kE * kE};
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < n[i]; ++j) out[i][j] = attn::f16::from_f32(w[i][j]);
  }
  h->matrices = matrices;
}

// The decode op over g_x in chunks into g_out, with float32 weights, or the
// matrices of h as binary16.
bool decode_f32(const Model& m, int chunk, bool window, attn::KvElement el,
                const Model16* h = nullptr, attn::RopeConfig rope = {}, bool packed = false) {
  attn::MhaDecodeShape s;
  s.embed_dim = kE;
  s.num_heads = m.heads;
  s.num_kv_heads = m.kv_heads;
  s.max_tokens = kMaxTok;
  s.cache_element = el;
  s.rope = rope;
  attn::MhaDecodeF32Weights w;
  w.q_proj_weight = m.wq;
  w.k_proj_weight = m.wk;
  w.v_proj_weight = m.wv;
  w.q_proj_bias = m.bq;
  w.k_proj_bias = m.bk;
  w.v_proj_bias = m.bv;
  w.out_proj_weight = m.wo;
  w.out_proj_bias = m.bo;
  const int matrices = h != nullptr ? h->matrices : 0;
  if ((matrices & Model16::kQ) != 0) {
    w.q_proj_weight = nullptr;
    w.q_proj_weight_f16 = h->wq;
  }
  if ((matrices & Model16::kK) != 0) {
    w.k_proj_weight = nullptr;
    w.k_proj_weight_f16 = h->wk;
  }
  if ((matrices & Model16::kV) != 0) {
    w.v_proj_weight = nullptr;
    w.v_proj_weight_f16 = h->wv;
  }
  if ((matrices & Model16::kO) != 0) {
    w.out_proj_weight = nullptr;
    w.out_proj_weight_f16 = h->wo;
  }
  const attn::KvCacheShape cs{window ? kW : kT, m.kv_heads, kE / m.heads, el, window, packed};
  attn::KvCache cache;
  if (attn::kv_cache_init(cs, g_cache, sizeof g_cache, &cache) != attn::Status::kOk) return false;
  if (attn::mha_decode_f32_scratch_bytes(s) > kScratchBytes) return false;
  for (int t0 = 0; t0 < kT; t0 += chunk) {
    attn::MhaDecodeF32Args a;
    a.x = g_x + t0 * kE;
    a.out = g_out + t0 * kE;
    a.tokens = kT - t0 < chunk ? kT - t0 : chunk;
    if (attn::mha_decode_f32(s, w, a, &cache, {g_scratch, kScratchBytes}) != attn::Status::kOk) {
      return false;
    }
  }
  return cache.position == kT;
}

// |out - want| <= 1e-6 * max |want| elementwise.
void expect_near(attn_test::Context& ctx, const char* what, const float* want) {
  double peak = 0.0;
  for (int i = 0; i < kT * kE; ++i) peak = std::fabs(want[i]) > peak ? std::fabs(want[i]) : peak;
  attn_test::Arena arena;
  double* ref = arena.alloc<double>(uz(kT * kE));
  double* tol = arena.alloc<double>(uz(kT * kE));
  ATTN_ASSERT_TRUE(arena.ok());
  for (int i = 0; i < kT * kE; ++i) {
    ref[i] = want[i];
    tol[i] = 1e-6 * peak;
  }
  ATTN_EXPECT_CLOSE(what, g_out, ref, tol, uz(kT * kE));
}

void expect_near_one_shot(attn_test::Context& ctx) {
  expect_near(ctx, "decode vs one-shot", g_ref);
}

void check_f32(attn_test::Context& ctx, int heads, int kv_heads, bool window, uint32_t seed) {
  attn_test::Arena arena;
  g_scratch = arena.alloc<unsigned char>(kScratchBytes);
  ATTN_ASSERT_TRUE(arena.ok());
  Rng r(seed);
  static Model m;
  make_model(r, &m, heads, kv_heads);
  attn_test::fill_uniform(r, g_x, uz(kT * kE), -1.0f, 1.0f);
  static uint8_t band[kT * kT];
  band_mask(band, kW);
  ATTN_ASSERT_TRUE(one_shot_f32(m, window ? band : nullptr));
  for (int chunk : kChunks) {
    for (bool packed : {false, true}) {
      ATTN_ASSERT_TRUE(decode_f32(m, chunk, window, attn::KvElement::kF32, nullptr, {}, packed));
      expect_near_one_shot(ctx);
    }
  }
}

void check_f16_weights(attn_test::Context& ctx, int heads, int kv_heads, attn::KvElement el,
                       attn::RopeConfig rope, int matrices, uint32_t seed) {
  // Every buffer from the case arena (the board images' RAM stays as is).
  attn_test::Arena arena;
  g_scratch = arena.alloc<unsigned char>(kScratchBytes);
  auto* mp = arena.alloc<Model>(1);
  auto* hp = arena.alloc<Model16>(1);
  float* same = arena.alloc<float>(uz(kT * kE));  // the float32-weight run of a chunking
  ATTN_ASSERT_TRUE(arena.ok());
  Model& m = *mp;
  Model16& h = *hp;
  Rng r(seed);
  make_model(r, &m, heads, kv_heads, true);
  to_halves(m, matrices, &h);
  attn_test::fill_uniform(r, g_x, uz(kT * kE), -1.0f, 1.0f);
  if (rope.dims == 0 && el == attn::KvElement::kF32) {
    ATTN_ASSERT_TRUE(one_shot_f32(m, nullptr));
  } else {
    ATTN_ASSERT_TRUE(decode_f32(m, kT, false, el, nullptr, rope));
    std::memcpy(g_ref, g_out, sizeof g_out);
  }
  for (int chunk : kChunks) {
    for (bool packed : {false, true}) {
      ATTN_ASSERT_TRUE(decode_f32(m, chunk, false, el, nullptr, rope, packed));
      std::memcpy(same, g_out, sizeof g_out);
      ATTN_ASSERT_TRUE(decode_f32(m, chunk, false, el, &h, rope, packed));
      expect_near(ctx, "binary16 vs widened float32 weights", same);
      expect_near_one_shot(ctx);
    }
  }
}

attn::RopeConfig rope_of(int dims, attn::RopeStyle style) {
  attn::RopeConfig c;
  c.dims = dims;
  c.style = style;
  return c;
}

}  // namespace

ATTN_CASE(MhaDecodeF32, IncrementalEqualsOneShotCausal) { check_f32(ctx, 4, 4, false, 11); }
ATTN_CASE(MhaDecodeF32, GroupedQueryEqualsOneShotRepeatedKv) { check_f32(ctx, 4, 2, false, 12); }
ATTN_CASE(MhaDecodeF32, MultiQueryEqualsOneShotRepeatedKv) { check_f32(ctx, 4, 1, false, 13); }
ATTN_CASE(MhaDecodeF32, WindowEqualsOneShotBandMask) { check_f32(ctx, 4, 2, true, 14); }

ATTN_CASE(MhaDecodeF16Weights, GroupedQueryEqualsOneShot) {
  check_f16_weights(ctx, 4, 2, attn::KvElement::kF32, {}, Model16::kAll, 21);
}
ATTN_CASE(MhaDecodeF16Weights, GroupedQueryRopeFloat16Cache) {
  check_f16_weights(ctx, 4, 2, attn::KvElement::kF16, rope_of(4, attn::RopeStyle::kHalfSplit),
                    Model16::kAll, 22);
}
ATTN_CASE(MhaDecodeF16Weights, MultiQueryInterleavedRope) {
  check_f16_weights(ctx, 4, 1, attn::KvElement::kF32, rope_of(2, attn::RopeStyle::kInterleaved),
                    Model16::kAll, 23);
}
ATTN_CASE(MhaDecodeF16Weights, PerMatrixFloat16Cache) {
  check_f16_weights(ctx, 4, 2, attn::KvElement::kF16, {}, Model16::kK | Model16::kO, 24);
}
