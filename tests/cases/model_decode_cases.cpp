// Decoder-layer model blobs (op mha_decode, attn/model_decode.h): a blob built
// by the independent writer loads, its views are the decoder's shape, cache
// shape and weights, it decodes bit-identically to mha_decode_f32 called with
// the same arrays, and every bad hyper-parameter or tensor is rejected with
// its own reason.
#include <cstring>
#include <new>

#include "attn/model_decode.h"
#include "case.h"
#include "model_blob_writer.h"

namespace {

using attn::KvElement;
using attn::ModelDtype;
using attn::ModelError;
using attn::ModelOp;
using attn::TensorDtype;
using attn::TensorId;
using model_blob_writer::build_blob;
using model_blob_writer::fix_crc;
using model_blob_writer::TensorSpec;
using model_blob_writer::wr32;
namespace off = attn::model_offset;

// E 8, 2 query heads, 1 kv head (multi-query), head_dim 4, a linear cache of 6,
// rotary on 2 dims (half-split, theta 100).
constexpr int32_t kE = 8, kKv = 4, kCap = 6, kT = 5;
float g_q[kE * kE], g_k[kKv * kE], g_v[kKv * kE], g_o[kE * kE], g_qb[kE], g_kb[kKv];
float g_x[kT * kE];
constexpr std::size_t kCacheBytes = attn::kv_cache_bytes({kCap, 1, kKv, KvElement::kF32, false});

// The large buffers, from the case arena (case.h).
struct Buffers {
  alignas(64) unsigned char blob[2048];
  alignas(64) unsigned char cache[kCacheBytes];
  alignas(64) unsigned char cache2[kCacheBytes];
  float out_model[kT * kE], out_op[kT * kE];
  attn::Model model;
};
Buffers* g_buf = nullptr;

int32_t bits_of(float f) {
  int32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

void fill(float* p, int n, int seed) {
  for (int i = 0; i < n; ++i) p[i] = static_cast<float>((i * 37 + seed * 11) % 23 - 11) / 16.0f;
}

std::size_t build_decoder(const int32_t (&params)[8], const TensorSpec* t, int count) {
  return build_blob(g_buf->blob, sizeof g_buf->blob, ModelOp::kMhaDecode, ModelDtype::kF32, params,
                    t, count);
}

const int32_t kParams[8] = {kE, 2, 1, kCap, 0, 2, 0, bits_of(100.0f)};

// The good layer's six tensors (o_proj and v_proj without bias).
void good_tensors(TensorSpec (&t)[6]) {
  t[0] = {TensorId::kMhaQProjWeight, TensorDtype::kF32, 2, {kE, kE, 0, 0}, g_q};
  t[1] = {TensorId::kMhaKProjWeight, TensorDtype::kF32, 2, {kKv, kE, 0, 0}, g_k};
  t[2] = {TensorId::kMhaVProjWeight, TensorDtype::kF32, 2, {kKv, kE, 0, 0}, g_v};
  t[3] = {TensorId::kMhaOutProjWeight, TensorDtype::kF32, 2, {kE, kE, 0, 0}, g_o};
  t[4] = {TensorId::kMhaQProjBias, TensorDtype::kF32, 1, {kE, 0, 0, 0}, g_qb};
  t[5] = {TensorId::kMhaKProjBias, TensorDtype::kF32, 1, {kKv, 0, 0, 0}, g_kb};
}

// Decodes g_x in two calls (3 + 2 tokens) into out.
attn::Status decode(const attn::MhaDecodeShape& s, const attn::MhaDecodeF32Weights& w,
                    unsigned char* storage, float* out, attn::Scratch scratch) {
  attn::KvCache cache;
  attn::Status st =
      attn::kv_cache_init({kCap, 1, kKv, KvElement::kF32, false}, storage, kCacheBytes, &cache);
  for (int32_t t0 = 0; st == attn::Status::kOk && t0 < kT; t0 += 3) {
    attn::MhaDecodeF32Args a;
    a.x = g_x + t0 * kE;
    a.out = out + t0 * kE;
    a.tokens = t0 + 3 <= kT ? 3 : kT - t0;
    st = attn::mha_decode_f32(s, w, a, &cache, scratch);
  }
  return st;
}

}  // namespace

ATTN_CASE(ModelDecode, BlobDecodesLikeTheOp) {
  attn_test::Arena arena;
  void* mem = arena.bytes(sizeof(Buffers));
  ATTN_ASSERT_TRUE(arena.ok());
  g_buf = new (mem) Buffers;
  fill(g_q, kE * kE, 1);
  fill(g_k, kKv * kE, 2);
  fill(g_v, kKv * kE, 3);
  fill(g_o, kE * kE, 4);
  fill(g_qb, kE, 5);
  fill(g_kb, kKv, 6);
  fill(g_x, kT * kE, 7);
  TensorSpec t[6];
  good_tensors(t);
  const std::size_t n = build_decoder(kParams, t, 6);
  ATTN_ASSERT_TRUE(n > 0);
  attn::Model& m = g_buf->model;
  ATTN_ASSERT_TRUE(attn::model_load(g_buf->blob, n, &m) == attn::Status::kOk);
  ATTN_EXPECT_TRUE(m.op == ModelOp::kMhaDecode);

  const attn::MhaDecodeShape s = attn::model_mha_decode_shape(m, 3, KvElement::kF32);
  ATTN_EXPECT_EQ_INT(s.embed_dim, kE);
  ATTN_EXPECT_EQ_INT(s.num_heads, 2);
  ATTN_EXPECT_EQ_INT(s.num_kv_heads, 1);
  ATTN_EXPECT_EQ_INT(s.max_tokens, 3);
  ATTN_EXPECT_EQ_INT(s.rope.dims, 2);
  ATTN_EXPECT_TRUE(s.rope.style == attn::RopeStyle::kHalfSplit && s.rope.theta == 100.0f);
  const attn::KvCacheShape c = attn::model_kv_cache_shape(m, KvElement::kF16);
  ATTN_EXPECT_TRUE(c.capacity == kCap && c.num_kv_heads == 1 && c.head_dim == kKv &&
                   c.element == KvElement::kF16 && !c.window);
  ATTN_EXPECT_EQ_INT(attn::model_scratch_bytes(m, 1, 3, 1), attn::mha_decode_f32_scratch_bytes(s));

  attn::MhaDecodeF32Weights w;
  ATTN_ASSERT_TRUE(attn::model_mha_decode_f32_weights(m, &w) == attn::Status::kOk);
  ATTN_EXPECT_TRUE(w.q_proj_weight == m.tensor(TensorId::kMhaQProjWeight).data);
  ATTN_EXPECT_TRUE(w.v_proj_bias == nullptr && w.out_proj_bias == nullptr &&
                   w.in_proj_weight == nullptr && w.k_proj_bias != nullptr);
  const std::size_t scratch_bytes = attn::mha_decode_f32_scratch_bytes(s);
  const attn::Scratch scratch{arena.bytes(scratch_bytes), scratch_bytes};
  ATTN_ASSERT_TRUE(arena.ok());
  ATTN_ASSERT_TRUE(decode(s, w, g_buf->cache, g_buf->out_model, scratch) == attn::Status::kOk);
  attn::MhaDecodeF32Weights direct;
  direct.q_proj_weight = g_q;
  direct.k_proj_weight = g_k;
  direct.v_proj_weight = g_v;
  direct.out_proj_weight = g_o;
  direct.q_proj_bias = g_qb;
  direct.k_proj_bias = g_kb;
  ATTN_ASSERT_TRUE(decode(s, direct, g_buf->cache2, g_buf->out_op, scratch) == attn::Status::kOk);
  ATTN_EXPECT_TRUE(std::memcmp(g_buf->out_model, g_buf->out_op, sizeof g_buf->out_op) == 0);

  attn::QuantizedMultiplier channels[1];
  attn::MhaDecodeS8Params p8;
  ATTN_EXPECT_TRUE(attn::model_mha_decode_s8_prepare(m, 1, channels, 1, &p8) ==
                   attn::Status::kUnsupported);
  ATTN_EXPECT_TRUE(attn::model_mha_decode_f32_weights(m, nullptr) == attn::Status::kNullPointer);
  attn::Model& empty = m;
  attn::model_load(nullptr, 0, &empty);  // resets it
  ATTN_EXPECT_TRUE(attn::model_mha_decode_f32_weights(empty, &w) == attn::Status::kBadArgument);
  ATTN_EXPECT_EQ_INT(attn::model_mha_decode_shape(empty, 1, KvElement::kF32).embed_dim, 0);
}

ATTN_CASE(ModelDecode, BadHyperParametersAndTensorsRejected) {
  attn_test::Arena arena;
  void* mem = arena.bytes(sizeof(Buffers));
  ATTN_ASSERT_TRUE(arena.ok());
  g_buf = new (mem) Buffers;
  // (params index, value): kv heads not dividing heads, kv heads 0, capacity
  // 0, window 2, odd rotary dims, rotary dims above head_dim, rotary style 2,
  // theta 1, theta infinite, theta without rotary dims.
  struct ParamCase {
    int index;
    int32_t value;
  };
  const ParamCase params[] = {{2, 3},          {2, 0}, {3, 0}, {4, 2},
                              {5, 1},          {5, 6}, {6, 2}, {7, bits_of(1.0f)},
                              {7, 0x7F800000}, {5, 0}};
  TensorSpec t[6];
  good_tensors(t);
  attn::Model& m = g_buf->model;
  for (const ParamCase& pc : params) {
    const std::size_t n = build_decoder(kParams, t, 6);
    wr32(g_buf->blob + off::kParams + 4 * static_cast<std::size_t>(pc.index),
         static_cast<uint32_t>(pc.value));
    fix_crc(g_buf->blob);
    ModelError why = ModelError::kNone;
    ATTN_EXPECT_TRUE(attn::model_load(g_buf->blob, n, &m, &why) == attn::Status::kBadModel);
    ATTN_EXPECT_EQ_INT(static_cast<int>(why), static_cast<int>(ModelError::kBadParams));
  }
  ModelError why = ModelError::kNone;
  // k_proj shaped for kv heads = heads.
  TensorSpec wide[6];
  good_tensors(wide);
  wide[1].dims[0] = kE;
  wide[1].data = g_q;  // [E, E] values
  std::size_t n = build_decoder(kParams, wide, 6);
  ATTN_EXPECT_TRUE(attn::model_load(g_buf->blob, n, &m, &why) == attn::Status::kBadModel);
  ATTN_EXPECT_TRUE(why == ModelError::kBadTensorShape);
  // No v_proj (the last four: v, o, biases; drop entry 2).
  TensorSpec missing[5] = {t[0], t[1], t[3], t[4], t[5]};
  n = build_decoder(kParams, missing, 5);
  ATTN_EXPECT_TRUE(attn::model_load(g_buf->blob, n, &m, &why) == attn::Status::kBadModel);
  ATTN_EXPECT_TRUE(why == ModelError::kMissingTensor);
  // A packed in_proj_weight is not part of a decoder layer.
  TensorSpec packed[6];
  good_tensors(packed);
  packed[5] = {TensorId::kMhaInProjBias, TensorDtype::kF32, 1, {kKv, 0, 0, 0}, g_kb};
  n = build_decoder(kParams, packed, 6);
  ATTN_EXPECT_TRUE(attn::model_load(g_buf->blob, n, &m, &why) == attn::Status::kBadModel);
  ATTN_EXPECT_TRUE(why == ModelError::kUnknownTensor);
}
