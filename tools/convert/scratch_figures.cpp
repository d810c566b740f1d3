// attn-scratch-tile<N>: the engine's memory figures for one model's shape, as
// one line of JSON, for tools/attn-convert's summary (which never re-derives
// them). Built twice from the engine's public headers, once per float query
// tile (8: ref kernels, the Cortex-M builds; 32: a SIMD backend; each set by
// the attn/config.h of scratch_config.h.in), so both figures are available
// from one host build. Every number is
// a constexpr scratch function or a sizeof of the engine evaluated by the
// compiler; the int8 ones are for this host (pointer size, int8 query tile).
//
//   attn-scratch-tile8 OP DTYPE BATCH SEQ_Q SEQ_KV P0 P1 P2 P3
//     OP     mha | bahdanau | luong_general | mha_decode     DTYPE  f32 | int8
//     P0..P3 the blob's hyper-parameters (attn/model.h): mha embed_dim,
//            num_heads, kdim, vdim; bahdanau query_dim, key_dim, units;
//            luong_general query_dim, key_dim (unused ones 0); mha_decode
//            embed_dim, num_heads, num_kv_heads, rope_dims with SEQ_Q the new
//            tokens per call and SEQ_KV the cache capacity (BATCH unused)
//
// Output keys: query_tile, key_block, s8_query_tile, scratch_bytes (the op's
// *_scratch_bytes), sdpa_scratch_bytes (the attention core's share, float
// only), extra_bytes (int8: channel multipliers and prepared parameters the
// caller stores beside the scratch), model_bytes (sizeof(attn::Model));
// mha_decode adds cache_bytes (kv_cache_bytes: float32, or int8 for DTYPE int8)
// and, float, cache_f16_bytes and scratch_f16_bytes (a float16 cache).
// Exit status 0, or 2 on bad arguments.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "attn/config.h"  // first: this helper's tile (scratch_config.h.in)

#include "attn/bahdanau.h"
#include "attn/bahdanau_s8.h"
#include "attn/luong.h"
#include "attn/luong_s8.h"
#include "attn/mha.h"
#include "attn/mha_decode.h"
#include "attn/mha_decode_s8.h"
#include "attn/mha_s8.h"
#include "attn/model.h"
#include "attn/sdpa.h"

namespace {

struct Figures {
  std::size_t scratch = 0, sdpa = 0, extra = 0;
  std::size_t cache = 0, cache_f16 = 0, scratch_f16 = 0;  // mha_decode
};

// n: tokens per call, capacity, embed_dim, num_heads, num_kv_heads, rope_dims.
Figures decode_figures(bool int8, const int32_t* n) {
  attn::MhaDecodeShape s;
  s.max_tokens = n[0];
  s.embed_dim = n[2];
  s.num_heads = n[3];
  s.num_kv_heads = n[4];
  s.rope.dims = n[5];
  attn::KvCacheShape c;
  c.capacity = n[1];
  c.num_kv_heads = n[4];
  c.head_dim = n[3] > 0 ? n[2] / n[3] : 0;
  Figures f;
  if (int8) {
    s.cache_element = c.element = attn::KvElement::kS8;
    f.scratch = attn::mha_decode_s8_scratch_bytes(s, c);
    f.extra = attn::mha_decode_s8_channel_count(s) * sizeof(attn::QuantizedMultiplier) +
              sizeof(attn::MhaDecodeS8Params);
    f.cache = attn::kv_cache_bytes(c);
    return f;
  }
  f.scratch = attn::mha_decode_f32_scratch_bytes(s);
  f.cache = attn::kv_cache_bytes(c);
  s.cache_element = c.element = attn::KvElement::kF16;
  f.scratch_f16 = attn::mha_decode_f32_scratch_bytes(s);
  f.cache_f16 = attn::kv_cache_bytes(c);
  return f;
}

Figures mha_figures(bool int8, const attn::MhaShape& s) {
  Figures f;
  if (int8) {
    f.scratch = attn::mha_s8_scratch_bytes(s);
    f.extra = attn::mha_s8_channel_count(s) * sizeof(attn::QuantizedMultiplier);
  } else {
    const int32_t hd = s.num_heads > 0 ? s.embed_dim / s.num_heads : 0;
    f.scratch = attn::mha_f32_scratch_bytes(s);
    f.sdpa = attn::sdpa_f32_scratch_bytes({1, s.seq_q, s.seq_kv, hd, hd});
  }
  return f;
}

Figures bahdanau_figures(bool int8, const attn::BahdanauShape& s) {
  Figures f;
  if (int8) {
    f.scratch = attn::bahdanau_s8_scratch_bytes(s);
    f.extra = attn::bahdanau_s8_channel_count(s) * sizeof(attn::QuantizedMultiplier) +
              sizeof(attn::BahdanauS8Params);
  } else {
    f.scratch = attn::bahdanau_f32_scratch_bytes(s);
  }
  return f;
}

Figures luong_general_figures(bool int8, const attn::LuongGeneralShape& s) {
  Figures f;
  if (int8) {
    f.scratch = attn::luong_general_s8_scratch_bytes(s);
    f.extra = static_cast<std::size_t>(s.query_dim) * sizeof(attn::QuantizedMultiplier);
  } else {
    f.scratch = attn::luong_general_f32_scratch_bytes(s);
    f.sdpa = attn::sdpa_f32_scratch_bytes({1, 1, s.seq, s.key_dim, s.key_dim});
  }
  return f;
}

bool parse_int(const char* text, int32_t* out) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < 0 || v > (1L << 30)) return false;
  *out = static_cast<int32_t>(v);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int32_t n[7] = {};
  bool ok = argc == 10;
  for (int i = 0; ok && i < 7; ++i) ok = parse_int(argv[3 + i], &n[i]);
  const bool int8 = ok && std::strcmp(argv[2], "int8") == 0;
  ok = ok && (int8 || std::strcmp(argv[2], "f32") == 0);
  Figures f;
  if (ok && std::strcmp(argv[1], "mha") == 0) {
    f = mha_figures(int8, {n[0], n[1], n[2], n[3], n[4], n[5], n[6]});
  } else if (ok && std::strcmp(argv[1], "bahdanau") == 0) {
    f = bahdanau_figures(int8, {n[0], n[2], n[3], n[4], n[5]});
  } else if (ok && std::strcmp(argv[1], "luong_general") == 0) {
    f = luong_general_figures(int8, {n[0], n[2], n[3], n[4]});
  } else if (ok && std::strcmp(argv[1], "mha_decode") == 0) {
    f = decode_figures(int8, n + 1);
  } else {
    std::fprintf(
        stderr,
        "usage: %s mha|bahdanau|luong_general|mha_decode f32|int8 BATCH SEQ_Q SEQ_KV P0 P1 "
        "P2 P3\n",
        argc > 0 ? argv[0] : "attn-scratch");
    return 2;
  }
  std::printf(
      "{\"query_tile\": %d, \"key_block\": %d, \"s8_query_tile\": %d, \"scratch_bytes\": %zu, "
      "\"sdpa_scratch_bytes\": %zu, \"extra_bytes\": %zu, \"model_bytes\": %zu, "
      "\"cache_bytes\": %zu, \"cache_f16_bytes\": %zu, \"scratch_f16_bytes\": %zu}\n",
      static_cast<int>(attn::kSdpaQueryTile), static_cast<int>(attn::kSdpaKeyBlock),
      static_cast<int>(attn::kSdpaS8QueryTile), f.scratch, f.sdpa, f.extra, sizeof(attn::Model),
      f.cache, f.cache_f16, f.scratch_f16);
  return 0;
}
