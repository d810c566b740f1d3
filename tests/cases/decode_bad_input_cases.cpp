// KV cache and decode ops: the float16 conversion (every binary16 value and
// every rounding midpoint, against an independent ldexp decoding), the cache's
// append / reset / full behaviour, and each bad input's status with the output
// and the cache (state and storage) left untouched.
#include <cmath>
#include <cstring>

#include "attn/kv_cache.h"
#include "attn/mha_decode.h"
#include "attn/mha_decode_s8.h"
#include "attn/sdpa_s8.h"
#include "case.h"

namespace {

std::size_t uz(int i) { return static_cast<std::size_t>(i); }

// The value of a finite binary16 pattern, decoded independently.
float half_value(uint16_t h) {
  const int e = (h >> 10) & 0x1f;
  const int m = h & 0x3ff;
  const double mag = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  return static_cast<float>((h & 0x8000) != 0 ? -mag : mag);
}

constexpr int kHd = 512;
alignas(64) unsigned char g_store[64 + 2 * 2 * kHd + 64];
float g_row[kHd];

// The binary16 bits the kF16 cache stores for x[0, kHd) (one slot, one head).
const uint16_t* store_f16(const float* x) {
  static attn::KvCache c;
  const attn::KvCacheShape s{1, 1, kHd, attn::KvElement::kF16, true};
  if (attn::kv_cache_init(s, g_store, sizeof g_store, &c) != attn::Status::kOk) return nullptr;
  if (attn::kv_cache_append_f32(&c, x, x, 1) != attn::Status::kOk) return nullptr;
  return static_cast<const uint16_t*>(c.k);
}

}  // namespace

ATTN_CASE(KvCache, Float16EveryValueAndMidpointRoundsToNearestEven) {
  int bad = 0;
  for (int base = 0; base < 0x7c00; base += kHd) {
    // Every finite positive and negative value stores as itself.
    for (int sign = 0; sign < 2; ++sign) {
      for (int i = 0; i < kHd; ++i)
        g_row[i] = half_value(static_cast<uint16_t>((base + i) | (sign << 15)));
      const uint16_t* h = store_f16(g_row);
      ATTN_ASSERT_TRUE(h != nullptr);
      for (int i = 0; i < kHd; ++i) bad += h[i] != ((base + i) | (sign << 15)) ? 1 : 0;
    }
    // Midpoints between h and h + 1 go to the even one; one float ulp off, to the nearer.
    const float dirs[3] = {0.0f, 1.0f, -1.0f};
    for (float dir : dirs) {
      for (int i = 0; i < kHd; ++i) {
        const float mid = (half_value(static_cast<uint16_t>(base + i)) +
                           half_value(static_cast<uint16_t>(base + i + 1))) *
                          0.5f;
        g_row[i] = dir == 0.0f ? mid : std::nextafter(mid, dir * INFINITY);
      }
      const uint16_t* h = store_f16(g_row);
      ATTN_ASSERT_TRUE(h != nullptr);
      for (int i = 0; i < kHd; ++i) {
        const int lo = base + i;
        const int want = dir > 0.0f ? lo + 1 : (dir < 0.0f ? lo : ((lo & 1) != 0 ? lo + 1 : lo));
        bad += h[i] != want ? 1 : 0;
      }
    }
  }
  ATTN_EXPECT_EQ_INT(bad, 0);
  // Overflow, infinities, NaN, below half the smallest subnormal.
  for (int i = 0; i < kHd; ++i) g_row[i] = 0.0f;
  g_row[0] = 65519.99f;
  g_row[1] = 65520.0f;
  g_row[2] = -1e30f;
  g_row[3] = INFINITY;
  g_row[4] = NAN;
  g_row[5] = std::ldexp(1.0f, -25);                        // tie with 0: even is 0
  g_row[6] = std::nextafter(std::ldexp(1.0f, -25), 1.0f);  // nearer the smallest subnormal
  const uint16_t* h = store_f16(g_row);
  ATTN_ASSERT_TRUE(h != nullptr);
  ATTN_EXPECT_EQ_INT(h[0], 0x7bff);
  ATTN_EXPECT_EQ_INT(h[1], 0x7c00);
  ATTN_EXPECT_EQ_INT(h[2], 0xfc00);
  ATTN_EXPECT_EQ_INT(h[3], 0x7c00);
  ATTN_EXPECT_TRUE((h[4] & 0x7c00) == 0x7c00 && (h[4] & 0x3ff) != 0);
  ATTN_EXPECT_EQ_INT(h[5], 0);
  ATTN_EXPECT_EQ_INT(h[6], 1);
}

