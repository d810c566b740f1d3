// The int8 reference cases on the boards: a selection of tests/data/int8
// (tests/reference/int8_reference.py, the independent NumPy model of the unfused TFLite
// op sequence), generated into int8_board_cases.h at build time by
// gen_board_cases.py. Each case regenerates its inputs from Rng(seed) in the
// data file's order, runs the op on the board's kernels, and checks the status
// and every output and attention-weight byte. A difference reports the case
// (op, seed, mask form, array) and the first differing index.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "attn/bahdanau_s8.h"
#include "attn/luong_s8.h"
#include "attn/mha_s8.h"
#include "attn/sdpa_s8.h"
#include "attn/softmax_s8.h"
#include "case.h"
#include "int8_board_cases.h"

namespace {

using attn_test::Arena;
using attn_test::Rng;
using namespace int8_board;

attn::QuantParams quant_of(const QuantBits& b) {
  return {attn_test::bits_float(b.scale_bits), b.zero_point};
}

// n values in [lo, hi] from r, in arena memory (null when it is full).
int8_t* draw(Arena& arena, Rng& r, std::size_t n, int32_t lo, int32_t hi) {
  int8_t* x = arena.alloc<int8_t>(n);
  for (std::size_t i = 0; x != nullptr && i < n; ++i) x[i] = static_cast<int8_t>(r.range(lo, hi));
  return x;
}

// n int32 biases in [-30000, 30000] (the files' range(0, 60000) - 30000).
int32_t* draw_bias(Arena& arena, Rng& r, std::size_t n) {
  int32_t* b = arena.alloc<int32_t>(n);
  for (std::size_t i = 0; b != nullptr && i < n; ++i) b[i] = r.range(0, 60000) - 30000;
  return b;
}

// One key length in [0, seq_kv] per batch.
int32_t* draw_lengths(Arena& arena, Rng& r, int32_t batch, int32_t seq_kv) {
  auto* l = arena.alloc<int32_t>(static_cast<std::size_t>(batch));
  for (int32_t b = 0; l != nullptr && b < batch; ++b) l[b] = r.range(0, seq_kv);
  return l;
}

// The per-channel scales from their bit patterns.
float* scales_of(Arena& arena, const uint32_t* bits, std::size_t n) {
  auto* s = arena.alloc<float>(n);
  for (std::size_t i = 0; s != nullptr && i < n; ++i) s[i] = attn_test::bits_float(bits[i]);
  return s;
}

// An output buffer of n bytes filled with a sentinel the op must overwrite.
int8_t* output(Arena& arena, std::size_t n) {
  int8_t* y = arena.alloc<int8_t>(n);
  if (y != nullptr) std::memset(y, 99, n);
  return y;
}

// One check: every byte of actual equals expected; on failure names the case
// and the first differing index.
void expect_bytes(attn_test::Context& ctx, const char* op, uint32_t seed, int form,
                  const char* what, const int8_t* actual, const int8_t* expected, std::size_t n) {
  ++ctx.checks;
  for (std::size_t i = 0; i < n; ++i) {
    if (actual[i] != expected[i]) {
      attn_test::fail(
          ctx, __FILE__, __LINE__,
          "%s seed %u mask form %d: %s differs first at index %u of %u: %d, expected %d", op,
          static_cast<unsigned>(seed), form, what, static_cast<unsigned>(i),
          static_cast<unsigned>(n), actual[i], expected[i]);
      return;
    }
  }
}

template <typename T, std::size_t N>
constexpr std::size_t count_of(const T (&)[N]) {
  return N;
}

ATTN_CASE(Int8BoardReference, SoftmaxMatchesBitForBit) {
  for (const SoftmaxCase& c : kSoftmaxCases) {
    Arena arena;
    const auto n = static_cast<std::size_t>(c.rows) * static_cast<std::size_t>(c.cols);
    Rng r(c.seed);
    int8_t* x = arena.alloc<int8_t>(n);
    int8_t* y = output(arena, n);
    ATTN_ASSERT_TRUE(arena.ok());
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = static_cast<int8_t>(
          c.lo + static_cast<int32_t>(r.next() % static_cast<uint32_t>(128 - c.lo)));
    }
    static attn::SoftmaxS8Params params;
    ATTN_EXPECT_STATUS(attn::softmax_s8_prepare(attn_test::bits_float(c.scale_bits),
                                                attn_test::bits_float(c.beta_bits), &params),
                       attn::Status::kOk);
    ATTN_EXPECT_STATUS(attn::softmax_s8({c.rows, c.cols}, params, {x, y}), attn::Status::kOk);
    ATTN_EXPECT_EQ_INT(c.out_n, n);
    expect_bytes(ctx, "softmax", c.seed, 0, "out", y, c.out, n);
  }
}

