// mha_decode_s8 over an int8 KV cache, bit-identical to one-shot mha_s8 over
// the whole sequence (causal mask; band mask with a sliding window after the
// ring has wrapped) for chunk sizes 1, 3, 7 and the whole sequence, MHA and
// grouped-query with groups of 2 and 4 (one-shot with each kv head's weight
// rows repeated), each with a plain and a packed cache (KvCacheShape::packed:
// the query-tiled core reads the cache's packed blocks instead of packing).
#include <cstring>
#include <initializer_list>

#include "attn/kv_cache.h"
#include "attn/mha_decode_s8.h"
#include "attn/mha_s8.h"
#include "case.h"

namespace {

using attn_test::Rng;

constexpr int kE = 16;
constexpr int kT = 24;
constexpr int kW = 7;
constexpr int kChunks[] = {1, 3, 7, kT};

std::size_t uz(int i) { return static_cast<std::size_t>(i); }

struct ModelS8 {
  int8_t wq[kE * kE], wk[kE * kE], wv[kE * kE], wo[kE * kE];
  int32_t bq[kE], bk[kE], bv[kE], bo[kE];
  float sq[kE], sk[kE], sv[kE], so[kE];
  int8_t wk_full[kE * kE], wv_full[kE * kE];
  int32_t bk_full[kE], bv_full[kE];
  float sk_full[kE], sv_full[kE];
};

void draw(Rng& r, int8_t* p, int n) {
  for (int i = 0; i < n; ++i) p[i] = static_cast<int8_t>(r.range(-127, 127));
}
void draw_bias(Rng& r, int32_t* p, int n) {
  for (int i = 0; i < n; ++i) p[i] = r.range(-3000, 3000);
}

// Repeats kv head rows of src ([kv_heads * hd] rows of `row` elements) per query head.
template <class T>
void repeat_heads(const T* src, T* dst, int heads, int group, int hd, int row) {
  for (int h = 0; h < heads; ++h) {
    std::memcpy(dst + h * hd * row, src + (h / group) * hd * row, uz(hd * row) * sizeof(T));
  }
}

void make_model(Rng& r, ModelS8* m, int heads, int kv_heads) {
  const int hd = kE / heads;
  const int kvd = kv_heads * hd;
  draw(r, m->wq, kE * kE);
  draw(r, m->wk, kvd * kE);
  draw(r, m->wv, kvd * kE);
  draw(r, m->wo, kE * kE);
  draw_bias(r, m->bq, kE);
  draw_bias(r, m->bk, kvd);
  draw_bias(r, m->bv, kvd);
  draw_bias(r, m->bo, kE);
  attn_test::fill_uniform(r, m->sq, uz(kE), 0.002f, 0.004f);
  attn_test::fill_uniform(r, m->sk, uz(kvd), 0.002f, 0.004f);
  attn_test::fill_uniform(r, m->sv, uz(kvd), 0.002f, 0.004f);
  attn_test::fill_uniform(r, m->so, uz(kE), 0.002f, 0.004f);
  const int group = heads / kv_heads;
  repeat_heads(m->wk, m->wk_full, heads, group, hd, kE);
  repeat_heads(m->wv, m->wv_full, heads, group, hd, kE);
  repeat_heads(m->bk, m->bk_full, heads, group, hd, 1);
  repeat_heads(m->bv, m->bv_full, heads, group, hd, 1);
  repeat_heads(m->sk, m->sk_full, heads, group, hd, 1);
  repeat_heads(m->sv, m->sv_full, heads, group, hd, 1);
}

attn::MhaDecodeS8Quant decode_quant() {
  attn::MhaDecodeS8Quant q;
  q.input = {0.05f, 3};
  q.q = {0.06f, -2};
  q.k = {0.05f, 1};
  q.v = {0.04f, -5};
  q.scores = {0.08f, 4};
  q.attn = {0.03f, -1};
  q.out = {0.05f, 2};
  return q;
}

int8_t g_x[kT * kE], g_ref[kT * kE], g_out[kT * kE];
// Scratch from the shared case arena (set by check_s8).
unsigned char* g_scratch = nullptr;
constexpr std::size_t kScratchBytes = 40 * 1024;
// The cache's storage, from the case arena too (the packed caches need 4 KiB).
unsigned char* g_cache = nullptr;
constexpr std::size_t kCacheBytes = 4 * 1024;

bool one_shot_s8(const ModelS8& m, int heads, const uint8_t* band) {
  const attn::MhaShape shape{1, kT, kT, kE, heads, 0, 0};
  const attn::MhaDecodeS8Quant d = decode_quant();
  attn::MhaS8Quant q;
  q.query = q.key = q.value = d.input;
  q.q = d.q;
  q.k = d.k;
  q.v = d.v;
  q.scores = d.scores;
  q.attn = d.attn;
  q.out = d.out;
  attn::MhaS8Weights w;
  w.q = {m.wq, m.sq, m.bq};
  w.k = {m.wk_full, m.sk_full, m.bk_full};
  w.v = {m.wv_full, m.sv_full, m.bv_full};
  w.out = {m.wo, m.so, m.bo};
  static attn::QuantizedMultiplier channels[4 * kE];
  static attn::MhaS8Params params;
  if (attn::mha_s8_prepare(shape, q, w, channels, &params) != attn::Status::kOk) return false;
  attn::MhaS8Args a;
  a.query = a.key = a.value = g_x;
  a.out = g_ref;
  a.mask.causal = band == nullptr;
  a.mask.boolean = band;
  return attn::mha_s8(params, a, {g_scratch, kScratchBytes}) == attn::Status::kOk;
}

// The decode shape of the model (max_tokens a step) and its prepared params
// (channel storage static, like the params).
bool prepare_decode(const ModelS8& m, int heads, int kv_heads, int max_tokens, int capacity,
                    attn::MhaDecodeShape* s, attn::MhaDecodeS8Params* params) {
  s->embed_dim = kE;
  s->num_heads = heads;
  s->num_kv_heads = kv_heads;
  s->max_tokens = max_tokens;
  s->cache_element = attn::KvElement::kS8;
  attn::MhaS8Weights w;
  w.q = {m.wq, m.sq, m.bq};
  w.k = {m.wk, m.sk, m.bk};
  w.v = {m.wv, m.sv, m.bv};
  w.out = {m.wo, m.so, m.bo};
  static attn::QuantizedMultiplier channels[4 * kE];
  return attn::mha_decode_s8_prepare(*s, capacity, decode_quant(), w, channels, params) ==
         attn::Status::kOk;
}

// Window sizes: kW (one packed block), kWideW (two, the second partial).
constexpr int kWideW = 18;

bool decode_s8(const ModelS8& m, int heads, int kv_heads, int chunk, int window, bool packed) {
  const int capacity = window != 0 ? window : kT;
  attn::MhaDecodeShape s;
  static attn::MhaDecodeS8Params params;
  if (!prepare_decode(m, heads, kv_heads, kT, capacity, &s, &params)) return false;
  if (attn::mha_decode_s8_scratch_bytes(s, capacity) > kScratchBytes) return false;
  const attn::KvCacheShape cs{capacity,    kv_heads, kE / heads, attn::KvElement::kS8,
                              window != 0, packed};
  attn::KvCache cache;
  if (attn::kv_cache_init(cs, g_cache, kCacheBytes, &cache) != attn::Status::kOk) return false;
  // The packed section exactly where the build's int8 core is query-tiled.
  if ((cache.packed != nullptr) != (packed && attn::kSdpaS8QueryTile > 1)) return false;
  for (int t0 = 0; t0 < kT; t0 += chunk) {
    attn::MhaDecodeS8Args a;
    a.x = g_x + t0 * kE;
    a.out = g_out + t0 * kE;
    a.tokens = kT - t0 < chunk ? kT - t0 : chunk;
    if (attn::mha_decode_s8(&params, a, &cache, {g_scratch, kScratchBytes}) != attn::Status::kOk) {
      return false;
    }
  }
  return cache.position == kT;
}

// window: 0 (a linear cache of kT) or the window's size.
void check_s8(attn_test::Context& ctx, int heads, int kv_heads, int window, uint32_t seed) {
  attn_test::Arena arena;
  g_scratch = arena.alloc<unsigned char>(kScratchBytes);
  g_cache = arena.alloc<unsigned char>(kCacheBytes);
  ATTN_ASSERT_TRUE(arena.ok());
  Rng r(seed);
  static ModelS8 m;
  make_model(r, &m, heads, kv_heads);
  for (int8_t& v : g_x) v = static_cast<int8_t>(r.range(-128, 127));
  static uint8_t band[kT * kT];
  for (int i = 0; i < kT; ++i) {
    for (int j = 0; j < kT; ++j) band[i * kT + j] = (j <= i && j > i - window) ? 0 : 1;
  }
  ATTN_ASSERT_TRUE(one_shot_s8(m, heads, window != 0 ? band : nullptr));
  int distinct = 0;  // the reference is not degenerate
  for (int i = 1; i < kT * kE; ++i) distinct += g_ref[i] != g_ref[0] ? 1 : 0;
  ATTN_EXPECT_TRUE(distinct > kT * kE / 2);
  for (int pass = 0; pass < 2; ++pass) {
    const bool packed = pass == 1;
    for (int chunk : kChunks) {
      std::memset(g_out, 0x55, sizeof g_out);
      ATTN_ASSERT_TRUE(decode_s8(m, heads, kv_heads, chunk, window, packed));
      int diff = 0;
      for (int i = 0; i < kT * kE; ++i) diff += g_out[i] != g_ref[i] ? 1 : 0;
      ATTN_EXPECT_EQ_INT(diff, 0);
    }
  }
}

// Causal decoding of the kT tokens max_tokens at a time in exactly
// mha_decode_s8_scratch_bytes of scratch, followed by a guard band that
// must stay untouched (the formula reserves the query-tile section only
// from kSdpaS8TileMinRows rows a core call can see: max_tokens, or the query
// heads per kv head of a one-token step).
// A packed cache's scratch (mha_decode_s8_scratch_bytes with its shape)
// holds no copy of K and V: per worker, the tile section's packed K, key sums
// and packed V less, where that section is reserved.
void check_exact_scratch(attn_test::Context& ctx, int heads, int kv_heads, int max_tokens,
                         uint32_t seed, bool packed) {
  attn_test::Arena arena;
  Rng r(seed);
  static ModelS8 m;
  make_model(r, &m, heads, kv_heads);
  for (int8_t& v : g_x) v = static_cast<int8_t>(r.range(-128, 127));
  g_scratch = arena.alloc<unsigned char>(kScratchBytes);
  g_cache = arena.alloc<unsigned char>(kCacheBytes);
  ATTN_ASSERT_TRUE(arena.ok());
  ATTN_ASSERT_TRUE(one_shot_s8(m, heads, nullptr));
  attn::MhaDecodeShape s;
  static attn::MhaDecodeS8Params params;
  ATTN_ASSERT_TRUE(prepare_decode(m, heads, kv_heads, max_tokens, kT, &s, &params));
  const attn::KvCacheShape cs{kT, kv_heads, kE / heads, attn::KvElement::kS8, false, packed};
  const std::size_t bytes = attn::mha_decode_s8_scratch_bytes(s, cs);
  const bool tiles = attn::kSdpaS8QueryTile > 1 && attn::mha_decode_s8_core_rows(s) >= 4;
  if (packed && tiles) {
    const std::size_t c16 = (kT + 15) / 16 * 16, hd = static_cast<std::size_t>(kE / heads);
    const auto a64 = [](std::size_t n) { return (n + 63) / 64 * 64; };
    const std::size_t copies = a64(c16 * ((hd + 3) / 4 * 4)) + a64(4 * c16) +
                               a64(c16 * ((hd + 15) / 16 * 16));
    ATTN_EXPECT_EQ_INT(attn::mha_decode_s8_scratch_bytes(s, kT) - bytes, copies);
  } else {
    ATTN_EXPECT_EQ_INT(bytes, attn::mha_decode_s8_scratch_bytes(s, kT));
  }
  constexpr std::size_t kGuard = 64;
  ATTN_ASSERT_TRUE(bytes + kGuard <= kScratchBytes);
  std::memset(g_scratch, 0xa5, bytes + kGuard);
  attn::KvCache cache;
  ATTN_ASSERT_TRUE(attn::kv_cache_init(cs, g_cache, kCacheBytes, &cache) == attn::Status::kOk);
  std::memset(g_out, 0x55, sizeof g_out);
  for (int t0 = 0; t0 < kT; t0 += max_tokens) {
    attn::MhaDecodeS8Args a;
    a.x = g_x + t0 * kE;
    a.out = g_out + t0 * kE;
    a.tokens = kT - t0 < max_tokens ? kT - t0 : max_tokens;
    ATTN_ASSERT_TRUE(attn::mha_decode_s8(&params, a, &cache, {g_scratch, bytes}) ==
                     attn::Status::kOk);
  }
  int diff = 0;
  for (int i = 0; i < kT * kE; ++i) diff += g_out[i] != g_ref[i] ? 1 : 0;
  ATTN_EXPECT_EQ_INT(diff, 0);
  ATTN_EXPECT_ALL_BYTES("guard band", g_scratch + bytes, 0xa5, kGuard);
}

}  // namespace

