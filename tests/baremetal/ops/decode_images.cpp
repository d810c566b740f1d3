// Decoder-step op images for the footprint report: one mha_decode_f32 /
// mha_decode_s8 layer, E = 64, H = 4, 2 kv heads, 16 rotary dims, a linear
// cache of 128 tokens, one token per call (the README's decode shape). Each
// image exports its scratch (attn_fp_scratch_<op>) and its cache bytes
// (attn_fp_cache_<op>) as absolute symbols for scripts/footprint.py.
#include "decode_images.h"

#include <cstdint>

#include "attn/attn.h"
#include "attn/platform.h"

#ifndef ATTN_OP
#define ATTN_OP 99
#endif
#define ATTN_RUN(n) (ATTN_OP == (n) || ATTN_OP == 99)

#define ATTN_EXPORT_SIZE(kind, name, bytes)                                             \
  __asm__ volatile(".global attn_fp_" #kind "_" #name "\n.set attn_fp_" #kind "_" #name \
                   ", %c0\n" ::"i"(bytes))

namespace {

constexpr int32_t kE = 64;
constexpr int32_t kKvd = 32;  // 2 kv heads of 16
constexpr int32_t kCapacity = 128;
constexpr int32_t kSteps = 3;
constexpr int32_t kWeights = 2 * kE * kE + 2 * kKvd * kE;  // q, k, v, o

[[maybe_unused]] constexpr attn::MhaDecodeShape decode_shape(attn::KvElement element) {
  attn::MhaDecodeShape s;
  s.embed_dim = kE;
  s.num_heads = 4;
  s.num_kv_heads = 2;
  s.max_tokens = 1;
  s.cache_element = element;
  s.rope.dims = 16;
  return s;
}

[[maybe_unused]] uint32_t next(uint32_t* s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 9;
}

[[maybe_unused]] int report(attn::Status st, const char* op) {
  attn::platform::print("%s: %s\n", op, attn::status_str(st));
  return st == attn::Status::kOk ? 0 : 1;
}

}  // namespace

int run_mha_decode_f32_image() {
#if ATTN_RUN(14)
  constexpr attn::MhaDecodeShape shape = decode_shape(attn::KvElement::kF32);
  constexpr attn::KvCacheShape cs{kCapacity, 2, 16, attn::KvElement::kF32, false};
  static attn::Workspace<attn::mha_decode_f32_scratch_bytes(shape)> ws;
  static attn::Workspace<attn::kv_cache_bytes(cs)> store;
  ATTN_EXPORT_SIZE(scratch, mha_decode_f32, attn::mha_decode_f32_scratch_bytes(shape));
  ATTN_EXPORT_SIZE(cache, mha_decode_f32, attn::kv_cache_bytes(cs));
  static float w[kWeights], x[kSteps * kE], out[kSteps * kE];
  uint32_t seed = 7;
  for (float& v : w) v = static_cast<float>(next(&seed) % 2001) * 1e-4f - 0.1f;
  for (float& v : x) v = static_cast<float>(next(&seed) % 2001) * 1e-3f - 1.0f;
  attn::MhaDecodeF32Weights dw;
  dw.q_proj_weight = w;
  dw.k_proj_weight = w + kE * kE;
  dw.v_proj_weight = w + kE * kE + kKvd * kE;
  dw.out_proj_weight = w + kE * kE + 2 * kKvd * kE;
  attn::KvCache cache;
  attn::Status st = attn::kv_cache_init(cs, store.storage, sizeof store.storage, &cache);
  for (int32_t t = 0; t < kSteps && st == attn::Status::kOk; ++t) {
    attn::MhaDecodeF32Args a;
    a.x = x + t * kE;
    a.out = out + t * kE;
    st = attn::mha_decode_f32(shape, dw, a, &cache, ws.scratch());
  }
  attn::platform::print("out %d\n", static_cast<int>(out[0] * 1000.0f));
  return report(st, "mha_decode_f32");
#else
  return 0;
#endif
}

int run_mha_decode_s8_image() {
#if ATTN_RUN(15)
  constexpr attn::MhaDecodeShape shape = decode_shape(attn::KvElement::kS8);
  constexpr attn::KvCacheShape cs{kCapacity, 2, 16, attn::KvElement::kS8, false};
  static attn::Workspace<attn::mha_decode_s8_scratch_bytes(shape, kCapacity)> ws;
  static attn::Workspace<attn::kv_cache_bytes(cs)> store;
  ATTN_EXPORT_SIZE(scratch, mha_decode_s8, attn::mha_decode_s8_scratch_bytes(shape, kCapacity));
  ATTN_EXPORT_SIZE(cache, mha_decode_s8, attn::kv_cache_bytes(cs));
  static int8_t w[kWeights], x[kSteps * kE], out[kSteps * kE];
  static float scales[2 * kE + 2 * kKvd];
  uint32_t seed = 9;
  for (int8_t& v : w) v = static_cast<int8_t>(static_cast<int32_t>(next(&seed) % 255) - 127);
  for (int8_t& v : x) v = static_cast<int8_t>(static_cast<int32_t>(next(&seed) % 256) - 128);
  for (float& s : scales) s = 0.01f;
  attn::MhaDecodeS8Quant quant;
  quant.input = {0.02f, 0};
  quant.q = quant.k = quant.v = {0.05f, 0};
  quant.scores = {0.1f, 0};
  quant.attn = {0.05f, 0};
  quant.out = {0.05f, 0};
  attn::MhaS8Weights dw;
  dw.q = {w, scales, nullptr};
  dw.k = {w + kE * kE, scales + kE, nullptr};
  dw.v = {w + kE * kE + kKvd * kE, scales + kE + kKvd, nullptr};
  dw.out = {w + kE * kE + 2 * kKvd * kE, scales + kE + 2 * kKvd, nullptr};
  static attn::QuantizedMultiplier channels[attn::mha_decode_s8_channel_count(shape)];
  static attn::MhaDecodeS8Params params;
  attn::KvCache cache;
  attn::Status st = attn::mha_decode_s8_prepare(shape, kCapacity, quant, dw, channels, &params);
  if (st == attn::Status::kOk)
    st = attn::kv_cache_init(cs, store.storage, sizeof store.storage, &cache);
  for (int32_t t = 0; t < kSteps && st == attn::Status::kOk; ++t) {
    attn::MhaDecodeS8Args a;
    a.x = x + t * kE;
    a.out = out + t * kE;
    st = attn::mha_decode_s8(&params, a, &cache, ws.scratch());
  }
  attn::platform::print("out %d\n", static_cast<int>(out[0]));
  return report(st, "mha_decode_s8");
#else
  return 0;
#endif
}