// The boolean pattern of an sdpa case in the mask form `form`: 0 boolean,
// 1 Keras (1 = masked), 2 additive -inf, 3 additive -1e9 (same bits for all).
void set_mask_form(Arena& arena, const uint8_t* pattern, std::size_t n, int form,
                   attn::SdpaS8Args& a) {
  if (form == 0) {
    a.mask.boolean = pattern;
    return;
  }
  float* m = arena.alloc<float>(n);
  if (m == nullptr) return;
  const float masked = form == 1 ? 1.0f : form == 2 ? -INFINITY : -1e9f;
  for (std::size_t e = 0; e < n; ++e) m[e] = pattern[e] ? masked : 0.0f;
  (form == 1 ? a.mask.keras : a.mask.additive) = m;
}

void run_sdpa_case(attn_test::Context& ctx, const SdpaCase& c) {
  Arena arena;
  const attn::SdpaShape& s = c.shape;
  const auto B = static_cast<std::size_t>(s.batch), Lq = static_cast<std::size_t>(s.seq_q),
             Lkv = static_cast<std::size_t>(s.seq_kv);
  Rng r(c.seed);
  const int8_t* q = draw(arena, r, B * Lq * static_cast<std::size_t>(s.dim_k), -128, 127);
  const int8_t* k = draw(arena, r, B * Lkv * static_cast<std::size_t>(s.dim_k), -128, 127);
  const int8_t* v = draw(arena, r, B * Lkv * static_cast<std::size_t>(s.dim_v), -128, 127);
  const int32_t* lengths = c.key_lengths ? draw_lengths(arena, r, s.batch, s.seq_kv) : nullptr;
  uint8_t* pattern = c.pattern ? arena.alloc<uint8_t>(Lq * Lkv) : nullptr;
  for (std::size_t e = 0; pattern != nullptr && e < Lq * Lkv; ++e) pattern[e] = r.next() % 4 == 0;
  const std::size_t scratch_bytes = attn::sdpa_s8_scratch_bytes(s);
  auto* scratch = arena.alloc<unsigned char>(scratch_bytes);
  ATTN_ASSERT_TRUE(arena.ok());
  attn::SdpaS8Quant quant;
  quant.q = quant_of(c.quant[0]);
  quant.k = quant_of(c.quant[1]);
  quant.v = quant_of(c.quant[2]);
  quant.scores = quant_of(c.quant[3]);
  quant.out = quant_of(c.quant[4]);
  quant.beta = attn_test::bits_float(c.beta_bits);
  static attn::SdpaS8Params params;
  ATTN_EXPECT_STATUS(attn::sdpa_s8_prepare(s, quant, &params), attn::Status::kOk);
  for (int form = 0; form < (c.pattern ? 4 : 1); ++form) {
    Arena per_form;
    attn::SdpaS8Args a;
    a.q = q;
    a.k = k;
    a.v = v;
    a.out = output(per_form, c.out_n);
    a.probs = output(per_form, c.weights_n);
    a.mask.causal = c.causal;
    a.mask.key_lengths = lengths;
    if (c.pattern) set_mask_form(per_form, pattern, Lq * Lkv, form, a);
    ATTN_ASSERT_TRUE(per_form.ok());
    ATTN_EXPECT_STATUS(attn::sdpa_s8(params, a, {scratch, scratch_bytes}), attn::Status::kOk);
    expect_bytes(ctx, "sdpa", c.seed, form, "out", a.out, c.out, c.out_n);
    expect_bytes(ctx, "sdpa", c.seed, form, "weights", a.probs, c.weights, c.weights_n);
  }
}

ATTN_CASE(Int8BoardReference, SdpaMatchesBitForBitWithEveryMaskForm) {
  for (const SdpaCase& c : kSdpaCases) run_sdpa_case(ctx, c);
}