ATTN_CASE(KvCache, AppendResetFullAndWindow) {
  alignas(64) static unsigned char
      store[attn::kv_cache_bytes({4, 2, 3, attn::KvElement::kF32, false}) + 1];
  static_assert(attn::kv_cache_bytes({4, 2, 3, attn::KvElement::kF32, false}) == 64 + 2 * 128,
                "formula");
  static_assert(attn::kv_cache_bytes({4, 2, 3, attn::KvElement::kS8, false}) == 64 + 2 * 64,
                "formula");
  // Packed int8: 2 heads * 16 slots * (round4(3) + round16(3) + 4) more where
  // the int8 core is query-tiled; packed float: both blocks sized for 32 slots.
  static_assert(attn::kv_cache_bytes({4, 2, 3, attn::KvElement::kS8, false, true}) ==
                    64 + 2 * 64 + (attn::kSdpaS8QueryTile > 1 ? 2 * 16 * (4 + 16 + 4) : 0),
                "formula");
  static_assert(attn::kv_cache_bytes({4, 2, 3, attn::KvElement::kF32, false, true}) ==
                    64 + 2 * (32 * 2 * 3 * 4),
                "formula");
  static_assert(attn::kv_cache_bytes({4, 2, 3, attn::KvElement::kF16, false, true}) ==
                    64 + 2 * (32 * 2 * 3 * 2),
                "formula");
  attn::KvCache c;
  const attn::KvCacheShape s{4, 2, 3, attn::KvElement::kF32, false};
  ATTN_EXPECT_STATUS(attn::kv_cache_init(s, store + 1, sizeof store - 2, &c),
                     attn::Status::kScratchTooSmall);
  ATTN_EXPECT_STATUS(
      attn::kv_cache_init({0, 2, 3, attn::KvElement::kF32, false}, store, sizeof store, &c),
      attn::Status::kBadShape);
  ATTN_EXPECT_STATUS(attn::kv_cache_init(s, nullptr, sizeof store, &c), attn::Status::kNullPointer);
  ATTN_EXPECT_STATUS(
      attn::kv_cache_init({4, 2, 3, attn::KvElement::kF32, false, true}, store, sizeof store, &c),
      attn::Status::kScratchTooSmall);
  ATTN_ASSERT_TRUE(attn::kv_cache_init(s, store + 1, sizeof store - 1, &c) == attn::Status::kOk);
  float k[5 * 6], v[5 * 6];
  for (int i = 0; i < 30; ++i) {
    k[i] = static_cast<float>(i);
    v[i] = static_cast<float>(100 + i);
  }
  ATTN_EXPECT_STATUS(attn::kv_cache_append_f32(&c, k, v, 3), attn::Status::kOk);
  ATTN_EXPECT_EQ_INT(c.position, 3);
  // Token 2, kv head 1: slot 2 of head 1 -> element (1 * 4 + 2) * 3.
  ATTN_EXPECT_TRUE(static_cast<const float*>(c.k)[18] == 15.0f);
  ATTN_EXPECT_TRUE(static_cast<const float*>(c.v)[20] == 117.0f);
  static unsigned char before[sizeof store];
  std::memcpy(before, store, sizeof store);
  ATTN_EXPECT_STATUS(attn::kv_cache_append_f32(&c, k, v, 2), attn::Status::kCacheFull);
  ATTN_EXPECT_TRUE(std::memcmp(before, store, sizeof store) == 0 && c.position == 3);
  const int8_t k8[6] = {};
  ATTN_EXPECT_STATUS(attn::kv_cache_append_s8(&c, k8, k8, 1), attn::Status::kBadArgument);
  ATTN_EXPECT_STATUS(attn::kv_cache_append_f32(&c, k, v, 0), attn::Status::kBadShape);
  ATTN_EXPECT_STATUS(attn::kv_cache_reset(&c), attn::Status::kOk);
  ATTN_EXPECT_EQ_INT(c.position, 0);
  // Window of 4: 5 tokens keep tokens 1..4, token 4 in slot 0.
  const attn::KvCacheShape w{4, 2, 3, attn::KvElement::kF32, true};
  ATTN_ASSERT_TRUE(attn::kv_cache_init(w, store, sizeof store, &c) == attn::Status::kOk);
  ATTN_EXPECT_STATUS(attn::kv_cache_append_f32(&c, k, v, 5), attn::Status::kOk);
  ATTN_EXPECT_TRUE(static_cast<const float*>(c.k)[0] == 24.0f);
  ATTN_EXPECT_TRUE(static_cast<const float*>(c.k)[3] == 6.0f);
  ATTN_EXPECT_EQ_INT(c.next_slot, 1);
  c.position = attn::kKvCacheMaxPosition - 1;
  ATTN_EXPECT_STATUS(attn::kv_cache_append_f32(&c, k, v, 2), attn::Status::kOverflow);
}

