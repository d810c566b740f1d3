// Token-by-token int8 decoding on the device: a Llama-style attention layer
// (grouped-query heads, rotary positions) from the generated decoder_model.h,
// 24 tokens decoded one call at a time over an int8 KV cache that is a sliding
// window of 8 positions (the ring wraps three times). Each token's int8 output
// is printed; the host build prints the same lines, and both equal
// expected_output.txt (the NumPy int8 reference's). All memory is static:
// sizeof of each Workspace is its RAM cost.
#include <cstdint>

#include "attn/attn.h"
#include "attn/platform.h"
#include "decoder_model.h"

namespace {

namespace m = decoder_model;

constexpr attn::MhaDecodeShape make_shape() {
  attn::MhaDecodeShape s;
  s.embed_dim = m::kEmbed;
  s.num_heads = m::kHeads;
  s.num_kv_heads = m::kKvHeads;
  s.max_tokens = 1;
  s.cache_element = attn::KvElement::kS8;
  s.rope.dims = m::kEmbed / m::kHeads;
  s.rope.style = attn::RopeStyle::kHalfSplit;
  s.rope.theta = m::kRopeTheta;
  return s;
}

constexpr attn::MhaDecodeShape kShape = make_shape();
constexpr attn::KvCacheShape kCache{m::kWindow, m::kKvHeads, m::kEmbed / m::kHeads,
                                    attn::KvElement::kS8, /*window*/ true};
attn::Workspace<attn::kv_cache_bytes(kCache)> cache_store;
attn::Workspace<attn::mha_decode_s8_scratch_bytes(kShape, m::kWindow)> ws;
attn::QuantizedMultiplier channels[attn::mha_decode_s8_channel_count(kShape)];
attn::MhaDecodeS8Params params;

attn::Status prepare() {
  attn::MhaDecodeS8Quant q;
  attn::QuantParams* p[7] = {&q.input, &q.q, &q.k, &q.v, &q.scores, &q.attn, &q.out};
  for (int i = 0; i < 7; ++i) *p[i] = {m::kScale[i], m::kZeroPoint[i]};
  attn::MhaS8Weights w;
  w.q = {m::kWQ, m::kScaleQ, m::kBiasQ};
  w.k = {m::kWK, m::kScaleK, m::kBiasK};
  w.v = {m::kWV, m::kScaleV, m::kBiasV};
  w.out = {m::kWO, m::kScaleO, m::kBiasO};
  return attn::mha_decode_s8_prepare(kShape, m::kWindow, q, w, channels, &params);
}

}  // namespace

int main() {
  attn::KvCache cache;
  attn::Status st = prepare();
  if (st == attn::Status::kOk) {
    st = attn::kv_cache_init(kCache, cache_store.storage, sizeof cache_store.storage, &cache);
  }
  for (int32_t t = 0; t < m::kTokens && st == attn::Status::kOk; ++t) {
    int8_t out[m::kEmbed];
    attn::MhaDecodeS8Args a;
    a.x = m::kTokensIn + t * m::kEmbed;
    a.out = out;
    st = attn::mha_decode_s8(&params, a, &cache, ws.scratch());  // one token
    attn::platform::print("token %2d:", static_cast<int>(t));
    for (const int8_t v : out) attn::platform::print(" %d", static_cast<int>(v));
    attn::platform::print("\n");
  }
  if (st != attn::Status::kOk) {
    attn::platform::print("mha_decode_s8: %s\n", attn::status_str(st));
    return 1;
  }
  return 0;
}