void run_mha_case(attn_test::Context& ctx, const MhaCase& c) {
  Arena arena;
  const attn::MhaShape& s = c.shape;
  const auto B = static_cast<std::size_t>(s.batch), E = static_cast<std::size_t>(s.embed_dim),
             Skv = static_cast<std::size_t>(s.seq_kv), kd = static_cast<std::size_t>(s.kdim),
             vd = static_cast<std::size_t>(s.vdim), Sq = static_cast<std::size_t>(s.seq_q);
  Rng r(c.seed);
  const int8_t* query = draw(arena, r, B * Sq * E, -128, 127);
  const int8_t* key = c.self_attn ? query : draw(arena, r, B * Skv * kd, -128, 127);
  const int8_t* value = c.self_attn ? query : draw(arena, r, B * Skv * vd, -128, 127);
  const float* scales = scales_of(arena, c.scale_bits, 4 * E);
  attn::MhaS8Weights w;
  w.q = {draw(arena, r, E * E, -127, 127), scales, nullptr};
  w.k = {draw(arena, r, E * kd, -127, 127), scales + E, nullptr};
  w.v = {draw(arena, r, E * vd, -127, 127), scales + 2 * E, nullptr};
  w.out = {draw(arena, r, E * E, -127, 127), scales + 3 * E, nullptr};
  const int32_t* bias = c.bias ? draw_bias(arena, r, 4 * E) : nullptr;
  if (bias != nullptr) {
    w.q.bias = bias;
    w.k.bias = bias + E;
    w.v.bias = bias + 2 * E;
    w.out.bias = bias + 3 * E;
  }
  attn::MhaS8Args a;
  a.mask.causal = c.causal;
  a.mask.key_lengths = c.key_lengths ? draw_lengths(arena, r, s.batch, s.seq_kv) : nullptr;
  uint8_t* pattern = c.pattern ? arena.alloc<uint8_t>(Sq * Skv) : nullptr;
  for (std::size_t e = 0; pattern != nullptr && e < Sq * Skv; ++e) pattern[e] = r.next() % 4 == 0;
  a.mask.boolean = pattern;
  auto* channels = arena.alloc<attn::QuantizedMultiplier>(attn::mha_s8_channel_count(s));
  const std::size_t scratch_bytes = attn::mha_s8_scratch_bytes(s);
  auto* scratch = arena.alloc<unsigned char>(scratch_bytes);
  a.query = query;
  a.key = key;
  a.value = value;
  a.out = output(arena, c.out_n);
  a.probs = output(arena, c.weights_n);
  ATTN_ASSERT_TRUE(arena.ok());
  attn::MhaS8Quant quant;
  attn::QuantParams* qp[9] = {&quant.query, &quant.key,    &quant.value, &quant.q,  &quant.k,
                              &quant.v,     &quant.scores, &quant.attn,  &quant.out};
  for (int i = 0; i < 9; ++i) *qp[i] = quant_of(c.quant[i]);
  quant.beta = attn_test::bits_float(c.beta_bits);
  static attn::MhaS8Params params;
  ATTN_EXPECT_STATUS(attn::mha_s8_prepare(s, quant, w, channels, &params), attn::Status::kOk);
  ATTN_EXPECT_STATUS(attn::mha_s8(params, a, {scratch, scratch_bytes}), attn::Status::kOk);
  expect_bytes(ctx, "mha", c.seed, 0, "out", a.out, c.out, c.out_n);
  expect_bytes(ctx, "mha", c.seed, 0, "weights", a.probs, c.weights, c.weights_n);
}

ATTN_CASE(Int8BoardReference, MhaMatchesBitForBit) {
  for (const MhaCase& c : kMhaCases) run_mha_case(ctx, c);
}

void run_luong_case(attn_test::Context& ctx, const LuongCase& c) {
  Arena arena;
  const attn::LuongGeneralShape& s = c.shape;
  const auto B = static_cast<std::size_t>(s.batch), qd = static_cast<std::size_t>(s.query_dim),
             kd = static_cast<std::size_t>(s.key_dim), seq = static_cast<std::size_t>(s.seq);
  Rng r(c.seed);
  attn::LuongS8Args a;
  a.query = draw(arena, r, B * qd, -128, 127);
  a.keys = draw(arena, r, B * seq * kd, -128, 127);
  attn::FcS8Weights w;
  if (c.general) {
    w.weight = draw(arena, r, qd * kd, -127, 127);
    w.bias = c.bias ? draw_bias(arena, r, qd) : nullptr;
    w.scales = scales_of(arena, c.scale_bits, qd);
  }
  a.key_lengths = c.key_lengths ? draw_lengths(arena, r, s.batch, s.seq) : nullptr;
  auto* storage = arena.alloc<attn::QuantizedMultiplier>(qd);
  const std::size_t scratch_bytes = attn::luong_s8_scratch_bytes(s, c.general);
  auto* scratch = arena.alloc<unsigned char>(scratch_bytes);
  a.context = output(arena, c.out_n);
  a.probs = output(arena, c.weights_n);
  ATTN_ASSERT_TRUE(arena.ok());
  attn::LuongS8Quant quant;
  attn::QuantParams* qp[5] = {&quant.query, &quant.keys, &quant.keys_proj, &quant.scores,
                              &quant.context};
  for (int i = 0; i < 5; ++i) *qp[i] = quant_of(c.quant[i]);
  quant.beta = attn_test::bits_float(c.beta_bits);
  static attn::LuongS8Params params;
  ATTN_EXPECT_STATUS(c.general
                         ? attn::luong_general_s8_prepare(s, quant, w, storage, &params)
                         : attn::luong_dot_s8_prepare({s.batch, s.seq, s.key_dim}, quant, &params),
                     attn::Status::kOk);
  ATTN_EXPECT_STATUS(attn::luong_s8(params, a, {scratch, scratch_bytes}), attn::Status::kOk);
  const char* op = c.general ? "luong_general" : "luong_dot";
  expect_bytes(ctx, op, c.seed, 0, "context", a.context, c.out, c.out_n);
  expect_bytes(ctx, op, c.seed, 0, "weights", a.probs, c.weights, c.weights_n);
}