// A packed float cache keeps K in 32-slot transposed blocks (slot j, element
// x of kv head g at (g * 32 + j / 32 * 32) * 3 + x * 32 + j % 32 here), V in
// rows; init zeroes K (the blocks' unused lanes are read).
ATTN_CASE(KvCache, PackedFloatBlocks) {
  alignas(64) static unsigned char
      store[attn::kv_cache_bytes({4, 2, 3, attn::KvElement::kF32, true, true})];
  std::memset(store, 0xff, sizeof store);
  attn::KvCache c;
  const attn::KvCacheShape s{4, 2, 3, attn::KvElement::kF32, false, true};
  ATTN_ASSERT_TRUE(attn::kv_cache_init(s, store, sizeof store, &c) == attn::Status::kOk);
  const auto* kf = static_cast<const float*>(c.k);
  for (int i = 0; i < 2 * 32 * 3; ++i) ATTN_EXPECT_TRUE(kf[i] == 0.0f);
  float k[5 * 6], v[5 * 6];
  for (int i = 0; i < 30; ++i) {
    k[i] = static_cast<float>(i);
    v[i] = static_cast<float>(100 + i);
  }
  ATTN_EXPECT_STATUS(attn::kv_cache_append_f32(&c, k, v, 3), attn::Status::kOk);
  // Token 2, kv head 1: elements 96 + 2, 96 + 32 + 2, 96 + 64 + 2 of K; V rows as unpacked.
  ATTN_EXPECT_TRUE(kf[98] == 15.0f && kf[130] == 16.0f && kf[162] == 17.0f);
  ATTN_EXPECT_TRUE(static_cast<const float*>(c.v)[20] == 117.0f);
  ATTN_EXPECT_TRUE(kf[3] == 0.0f);  // slot 3 not written yet
  // Window of 4, binary16: 5 tokens keep tokens 1..4, token 4 in slot 0.
  const attn::KvCacheShape w{4, 2, 3, attn::KvElement::kF16, true, true};
  ATTN_ASSERT_TRUE(attn::kv_cache_init(w, store, sizeof store, &c) == attn::Status::kOk);
  ATTN_EXPECT_STATUS(attn::kv_cache_append_f32(&c, k, v, 5), attn::Status::kOk);
  const auto* kh = static_cast<const uint16_t*>(c.k);
  ATTN_EXPECT_EQ_INT(kh[0], 0x4e00);   // 24.0: token 4, slot 0
  ATTN_EXPECT_EQ_INT(kh[1], 0x4600);   // 6.0: token 1, slot 1
  ATTN_EXPECT_EQ_INT(kh[32], 0x4e40);  // 25.0: token 4's element 1
  ATTN_EXPECT_EQ_INT(c.next_slot, 1);
}