ATTN_CASE(MhaDecodeS8, ExactScratchBitIdenticalToOneShot) {
  for (const bool packed : {false, true}) {
    check_exact_scratch(ctx, 4, 2, 1, 25, packed);  // 2 rows a core call: the one-row buffers only
    check_exact_scratch(ctx, 4, 4, 3, 26, packed);  // 3 rows (3 tokens of a head)
    check_exact_scratch(ctx, 4, 2, 2, 27, packed);  // 2 rows (2 tokens of a head)
    check_exact_scratch(ctx, 4, 1, 1, 27, packed);  // 4 rows (a kv head's 4 query heads): tiles
    check_exact_scratch(ctx, 2, 1, 5, 28, packed);  // 5 rows (5 tokens: the tiled core)
    // All kT tokens in one call: whole query tiles over the full capacity.
    check_exact_scratch(ctx, 4, 4, kT, 29, packed);
  }
}

ATTN_CASE(MhaDecodeS8, IncrementalBitIdenticalToOneShotCausal) { check_s8(ctx, 4, 4, 0, 21); }
ATTN_CASE(MhaDecodeS8, GroupedQueryBitIdenticalToOneShot) { check_s8(ctx, 4, 2, 0, 22); }
ATTN_CASE(MhaDecodeS8, MultiQueryBitIdenticalToOneShot) { check_s8(ctx, 2, 1, 0, 23); }
ATTN_CASE(MhaDecodeS8, WindowBitIdenticalToOneShotBandMask) { check_s8(ctx, 4, 2, kW, 24); }
// A group of 4 query heads: a decode step's one core call per kv head has 4
// rows (the query-tiled core where its kernels are fast).
ATTN_CASE(MhaDecodeS8, GroupOfFourBitIdenticalToOneShot) { check_s8(ctx, 4, 1, 0, 25); }
ATTN_CASE(MhaDecodeS8, GroupOfFourWindowBitIdenticalToOneShot) { check_s8(ctx, 4, 1, kW, 26); }
// A ring of two 16-slot blocks (the second partial) that wraps: a packed
// cache repacks the block a new token lands in, older tokens of the lap
// before beside it.
ATTN_CASE(MhaDecodeS8, GroupOfFourWindowAcrossBlocks) { check_s8(ctx, 4, 1, kWideW, 27); }
ATTN_CASE(MhaDecodeS8, GroupedQueryWindowAcrossBlocks) { check_s8(ctx, 4, 2, kWideW, 28); }