ATTN_CASE(Int8BoardReference, LuongDotAndGeneralMatchBitForBit) {
  int general = 0;
  for (const LuongCase& c : kLuongCases) {
    run_luong_case(ctx, c);
    general += c.general ? 1 : 0;
  }
  // Both variants are in the selection.
  ATTN_EXPECT_TRUE(general > 0 && general < static_cast<int>(count_of(kLuongCases)));
}

void run_bahdanau_case(attn_test::Context& ctx, const BahdanauCase& c) {
  Arena arena;
  const attn::BahdanauShape& s = c.shape;
  const auto B = static_cast<std::size_t>(s.batch), qd = static_cast<std::size_t>(s.query_dim),
             kd = static_cast<std::size_t>(s.key_dim), seq = static_cast<std::size_t>(s.seq),
             u = static_cast<std::size_t>(s.units);
  Rng r(c.seed);
  attn::BahdanauS8Args a;
  a.query = draw(arena, r, B * qd, -128, 127);
  a.keys = draw(arena, r, B * seq * kd, -128, 127);
  const float* scales = scales_of(arena, c.scale_bits, 2 * u + 1);
  attn::BahdanauS8Weights w;
  w.w1 = {draw(arena, r, u * qd, -127, 127), scales, nullptr};
  w.w2 = {draw(arena, r, u * kd, -127, 127), scales + u, nullptr};
  w.v = {draw(arena, r, u, -127, 127), scales + 2 * u, nullptr};
  if (c.bias) {
    w.w1.bias = draw_bias(arena, r, u);
    w.w2.bias = draw_bias(arena, r, u);
    w.v.bias = draw_bias(arena, r, 1);
  }
  a.key_lengths = c.key_lengths ? draw_lengths(arena, r, s.batch, s.seq) : nullptr;
  auto* storage = arena.alloc<attn::QuantizedMultiplier>(attn::bahdanau_s8_channel_count(s));
  const std::size_t scratch_bytes = attn::bahdanau_s8_scratch_bytes(s);
  auto* scratch = arena.alloc<unsigned char>(scratch_bytes);
  a.context = output(arena, c.out_n);
  a.probs = output(arena, c.weights_n);
  ATTN_ASSERT_TRUE(arena.ok());
  attn::BahdanauS8Quant quant;
  attn::QuantParams* qp[7] = {&quant.query, &quant.keys,   &quant.query_proj, &quant.keys_proj,
                              &quant.sum,   &quant.scores, &quant.context};
  for (int i = 0; i < 7; ++i) *qp[i] = quant_of(c.quant[i]);
  quant.beta = attn_test::bits_float(c.beta_bits);
  static attn::BahdanauS8Params params;
  ATTN_EXPECT_STATUS(attn::bahdanau_s8_prepare(s, quant, w, storage, &params), attn::Status::kOk);
  ATTN_EXPECT_STATUS(attn::bahdanau_s8(params, a, {scratch, scratch_bytes}), attn::Status::kOk);
  expect_bytes(ctx, "bahdanau", c.seed, 0, "context", a.context, c.out, c.out_n);
  expect_bytes(ctx, "bahdanau", c.seed, 0, "weights", a.probs, c.weights, c.weights_n);
}

ATTN_CASE(Int8BoardReference, BahdanauMatchesBitForBit) {
  for (const BahdanauCase& c : kBahdanauCases) run_bahdanau_case(ctx, c);
}

}  // namespace