namespace {

constexpr int kE = 8;
float g_w[4 * kE * kE];
float g_x[3 * kE];
float g_out[3 * kE];
alignas(64) unsigned char g_cache_store[1024];
// Scratch: kWsBytes from the case arena (case.h), not a static buffer, so the
// board images' RAM does not grow with these cases.
constexpr std::size_t kWsBytes = 16 * 1024;
static unsigned char g_cache_before[sizeof g_cache_store];

struct Snapshot {
  attn::KvCache cache;
  void take(const attn::KvCache& c) {
    cache = c;
    std::memcpy(g_cache_before, g_cache_store, sizeof g_cache_store);
    for (float& o : g_out) o = 7.0f;
  }
  bool untouched(const attn::KvCache& c) const {
    bool same_out = true;
    for (float o : g_out) same_out = same_out && o == 7.0f;
    return same_out && c.position == cache.position && c.next_slot == cache.next_slot &&
           std::memcmp(g_cache_before, g_cache_store, sizeof g_cache_store) == 0;
  }
};

}  // namespace

ATTN_CASE(MhaDecodeF32, BadInputsLeaveOutputAndCacheUntouched) {
  attn_test::Arena arena;
  unsigned char* ws_mem = arena.alloc<unsigned char>(kWsBytes);
  ATTN_ASSERT_TRUE(arena.ok());
  attn_test::Rng r(5);
  attn_test::fill_uniform(r, g_w, sizeof g_w / 4, -0.5f, 0.5f);
  attn_test::fill_uniform(r, g_x, uz(3 * kE), -1.0f, 1.0f);
  attn::MhaDecodeShape s;
  s.embed_dim = kE;
  s.num_heads = 4;
  s.num_kv_heads = 2;
  s.max_tokens = 3;
  s.rope.dims = 2;
  attn::MhaDecodeF32Weights w;
  w.q_proj_weight = g_w;
  w.k_proj_weight = g_w + kE * kE;
  w.v_proj_weight = g_w + 2 * kE * kE;
  w.out_proj_weight = g_w + 3 * kE * kE;
  attn::KvCache c;
  ATTN_ASSERT_TRUE(attn::kv_cache_init({4, 2, 2, attn::KvElement::kF32, false}, g_cache_store,
                                       sizeof g_cache_store, &c) == attn::Status::kOk);
  const attn::Scratch ws{ws_mem, attn::mha_decode_f32_scratch_bytes(s)};
  ATTN_ASSERT_TRUE(ws.bytes <= kWsBytes);
  attn::MhaDecodeF32Args a;
  a.x = g_x;
  a.out = g_out;
  a.tokens = 3;
  ATTN_ASSERT_TRUE(attn::mha_decode_f32(s, w, a, &c, ws) == attn::Status::kOk);
  Snapshot snap;
  auto expect = [&](attn::MhaDecodeShape sh, attn::MhaDecodeF32Weights wt,
                    attn::MhaDecodeF32Args ar, attn::KvCache* cache, attn::Scratch sc,
                    attn::Status want, int line) {
    snap.take(c);
    const attn::Status got = attn::mha_decode_f32(sh, wt, ar, cache, sc);
    ++ctx.checks;
    if (got != want || !snap.untouched(c)) {
      attn_test::fail(ctx, __FILE__, line, "status %d (want %d), untouched %d",
                      static_cast<int>(got), static_cast<int>(want), snap.untouched(c));
    }
  };
  a.tokens = 2;  // capacity 4 holds 3 tokens
  expect(s, w, a, &c, ws, attn::Status::kCacheFull, __LINE__);
  a.tokens = 1;
  attn::MhaDecodeShape bad = s;
  bad.num_kv_heads = 3;
  expect(bad, w, a, &c, ws, attn::Status::kShapeMismatch, __LINE__);
  bad = s;
  bad.rope.dims = 1;
  expect(bad, w, a, &c, ws, attn::Status::kBadArgument, __LINE__);
  bad.rope.dims = 4;  // > head_dim 2
  expect(bad, w, a, &c, ws, attn::Status::kBadArgument, __LINE__);
  bad = s;
  bad.rope.theta = NAN;
  expect(bad, w, a, &c, ws, attn::Status::kBadArgument, __LINE__);
  bad = s;
  bad.cache_element = attn::KvElement::kF16;  // the cache is kF32
  expect(bad, w, a, &c, {ws_mem, kWsBytes}, attn::Status::kBadArgument, __LINE__);
  bad = s;
  bad.num_heads = 2;  // head_dim 4: not the cache's
  bad.rope.dims = 0;
  expect(bad, w, a, &c, ws, attn::Status::kShapeMismatch, __LINE__);
  attn::MhaDecodeF32Weights packed = w;
  packed.in_proj_weight = g_w;  // packed needs num_kv_heads == num_heads
  expect(s, packed, a, &c, ws, attn::Status::kShapeMismatch, __LINE__);
  attn::MhaDecodeF32Args ar = a;
  ar.x = nullptr;
  expect(s, w, ar, &c, ws, attn::Status::kNullPointer, __LINE__);
  ar = a;
  ar.out = nullptr;
  expect(s, w, ar, &c, ws, attn::Status::kNullPointer, __LINE__);
  expect(s, w, a, nullptr, ws, attn::Status::kNullPointer, __LINE__);
  attn::MhaDecodeF32Weights nw = w;
  nw.k_proj_weight = nullptr;
  expect(s, nw, a, &c, ws, attn::Status::kNullPointer, __LINE__);
  nw = w;
  nw.out_proj_weight = nullptr;
  expect(s, nw, a, &c, ws, attn::Status::kNullPointer, __LINE__);
  // Float16 weights: a matrix given both as float32 and as binary16 is
  // kBadArgument; a matrix given as neither kNullPointer (checked first).
  uint16_t* w16 = arena.alloc<uint16_t>(uz(kE * kE));
  ATTN_ASSERT_TRUE(arena.ok());
  for (int i = 0; i < kE * kE; ++i) w16[i] = 0x3c00;  // 1.0
  nw = w;
  nw.q_proj_weight_f16 = w16;
  expect(s, nw, a, &c, ws, attn::Status::kBadArgument, __LINE__);
  nw = w;
  nw.out_proj_weight_f16 = w16;
  expect(s, nw, a, &c, ws, attn::Status::kBadArgument, __LINE__);
  nw = w;
  nw.v_proj_weight = nullptr;
  nw.k_proj_weight_f16 = w16;  // v missing (before k given twice)
  expect(s, nw, a, &c, ws, attn::Status::kNullPointer, __LINE__);
  nw = w;
  nw.k_proj_weight = nullptr;
  nw.v_proj_weight_f16 = w16;  // k missing; v given twice
  expect(s, nw, a, &c, ws, attn::Status::kNullPointer, __LINE__);
  nw.k_proj_weight_f16 = w16;  // k now given, v still both
  expect(s, nw, a, &c, ws, attn::Status::kBadArgument, __LINE__);
  ar = a;
  ar.tokens = 4;  // > max_tokens
  expect(s, w, ar, &c, ws, attn::Status::kBadShape, __LINE__);
  ar.tokens = 0;
  expect(s, w, ar, &c, ws, attn::Status::kBadShape, __LINE__);
  ar = a;
  ar.executor.workers = 2;  // more than one worker without run
  expect(s, w, ar, &c, ws, attn::Status::kBadArgument, __LINE__);
  ar.executor.workers = 0;
  expect(s, w, ar, &c, ws, attn::Status::kBadArgument, __LINE__);
  expect(s, w, a, &c, {ws_mem, ws.bytes - 1}, attn::Status::kScratchTooSmall, __LINE__);
  expect(s, w, a, &c, {nullptr, ws.bytes}, attn::Status::kScratchTooSmall, __LINE__);
  // Position overflow (a window cache, so only the position limit applies).
  ATTN_ASSERT_TRUE(attn::kv_cache_init({4, 2, 2, attn::KvElement::kF32, true}, g_cache_store,
                                       sizeof g_cache_store, &c) == attn::Status::kOk);
  c.position = attn::kKvCacheMaxPosition - 1;
  ar = a;
  ar.tokens = 2;
  expect(s, w, ar, &c, ws, attn::Status::kOverflow, __LINE__);
  // A kS8 cache for the float op.
  ATTN_ASSERT_TRUE(attn::kv_cache_init({4, 2, 2, attn::KvElement::kS8, false}, g_cache_store,
                                       sizeof g_cache_store, &c) == attn::Status::kOk);
  bad = s;
  bad.cache_element = attn::KvElement::kS8;
  expect(bad, w, a, &c, {ws_mem, kWsBytes}, attn::Status::kBadArgument, __LINE__);
}

