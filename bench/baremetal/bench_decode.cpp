// Decoder-step benchmark cases (see bench_decode.h).
#include "bench_decode.h"

namespace bench_decode {
namespace {

constexpr int32_t kHeads = 4;
constexpr int32_t kKvHeads = 2;
constexpr int32_t kHd = kE / kHeads;
constexpr int32_t kKvd = kKvHeads * kHd;
// Offsets of q, k, v, o in the packed weights and biases.
constexpr int32_t kWOff[4] = {0, kE* kE, kE* kE + kKvd* kE, kE* kE + 2 * kKvd* kE};
constexpr int32_t kBOff[4] = {0, kE, kE + kKvd, kE + 2 * kKvd};

constexpr attn::KvCacheShape kF32Cache{kContext, kKvHeads, kHd, attn::KvElement::kF32, false};
constexpr attn::KvCacheShape s8_cache(const S8Config& c) {
  return {kContext, c.kv_heads, kHd, attn::KvElement::kS8, false, c.packed};
}
constexpr std::size_t kS8StoreBytes = attn::kv_cache_bytes(s8_cache({false, kKvHeads, false})) >
                                              attn::kv_cache_bytes(s8_cache({false, 1, true}))
                                          ? attn::kv_cache_bytes(s8_cache({false, kKvHeads, false}))
                                          : attn::kv_cache_bytes(s8_cache({false, 1, true}));
alignas(64) unsigned char g_f32_store[attn::kv_cache_bytes(kF32Cache)];
alignas(64) unsigned char g_s8_store[kS8StoreBytes];

struct F32Case {
  attn::MhaDecodeShape shape;
  attn::MhaDecodeF32Weights w;
  attn::KvCache cache;
  attn::Scratch scratch;
  const float* x;
  float out[kE];
} g_f32;

struct S8Case {
  attn::MhaDecodeS8Params params;
  attn::QuantizedMultiplier channels[2 * kE + 2 * kKvd];
  attn::KvCache cache;
  attn::Scratch scratch;
  const int8_t* x;
  int8_t out[kE];
} g_s8;

attn::MhaDecodeShape shape(bool rope, attn::KvElement element, int32_t kv_heads = kKvHeads) {
  attn::MhaDecodeShape s;
  s.embed_dim = kE;
  s.num_heads = kHeads;
  s.num_kv_heads = kv_heads;
  s.max_tokens = 1;
  s.cache_element = element;
  s.rope.dims = rope ? kHd : 0;
  return s;
}

attn::Status f32_token(int32_t t) {
  attn::MhaDecodeF32Args a;
  a.x = g_f32.x + t * kE;
  a.out = g_f32.out;
  return attn::mha_decode_f32(g_f32.shape, g_f32.w, a, &g_f32.cache, g_f32.scratch);
}

attn::Status s8_token(int32_t t) {
  attn::MhaDecodeS8Args a;
  a.x = g_s8.x + t * kE;
  a.out = g_s8.out;
  return attn::mha_decode_s8(&g_s8.params, a, &g_s8.cache, g_s8.scratch);
}

// Moves a linear cache back to position p (its slots stay written).
void rewind(attn::KvCache* c, int32_t p) {
  c->position = p;
  c->next_slot = p;
}

}  // namespace

bool prepare_f32(const Model& m, bool rope, attn::Scratch scratch) {
  g_f32.shape = shape(rope, attn::KvElement::kF32);
  g_f32.w.q_proj_weight = m.w + kWOff[0];
  g_f32.w.k_proj_weight = m.w + kWOff[1];
  g_f32.w.v_proj_weight = m.w + kWOff[2];
  g_f32.w.out_proj_weight = m.w + kWOff[3];
  g_f32.w.q_proj_bias = m.bias + kBOff[0];
  g_f32.w.k_proj_bias = m.bias + kBOff[1];
  g_f32.w.v_proj_bias = m.bias + kBOff[2];
  g_f32.w.out_proj_bias = m.bias + kBOff[3];
  g_f32.scratch = scratch;
  g_f32.x = m.x;
  if (attn::kv_cache_init(kF32Cache, g_f32_store, sizeof g_f32_store, &g_f32.cache) !=
      attn::Status::kOk) {
    return false;
  }
  for (int32_t t = 0; t < kContext - 1; ++t) {
    if (f32_token(t) != attn::Status::kOk) return false;
  }
  return true;
}

bool prepare_s8(const Model& m, const S8Config& c, attn::Scratch scratch) {
  attn::MhaDecodeS8Quant quant;
  quant.input = {0.02f, 0};
  quant.q = quant.k = quant.v = {0.05f, 0};
  quant.scores = {0.1f, 0};
  quant.attn = {0.05f, 0};
  quant.out = {0.05f, 0};
  attn::MhaS8Weights w;
  // One kv head: the first hd rows of the two kv heads' k and v weights.
  attn::FcS8Weights* layer[4] = {&w.q, &w.k, &w.v, &w.out};
  for (int l = 0; l < 4; ++l) {
    *layer[l] = {m.w8 + kWOff[l], m.scales + kBOff[l], m.bias32 + kBOff[l]};
  }
  g_s8.scratch = scratch;
  g_s8.x = m.x8;
  if (attn::mha_decode_s8_prepare(shape(c.rope, attn::KvElement::kS8, c.kv_heads), kContext, quant,
                                  w, g_s8.channels, &g_s8.params) != attn::Status::kOk ||
      attn::kv_cache_init(s8_cache(c), g_s8_store, sizeof g_s8_store, &g_s8.cache) !=
          attn::Status::kOk) {
    return false;
  }
  for (int32_t t = 0; t < kContext - 1; ++t) {
    if (s8_token(t) != attn::Status::kOk) return false;
  }
  return true;
}

attn::Status step_f32() {
  const attn::Status st = f32_token(kContext - 1);
  rewind(&g_f32.cache, kContext - 1);
  return st;
}

attn::Status step_s8() {
  const attn::Status st = s8_token(kContext - 1);
  rewind(&g_s8.cache, kContext - 1);
  return st;
}

}  // namespace bench_decode