ATTN_CASE(MhaDecodeS8, BadInputsLeaveOutputAndCacheUntouched) {
  attn_test::Arena arena;
  unsigned char* ws_mem = arena.alloc<unsigned char>(kWsBytes);
  ATTN_ASSERT_TRUE(arena.ok());
  static int8_t w8[4 * kE * kE];
  static float scales[2 * kE];
  for (int i = 0; i < 4 * kE * kE; ++i) w8[i] = static_cast<int8_t>(i * 37 % 255 - 127);
  for (float& sc : scales) sc = 0.003f;
  attn::MhaS8Weights w;
  w.q = {w8, scales, nullptr};
  w.k = {w8 + kE * kE, scales, nullptr};
  w.v = {w8 + 2 * kE * kE, scales, nullptr};
  w.out = {w8 + 3 * kE * kE, scales, nullptr};
  attn::MhaDecodeS8Quant q;
  q.input = q.q = q.k = q.v = q.scores = q.attn = q.out = {0.05f, 0};
  attn::MhaDecodeShape s;
  s.embed_dim = kE;
  s.num_heads = 4;
  s.num_kv_heads = 2;
  s.max_tokens = 3;
  s.cache_element = attn::KvElement::kS8;
  static attn::QuantizedMultiplier ch[4 * kE];
  static attn::MhaDecodeS8Params p;
  attn::MhaDecodeShape bad = s;
  bad.rope.dims = 1;
  ATTN_EXPECT_STATUS(attn::mha_decode_s8_prepare(bad, 4, q, w, ch, &p), attn::Status::kBadArgument);
  bad.rope.dims = 4;  // > head_dim 2
  ATTN_EXPECT_STATUS(attn::mha_decode_s8_prepare(bad, 4, q, w, ch, &p), attn::Status::kBadArgument);
  bad.rope.dims = 2;
  bad.rope.theta = 1.0f;
  ATTN_EXPECT_STATUS(attn::mha_decode_s8_prepare(bad, 4, q, w, ch, &p), attn::Status::kBadArgument);
  bad.rope.theta = NAN;
  ATTN_EXPECT_STATUS(attn::mha_decode_s8_prepare(bad, 4, q, w, ch, &p), attn::Status::kBadArgument);
  bad = s;
  bad.num_kv_heads = 3;
  ATTN_EXPECT_STATUS(attn::mha_decode_s8_prepare(bad, 4, q, w, ch, &p),
                     attn::Status::kShapeMismatch);
  ATTN_EXPECT_STATUS(attn::mha_decode_s8_prepare(s, 4096, q, w, ch, &p), attn::Status::kOverflow);
  ATTN_ASSERT_TRUE(attn::mha_decode_s8_prepare(s, 4, q, w, ch, &p) == attn::Status::kOk);
  attn::KvCache c;
  ATTN_ASSERT_TRUE(attn::kv_cache_init({4, 2, 2, attn::KvElement::kS8, false}, g_cache_store,
                                       sizeof g_cache_store, &c) == attn::Status::kOk);
  static int8_t x[3 * kE], out[3 * kE];
  const attn::Scratch ws{ws_mem, attn::mha_decode_s8_scratch_bytes(s, 4)};
  attn::MhaDecodeS8Args a;
  a.x = x;
  a.out = out;
  a.tokens = 3;
  ATTN_ASSERT_TRUE(attn::mha_decode_s8(&p, a, &c, ws) == attn::Status::kOk);
  auto expect = [&](const attn::MhaDecodeS8Params* pp, attn::MhaDecodeS8Args ar,
                    attn::KvCache* cache, attn::Scratch sc, attn::Status want, int line) {
    std::memcpy(g_cache_before, g_cache_store, sizeof g_cache_store);
    std::memset(out, 7, sizeof out);
    const attn::KvCache before = c;
    const attn::Status got = attn::mha_decode_s8(pp, ar, cache, sc);
    bool same = c.position == before.position &&
                std::memcmp(g_cache_before, g_cache_store, sizeof g_cache_store) == 0;
    for (int8_t o : out) same = same && o == 7;
    ++ctx.checks;
    if (got != want || !same) {
      attn_test::fail(ctx, __FILE__, line, "status %d (want %d), untouched %d",
                      static_cast<int>(got), static_cast<int>(want), same);
    }
  };
  a.tokens = 2;
  expect(&p, a, &c, ws, attn::Status::kCacheFull, __LINE__);
  a.tokens = 1;
  expect(nullptr, a, &c, ws, attn::Status::kNullPointer, __LINE__);
  expect(&p, a, nullptr, ws, attn::Status::kNullPointer, __LINE__);
  attn::MhaDecodeS8Args ar = a;
  ar.x = nullptr;
  expect(&p, ar, &c, ws, attn::Status::kNullPointer, __LINE__);
  ar = a;
  ar.tokens = 4;
  expect(&p, ar, &c, ws, attn::Status::kBadShape, __LINE__);
  ar = a;
  ar.executor.workers = 2;  // more than one worker without run
  expect(&p, ar, &c, ws, attn::Status::kBadArgument, __LINE__);
  ATTN_ASSERT_TRUE(attn::kv_cache_reset(&c) == attn::Status::kOk);
  expect(&p, a, &c, {ws_mem, ws.bytes - 1}, attn::Status::kScratchTooSmall, __LINE__);
  attn::KvCache other;
  ATTN_ASSERT_TRUE(attn::kv_cache_init({8, 2, 2, attn::KvElement::kS8, false}, g_cache_store,
                                       sizeof g_cache_store, &other) == attn::Status::kOk);
  expect(&p, a, &other, ws, attn::Status::kShapeMismatch, __LINE__);  // capacity above prepared
  ATTN_ASSERT_TRUE(attn::kv_cache_init({4, 2, 2, attn::KvElement::kF32, false}, g_cache_store,
                                       sizeof g_cache_store, &other) == attn::Status::kOk);
  expect(&p, a, &other, ws, attn::Status::kBadArgument, __LINE__);
}
