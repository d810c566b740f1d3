// The bad-argument table of the int8 ops (bad_input_cases.cpp is the
// float ops' table). Starting from a valid call, each row breaks one thing the
// op's header documents (a required null pointer, a zero, negative, INT32_MIN
// or INT32_MAX dimension, heads not dividing E, a scale <= 0 / NaN / Inf, a
// zero point outside [-128, 127], an invalid beta, a key length outside
// [0, seq], too little or null scratch, the kOverflow limits) and expects the
// documented attn::Status. Every row also checks that nothing was written:
// eval rows fill the int8 outputs (and weights) with a sentinel, prepare rows
// fill the params struct with a byte sentinel, and both must keep it.
// Rows already in sdpa_s8_cases.cpp (SoftmaxS8.ArgumentErrors,
// SdpaS8.ContractsAndAllMaskedRows) are not repeated. Static buffers only
// (a few KiB): the file also runs on Cortex-M boards.
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <limits>

#include "attn/attn.h"
#include "attn/bahdanau_s8.h"
#include "attn/luong_s8.h"
#include "attn/mha_s8.h"
#include "attn/sdpa_s8.h"
#include "attn/softmax_s8.h"
#include "case.h"

namespace {

using attn::QuantParams;
using attn::Status;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr int32_t kMaxInt = std::numeric_limits<int32_t>::max();
constexpr int32_t kMinInt = std::numeric_limits<int32_t>::min();

// Valid int8 inputs and weights (every op's shapes below fit).
int8_t g_in1[64], g_in2[64], g_in3[64];
int8_t g_wt1[64], g_wt2[64], g_wt3[64], g_wt4[64];
float g_scales[8] = {0.01f, 0.012f, 0.009f, 0.011f, 0.01f, 0.013f, 0.008f, 0.01f};
int32_t g_bias[8] = {5, -3, 0, 7, -11, 2, 1, -4};
attn::QuantizedMultiplier g_storage[32];
// Outputs, checked untouched after every failing eval call.
constexpr unsigned char kOutSentinel = 0x5a;
int8_t g_out[128];
int8_t g_weights[128];
// Params sentinel (prepare rows must not write the params on error).
constexpr unsigned char kParamsSentinel = 0xa5;
// Scratch (every op here needs well under 1 KiB on the one-row core; the
// query-tiled core adds its tile buffers, a few KiB here: 512 bytes a tile
// row).
constexpr std::size_t kScratchBytes =
    2048 + (attn::kSdpaS8QueryTile > 1 ? 512 * attn::kSdpaS8QueryTile : 0);
alignas(64) unsigned char g_scratch[kScratchBytes];

// Params, static (the bahdanau and mha ones are over 1 KiB).
attn::MhaS8Params g_mha;
attn::LuongS8Params g_luong;
attn::BahdanauS8Params g_bahdanau;
attn::SdpaS8Params g_sdpa;
attn::SoftmaxS8Params g_softmax;

void fill_inputs() {
  static bool done = false;
  if (done) return;
  done = true;
  attn_test::Rng rng(707);
  for (int8_t* p : {g_in1, g_in2, g_in3, g_wt1, g_wt2, g_wt3, g_wt4}) {
    for (int i = 0; i < 64; ++i) p[i] = static_cast<int8_t>(rng.range(-128, 127));
  }
}

void arm_outputs() {
  std::memset(g_out, kOutSentinel, sizeof g_out);
  std::memset(g_weights, kOutSentinel, sizeof g_weights);
}

template <typename P>
void arm_params(P* p) {
  std::memset(static_cast<void*>(p), kParamsSentinel, sizeof(P));
  std::memset(static_cast<void*>(g_storage), kParamsSentinel, sizeof g_storage);
}

void report_status(attn_test::Context& ctx, int line, const char* op, const char* what, Status got,
                   Status want) {
  ++ctx.checks;
  if (got != want) {
    attn_test::fail(ctx, __FILE__, line, "%s, %s: status %d (%s), expected %d (%s)", op, what,
                    static_cast<int>(got), attn::status_str(got), static_cast<int>(want),
                    attn::status_str(want));
  }
}

// An eval row's verdict: the status, and no output or weights byte written.
void check_eval(attn_test::Context& ctx, int line, const char* op, const char* what, Status got,
                Status want) {
  report_status(ctx, line, op, what, got, want);
  if (want == Status::kOk) return;
  const int before = ctx.failures;
  ATTN_EXPECT_ALL_BYTES("out", reinterpret_cast<const unsigned char*>(g_out), kOutSentinel,
                        sizeof g_out);
  ATTN_EXPECT_ALL_BYTES("weights", reinterpret_cast<const unsigned char*>(g_weights), kOutSentinel,
                        sizeof g_weights);
  if (ctx.failures != before) {
    attn_test::fail(ctx, __FILE__, line, "%s, %s: wrote output on error", op, what);
  }
}

// A prepare row's verdict: the status, and the params left as they were.
template <typename P>
void check_prepare(attn_test::Context& ctx, int line, const char* op, const char* what, Status got,
                   Status want, const P* params) {
  report_status(ctx, line, op, what, got, want);
  if (want == Status::kOk) return;
  const int before = ctx.failures;
  ATTN_EXPECT_ALL_BYTES("params",
                        static_cast<const unsigned char*>(static_cast<const void*>(params)),
                        kParamsSentinel, sizeof(P));
  ATTN_EXPECT_ALL_BYTES("channel storage",
                        static_cast<const unsigned char*>(static_cast<const void*>(g_storage)),
                        kParamsSentinel, sizeof g_storage);
  if (ctx.failures != before) {
    attn_test::fail(ctx, __FILE__, line, "%s, %s: wrote params or channel storage on error", op,
                    what);
  }
}

// Kinds of bad QuantParams (each expects kBadArgument).
struct BadQuant {
  const char* what;
  QuantParams (*make)(QuantParams);
};
// clang-format 14 spreads a lambda returning a braced value over four lines:
// clang-format off
const BadQuant kBadQuants[] = {
    {"scale 0", [](QuantParams p) { return QuantParams{0.0f, p.zero_point}; }},
    {"scale -0", [](QuantParams p) { return QuantParams{-0.0f, p.zero_point}; }},
    {"scale negative", [](QuantParams p) { return QuantParams{-p.scale, p.zero_point}; }},
    {"scale NaN", [](QuantParams p) { return QuantParams{kNaN, p.zero_point}; }},
    {"scale +Inf", [](QuantParams p) { return QuantParams{kInf, p.zero_point}; }},
    {"scale -Inf", [](QuantParams p) { return QuantParams{-kInf, p.zero_point}; }},
    {"zero point 128", [](QuantParams p) { return QuantParams{p.scale, 128}; }},
    {"zero point -129", [](QuantParams p) { return QuantParams{p.scale, -129}; }},
    {"zero point INT32_MIN", [](QuantParams p) { return QuantParams{p.scale, kMinInt}; }},
    {"zero point INT32_MAX", [](QuantParams p) { return QuantParams{p.scale, kMaxInt}; }},
};
// clang-format on

// Bad beta values (0 selects the default and is valid in every op here).
const float kBadBetas[] = {-1.0f, -kInf, kNaN, kInf, 1e-30f};
const char* const kBadBetaNames[] = {"beta -1", "beta -Inf", "beta NaN", "beta +Inf",
                                     "beta 1e-30 (beta * scores scale < 2^-26)"};

// Bad per-channel weight scales (each expects kBadArgument).
const float kBadWeightScales[] = {0.0f, -0.01f, kNaN, kInf};
const char* const kBadWeightScaleNames[] = {"weight scale 0", "weight scale negative",
                                            "weight scale NaN", "weight scale +Inf"};
float g_bad_scales[8];
// g_scales with channel `last` replaced by `bad`.
const float* bad_scales(float bad, int last) {
  for (int i = 0; i < 8; ++i) g_bad_scales[i] = g_scales[i];
  g_bad_scales[last] = bad;
  return g_bad_scales;
}

const int32_t kBadDims[] = {0, -1, kMinInt, kMaxInt};
const char* const kBadDimNames[] = {"0", "-1", "INT32_MIN", "INT32_MAX"};
const int32_t kBadLengths[] = {-1, kMinInt, kMaxInt};  // plus seq + 1, per op

// Runs one prepare row: params sentinel, call, verdict.
template <typename Call, typename P>
void prep_row(attn_test::Context& ctx, int line, const char* op, const char* what, const Call& c,
              P* params, Status want) {
  arm_params(params);
  check_prepare(ctx, line, op, what, c.run(), want, params);
}

// Runs one eval row: outputs sentinel, call, verdict.
template <typename Call>
void eval_row(attn_test::Context& ctx, int line, const char* op, const char* what, const Call& c,
              Status want) {
  arm_outputs();
  check_eval(ctx, line, op, what, c.run(), want);
}

// Scratch rows shared by every eval: `need` is the op's exact requirement.
template <typename Call>
void scratch_rows(attn_test::Context& ctx, const char* op, const Call& valid, std::size_t need) {
  struct Row {
    const char* what;
    void* data;
    std::size_t bytes;
  };
  const Row rows[] = {
      {"scratch one byte short", g_scratch, need - 1},
      {"scratch of 0 bytes", g_scratch, 0},
      {"scratch data null", nullptr, kScratchBytes},
      {"scratch data null, 0 bytes", nullptr, 0},
  };
  for (const Row& r : rows) {
    Call c = valid;
    c.scratch = attn::Scratch{r.data, r.bytes};
    eval_row(ctx, __LINE__, op, r.what, c, Status::kScratchTooSmall);
  }
}

// Key length rows: -1, INT32_MIN, INT32_MAX and seq + 1 in the last batch item.
template <typename Call>
void key_length_rows(attn_test::Context& ctx, const char* op, const Call& valid, int32_t* lengths,
                     int32_t batch, int32_t seq) {
  const int32_t saved = lengths[batch - 1];
  const char* const names[] = {"key length -1", "key length INT32_MIN", "key length INT32_MAX"};
  for (int i = 0; i < 3; ++i) {
    lengths[batch - 1] = kBadLengths[i];
    eval_row(ctx, __LINE__, op, names[i], valid, Status::kBadArgument);
  }
  lengths[batch - 1] = seq + 1;
  eval_row(ctx, __LINE__, op, "key length seq + 1", valid, Status::kBadArgument);
  lengths[0] = -1;
  lengths[batch - 1] = saved;
  eval_row(ctx, __LINE__, op, "first key length -1", valid, Status::kBadArgument);
  lengths[0] = 1;
}

// ---------------------------------------------------------------------------
// mha_s8_prepare / mha_s8
struct MhaPrep {
  attn::MhaShape shape{2, 3, 4, 4, 2, 0, 0};
  attn::MhaS8Quant quant;
  attn::MhaS8Weights w;
  attn::QuantizedMultiplier* storage = g_storage;
  attn::MhaS8Params* params = &g_mha;
  Status run() const { return attn::mha_s8_prepare(shape, quant, w, storage, params); }
};

MhaPrep mha_prep_valid() {
  MhaPrep c;
  c.quant.query = {0.05f, 1};
  c.quant.key = {0.04f, -2};
  c.quant.value = {0.06f, 3};
  c.quant.q = {0.1f, 0};
  c.quant.k = {0.1f, 1};
  c.quant.v = {0.1f, -1};
  c.quant.scores = {0.2f, 2};
  c.quant.attn = {0.08f, -3};
  c.quant.out = {0.1f, 4};
  c.w.q = {g_wt1, g_scales, g_bias};
  c.w.k = {g_wt2, g_scales, g_bias};
  c.w.v = {g_wt3, g_scales, nullptr};
  c.w.out = {g_wt4, g_scales, g_bias};
  return c;
}

int32_t g_mha_lens[2] = {1, 4};

struct MhaEval {
  attn::MhaS8Args args;
  attn::Scratch scratch;
  Status run() const { return attn::mha_s8(g_mha, args, scratch); }
};

ATTN_CASE(BadInputS8, MhaPrepare) {
  fill_inputs();
  const char* op = "mha_s8_prepare";
  const MhaPrep valid = mha_prep_valid();
  prep_row(ctx, __LINE__, op, "valid", valid, &g_mha, Status::kOk);
  {
    MhaPrep c = valid;
    c.params = nullptr;
    prep_row(ctx, __LINE__, op, "params null", c, &g_mha, Status::kNullPointer);
    c = valid;
    c.storage = nullptr;
    prep_row(ctx, __LINE__, op, "channel storage null", c, &g_mha, Status::kNullPointer);
  }
  attn::FcS8Weights attn::MhaS8Weights::*const layers[] = {
      &attn::MhaS8Weights::q, &attn::MhaS8Weights::k, &attn::MhaS8Weights::v,
      &attn::MhaS8Weights::out};
  const char* const layer_names[] = {"q", "k", "v", "out"};
  for (int l = 0; l < 4; ++l) {
    char what[64];
    MhaPrep c = valid;
    (c.w.*layers[l]).weight = nullptr;
    std::snprintf(what, sizeof what, "%s weight null", layer_names[l]);
    prep_row(ctx, __LINE__, op, what, c, &g_mha, Status::kNullPointer);
    c = valid;
    (c.w.*layers[l]).scales = nullptr;
    std::snprintf(what, sizeof what, "%s scales null", layer_names[l]);
    prep_row(ctx, __LINE__, op, what, c, &g_mha, Status::kNullPointer);
    for (int b = 0; b < 4; ++b) {
      c = valid;
      (c.w.*layers[l]).scales = bad_scales(kBadWeightScales[b], 3);
      std::snprintf(what, sizeof what, "%s %s", layer_names[l], kBadWeightScaleNames[b]);
      prep_row(ctx, __LINE__, op, what, c, &g_mha, Status::kBadArgument);
    }
  }
  int32_t attn::MhaShape::*const dims[] = {&attn::MhaShape::batch,     &attn::MhaShape::seq_q,
                                           &attn::MhaShape::seq_kv,    &attn::MhaShape::embed_dim,
                                           &attn::MhaShape::num_heads, &attn::MhaShape::kdim,
                                           &attn::MhaShape::vdim};
  const char* const dim_names[] = {"batch",     "seq_q", "seq_kv", "embed_dim",
                                   "num_heads", "kdim",  "vdim"};
  for (int d = 0; d < 7; ++d) {
    for (int v = 0; v < 4; ++v) {
      if (d >= 5 && kBadDims[v] == 0) continue;  // kdim/vdim 0 = embed_dim
      char what[64];
      MhaPrep c = valid;
      c.shape.*dims[d] = kBadDims[v];
      std::snprintf(what, sizeof what, "%s %s", dim_names[d], kBadDimNames[v]);
      prep_row(ctx, __LINE__, op, what, c, &g_mha, Status::kBadShape);
    }
  }
  {
    MhaPrep c = valid;
    c.shape.num_heads = 3;
    prep_row(ctx, __LINE__, op, "heads 3 not dividing E 4", c, &g_mha, Status::kShapeMismatch);
    c.shape.num_heads = 8;
    prep_row(ctx, __LINE__, op, "heads 8 > E 4", c, &g_mha, Status::kShapeMismatch);
    // kOverflow limits (all rejected before any per-channel array is read).
    c = valid;
    c.shape.embed_dim = attn::kMhaS8MaxFeatures + 1;
    c.shape.num_heads = 1;
    prep_row(ctx, __LINE__, op, "E > kMhaS8MaxFeatures", c, &g_mha, Status::kOverflow);
    c = valid;
    c.shape.kdim = attn::kMhaS8MaxFeatures + 1;
    prep_row(ctx, __LINE__, op, "kdim > kMhaS8MaxFeatures", c, &g_mha, Status::kOverflow);
    c = valid;
    c.shape.vdim = attn::kMhaS8MaxFeatures + 1;
    prep_row(ctx, __LINE__, op, "vdim > kMhaS8MaxFeatures", c, &g_mha, Status::kOverflow);
    c = valid;
    c.shape.embed_dim = attn::kSdpaS8MaxDimK + 1;
    c.shape.num_heads = 1;
    prep_row(ctx, __LINE__, op, "head_dim > kSdpaS8MaxDimK", c, &g_mha, Status::kOverflow);
    c = valid;
    c.shape.seq_kv = attn::kSdpaS8MaxSeqKv + 1;
    prep_row(ctx, __LINE__, op, "seq_kv > kSdpaS8MaxSeqKv", c, &g_mha, Status::kOverflow);
  }
  QuantParams attn::MhaS8Quant::*const quants[] = {
      &attn::MhaS8Quant::query,  &attn::MhaS8Quant::key,  &attn::MhaS8Quant::value,
      &attn::MhaS8Quant::q,      &attn::MhaS8Quant::k,    &attn::MhaS8Quant::v,
      &attn::MhaS8Quant::scores, &attn::MhaS8Quant::attn, &attn::MhaS8Quant::out};
  const char* const quant_names[] = {"query", "key",    "value", "q",  "k",
                                     "v",     "scores", "attn",  "out"};
  for (int q = 0; q < 9; ++q) {
    for (const BadQuant& b : kBadQuants) {
      char what[64];
      MhaPrep c = valid;
      c.quant.*quants[q] = b.make(valid.quant.*quants[q]);
      std::snprintf(what, sizeof what, "quant.%s %s", quant_names[q], b.what);
      prep_row(ctx, __LINE__, op, what, c, &g_mha, Status::kBadArgument);
    }
  }
  for (int i = 0; i < 5; ++i) {
    MhaPrep c = valid;
    c.quant.beta = kBadBetas[i];
    prep_row(ctx, __LINE__, op, kBadBetaNames[i], c, &g_mha, Status::kBadArgument);
  }
  {
    // A FULLY_CONNECTED multiplier >= 2^30: 0.08 * 0.01 / 1e-13.
    MhaPrep c = valid;
    c.quant.out.scale = 1e-13f;
    prep_row(ctx, __LINE__, op, "out FC multiplier >= 2^30", c, &g_mha, Status::kBadArgument);
    // The attention core's scores multiplier >= 2^30: 0.1 * 0.1 / 1e-12.
    c = valid;
    c.quant.scores.scale = 1e-12f;
    prep_row(ctx, __LINE__, op, "scores multiplier >= 2^30", c, &g_mha, Status::kBadArgument);
  }
}

ATTN_CASE(BadInputS8, MhaEval) {
  fill_inputs();
  const char* op = "mha_s8";
  const MhaPrep prep = mha_prep_valid();
  ATTN_ASSERT_TRUE(prep.run() == Status::kOk);
  const std::size_t need = attn::mha_s8_scratch_bytes(g_mha.shape);
  ATTN_ASSERT_TRUE(need > 0 && need <= kScratchBytes);
  MhaEval valid;
  valid.args.query = g_in1;  // [2, 3, 4]
  valid.args.key = g_in2;    // [2, 4, 4]
  valid.args.value = g_in3;  // [2, 4, 4]
  valid.args.out = g_out;
  valid.args.probs = g_weights;
  valid.args.mask.causal = true;
  valid.args.mask.key_lengths = g_mha_lens;
  valid.scratch = attn::Scratch{g_scratch, need};
  eval_row(ctx, __LINE__, op, "valid", valid, Status::kOk);
  MhaEval c = valid;
  c.args.query = nullptr;
  eval_row(ctx, __LINE__, op, "query null", c, Status::kNullPointer);
  c = valid;
  c.args.key = nullptr;
  eval_row(ctx, __LINE__, op, "key null", c, Status::kNullPointer);
  c = valid;
  c.args.value = nullptr;
  eval_row(ctx, __LINE__, op, "value null", c, Status::kNullPointer);
  c = valid;
  c.args.out = nullptr;
  eval_row(ctx, __LINE__, op, "out null", c, Status::kNullPointer);
  key_length_rows(ctx, op, valid, g_mha_lens, 2, 4);
  // Additive values the int8 op sequence cannot express.
  static float additive[2 * 3 * 4];
  const float bad_additive[] = {-0.5f, 1.0f, kInf, -1e8f};
  const char* const bad_additive_names[] = {"additive -0.5", "additive 1", "additive +Inf",
                                            "additive -1e8"};
  for (int i = 0; i < 4; ++i) {
    for (float& x : additive) x = 0.0f;
    additive[5] = bad_additive[i];  // broadcast [seq_q, seq_kv]
    c = valid;
    c.args.mask.additive = additive;
    eval_row(ctx, __LINE__, op, bad_additive_names[i], c, Status::kUnsupported);
  }
  scratch_rows(ctx, op, valid, need);
}

// ---------------------------------------------------------------------------
// luong_dot_s8_prepare / luong_general_s8_prepare / luong_s8
struct LuongDotPrep {
  attn::LuongDotShape shape{2, 5, 4};
  attn::LuongS8Quant quant;
  attn::LuongS8Params* params = &g_luong;
  Status run() const { return attn::luong_dot_s8_prepare(shape, quant, params); }
};

struct LuongGeneralPrep {
  attn::LuongGeneralShape shape{2, 5, 3, 4};
  attn::LuongS8Quant quant;
  attn::FcS8Weights w{g_wt1, g_scales, g_bias};
  attn::QuantizedMultiplier* storage = g_storage;
  attn::LuongS8Params* params = &g_luong;
  Status run() const { return attn::luong_general_s8_prepare(shape, quant, w, storage, params); }
};

attn::LuongS8Quant luong_quant() {
  attn::LuongS8Quant q;
  q.query = {0.05f, 1};
  q.keys = {0.04f, -2};
  q.keys_proj = {0.1f, -1};
  q.scores = {0.1f, 0};
  q.context = {0.05f, 3};
  return q;
}

int32_t g_luong_lens[2] = {1, 5};

struct LuongEval {
  attn::LuongS8Args args;
  attn::Scratch scratch;
  Status run() const { return attn::luong_s8(g_luong, args, scratch); }
};

// Quant rows shared by both prepares: `fields` are the ones the op validates.
template <typename Prep>
void luong_quant_rows(attn_test::Context& ctx, const char* op, const Prep& valid, int fields) {
  QuantParams attn::LuongS8Quant::*const quants[] = {
      &attn::LuongS8Quant::query, &attn::LuongS8Quant::keys, &attn::LuongS8Quant::scores,
      &attn::LuongS8Quant::context, &attn::LuongS8Quant::keys_proj};
  const char* const names[] = {"query", "keys", "scores", "context", "keys_proj"};
  for (int q = 0; q < fields; ++q) {
    for (const BadQuant& b : kBadQuants) {
      char what[64];
      Prep c = valid;
      c.quant.*quants[q] = b.make(valid.quant.*quants[q]);
      std::snprintf(what, sizeof what, "quant.%s %s", names[q], b.what);
      prep_row(ctx, __LINE__, op, what, c, &g_luong, Status::kBadArgument);
    }
  }
  for (int i = 0; i < 5; ++i) {
    Prep c = valid;
    c.quant.beta = kBadBetas[i];
    prep_row(ctx, __LINE__, op, kBadBetaNames[i], c, &g_luong, Status::kBadArgument);
  }
}

ATTN_CASE(BadInputS8, LuongDotPrepare) {
  fill_inputs();
  const char* op = "luong_dot_s8_prepare";
  LuongDotPrep valid;
  valid.quant = luong_quant();
  prep_row(ctx, __LINE__, op, "valid", valid, &g_luong, Status::kOk);
  LuongDotPrep c = valid;
  c.params = nullptr;
  prep_row(ctx, __LINE__, op, "params null", c, &g_luong, Status::kNullPointer);
  int32_t attn::LuongDotShape::*const dims[] = {
      &attn::LuongDotShape::batch, &attn::LuongDotShape::seq, &attn::LuongDotShape::dim};
  const char* const dim_names[] = {"batch", "seq", "dim"};
  for (int d = 0; d < 3; ++d) {
    for (int v = 0; v < 4; ++v) {
      char what[64];
      c = valid;
      c.shape.*dims[d] = kBadDims[v];
      std::snprintf(what, sizeof what, "%s %s", dim_names[d], kBadDimNames[v]);
      prep_row(ctx, __LINE__, op, what, c, &g_luong, Status::kBadShape);
    }
  }
  c = valid;
  c.shape.dim = attn::kSdpaS8MaxDimK + 1;
  prep_row(ctx, __LINE__, op, "dim > kSdpaS8MaxDimK", c, &g_luong, Status::kOverflow);
  c = valid;
  c.shape.seq = attn::kSdpaS8MaxSeqKv + 1;
  prep_row(ctx, __LINE__, op, "seq > kSdpaS8MaxSeqKv", c, &g_luong, Status::kOverflow);
  // dot has no keys_proj: the first four quant fields only.
  luong_quant_rows(ctx, op, valid, 4);
  c = valid;
  c.quant.scores.scale = 1e-12f;  // 0.05 * 0.04 / 1e-12 >= 2^30
  prep_row(ctx, __LINE__, op, "scores multiplier >= 2^30", c, &g_luong, Status::kBadArgument);
}

ATTN_CASE(BadInputS8, LuongGeneralPrepare) {
  fill_inputs();
  const char* op = "luong_general_s8_prepare";
  LuongGeneralPrep valid;
  valid.quant = luong_quant();
  prep_row(ctx, __LINE__, op, "valid", valid, &g_luong, Status::kOk);
  LuongGeneralPrep c = valid;
  c.params = nullptr;
  prep_row(ctx, __LINE__, op, "params null", c, &g_luong, Status::kNullPointer);
  c = valid;
  c.storage = nullptr;
  prep_row(ctx, __LINE__, op, "storage null", c, &g_luong, Status::kNullPointer);
  c = valid;
  c.w.weight = nullptr;
  prep_row(ctx, __LINE__, op, "weight null", c, &g_luong, Status::kNullPointer);
  c = valid;
  c.w.scales = nullptr;
  prep_row(ctx, __LINE__, op, "scales null", c, &g_luong, Status::kNullPointer);
  for (int b = 0; b < 4; ++b) {
    c = valid;
    c.w.scales = bad_scales(kBadWeightScales[b], 2);
    prep_row(ctx, __LINE__, op, kBadWeightScaleNames[b], c, &g_luong, Status::kBadArgument);
  }
  int32_t attn::LuongGeneralShape::*const dims[] = {
      &attn::LuongGeneralShape::batch, &attn::LuongGeneralShape::seq,
      &attn::LuongGeneralShape::query_dim, &attn::LuongGeneralShape::key_dim};
  const char* const dim_names[] = {"batch", "seq", "query_dim", "key_dim"};
  for (int d = 0; d < 4; ++d) {
    for (int v = 0; v < 4; ++v) {
      char what[64];
      c = valid;
      c.shape.*dims[d] = kBadDims[v];
      std::snprintf(what, sizeof what, "%s %s", dim_names[d], kBadDimNames[v]);
      prep_row(ctx, __LINE__, op, what, c, &g_luong, Status::kBadShape);
    }
  }
  c = valid;
  c.shape.query_dim = attn::kSdpaS8MaxDimK + 1;
  prep_row(ctx, __LINE__, op, "query_dim > kSdpaS8MaxDimK", c, &g_luong, Status::kOverflow);
  c = valid;
  c.shape.key_dim = attn::kMhaS8MaxFeatures + 1;
  prep_row(ctx, __LINE__, op, "key_dim > kMhaS8MaxFeatures", c, &g_luong, Status::kOverflow);
  c = valid;
  c.shape.seq = attn::kSdpaS8MaxSeqKv + 1;
  prep_row(ctx, __LINE__, op, "seq > kSdpaS8MaxSeqKv", c, &g_luong, Status::kOverflow);
  luong_quant_rows(ctx, op, valid, 5);
  c = valid;
  c.quant.keys_proj.scale = 1e-13f;  // FC multiplier 0.04 * 0.013 / 1e-13 >= 2^30
  prep_row(ctx, __LINE__, op, "FC multiplier >= 2^30", c, &g_luong, Status::kBadArgument);
}

void luong_eval_rows(attn_test::Context& ctx, const char* op, int32_t query_dim) {
  LuongEval valid;
  valid.args.query = g_in1;  // [2, query_dim]
  valid.args.keys = g_in2;   // [2, 5, 4]
  valid.args.context = g_out;
  valid.args.probs = g_weights;
  valid.args.key_lengths = g_luong_lens;
  const std::size_t need = attn::luong_s8_scratch_bytes(g_luong.shape, g_luong.general);
  ATTN_ASSERT_TRUE(need > 0 && need <= kScratchBytes);
  ATTN_EXPECT_EQ_INT(g_luong.shape.query_dim, query_dim);
  valid.scratch = attn::Scratch{g_scratch, need};
  eval_row(ctx, __LINE__, op, "valid", valid, Status::kOk);
  LuongEval c = valid;
  c.args.query = nullptr;
  eval_row(ctx, __LINE__, op, "query null", c, Status::kNullPointer);
  c = valid;
  c.args.keys = nullptr;
  eval_row(ctx, __LINE__, op, "keys null", c, Status::kNullPointer);
  c = valid;
  c.args.context = nullptr;
  eval_row(ctx, __LINE__, op, "context null", c, Status::kNullPointer);
  key_length_rows(ctx, op, valid, g_luong_lens, 2, 5);
  scratch_rows(ctx, op, valid, need);
}

ATTN_CASE(BadInputS8, LuongDotEval) {
  fill_inputs();
  LuongDotPrep prep;
  prep.quant = luong_quant();
  ATTN_ASSERT_TRUE(prep.run() == Status::kOk);
  luong_eval_rows(ctx, "luong_s8 (dot)", 4);
}

ATTN_CASE(BadInputS8, LuongGeneralEval) {
  fill_inputs();
  LuongGeneralPrep prep;
  prep.quant = luong_quant();
  ATTN_ASSERT_TRUE(prep.run() == Status::kOk);
  luong_eval_rows(ctx, "luong_s8 (general)", 3);
}

// ---------------------------------------------------------------------------
// bahdanau_s8_prepare / bahdanau_s8
struct BahdanauPrep {
  attn::BahdanauShape shape{2, 5, 3, 4, 6};
  attn::BahdanauS8Quant quant;
  attn::BahdanauS8Weights w;
  attn::QuantizedMultiplier* storage = g_storage;
  attn::BahdanauS8Params* params = &g_bahdanau;
  Status run() const { return attn::bahdanau_s8_prepare(shape, quant, w, storage, params); }
};

BahdanauPrep bahdanau_prep_valid() {
  BahdanauPrep c;
  c.quant.query = {0.05f, 1};
  c.quant.keys = {0.04f, -2};
  c.quant.query_proj = {0.1f, 0};
  c.quant.keys_proj = {0.1f, 2};
  c.quant.sum = {0.1f, -1};
  c.quant.scores = {0.1f, 0};
  c.quant.context = {0.05f, 3};
  c.w.w1 = {g_wt1, g_scales, g_bias};
  c.w.w2 = {g_wt2, g_scales, g_bias};
  c.w.v = {g_wt3, g_scales, nullptr};
  return c;
}

int32_t g_bahdanau_lens[2] = {1, 5};

struct BahdanauEval {
  attn::BahdanauS8Args args;
  attn::Scratch scratch;
  Status run() const { return attn::bahdanau_s8(g_bahdanau, args, scratch); }
};

ATTN_CASE(BadInputS8, BahdanauPrepare) {
  fill_inputs();
  const char* op = "bahdanau_s8_prepare";
  const BahdanauPrep valid = bahdanau_prep_valid();
  prep_row(ctx, __LINE__, op, "valid", valid, &g_bahdanau, Status::kOk);
  BahdanauPrep c = valid;
  c.params = nullptr;
  prep_row(ctx, __LINE__, op, "params null", c, &g_bahdanau, Status::kNullPointer);
  c = valid;
  c.storage = nullptr;
  prep_row(ctx, __LINE__, op, "storage null", c, &g_bahdanau, Status::kNullPointer);
  attn::FcS8Weights attn::BahdanauS8Weights::*const layers[] = {
      &attn::BahdanauS8Weights::w1, &attn::BahdanauS8Weights::w2, &attn::BahdanauS8Weights::v};
  const char* const layer_names[] = {"w1", "w2", "v"};
  const int last_channel[] = {5, 5, 0};
  for (int l = 0; l < 3; ++l) {
    char what[64];
    c = valid;
    (c.w.*layers[l]).weight = nullptr;
    std::snprintf(what, sizeof what, "%s weight null", layer_names[l]);
    prep_row(ctx, __LINE__, op, what, c, &g_bahdanau, Status::kNullPointer);
    c = valid;
    (c.w.*layers[l]).scales = nullptr;
    std::snprintf(what, sizeof what, "%s scales null", layer_names[l]);
    prep_row(ctx, __LINE__, op, what, c, &g_bahdanau, Status::kNullPointer);
    for (int b = 0; b < 4; ++b) {
      c = valid;
      (c.w.*layers[l]).scales = bad_scales(kBadWeightScales[b], last_channel[l]);
      std::snprintf(what, sizeof what, "%s %s", layer_names[l], kBadWeightScaleNames[b]);
      prep_row(ctx, __LINE__, op, what, c, &g_bahdanau, Status::kBadArgument);
    }
  }
  int32_t attn::BahdanauShape::*const dims[] = {
      &attn::BahdanauShape::batch, &attn::BahdanauShape::seq, &attn::BahdanauShape::query_dim,
      &attn::BahdanauShape::key_dim, &attn::BahdanauShape::units};
  const char* const dim_names[] = {"batch", "seq", "query_dim", "key_dim", "units"};
  for (int d = 0; d < 5; ++d) {
    for (int v = 0; v < 4; ++v) {
      char what[64];
      c = valid;
      c.shape.*dims[d] = kBadDims[v];
      std::snprintf(what, sizeof what, "%s %s", dim_names[d], kBadDimNames[v]);
      prep_row(ctx, __LINE__, op, what, c, &g_bahdanau, Status::kBadShape);
    }
  }
  for (int d = 2; d < 5; ++d) {
    char what[64];
    c = valid;
    c.shape.*dims[d] = attn::kMhaS8MaxFeatures + 1;
    std::snprintf(what, sizeof what, "%s > kMhaS8MaxFeatures", dim_names[d]);
    prep_row(ctx, __LINE__, op, what, c, &g_bahdanau, Status::kOverflow);
  }
  c = valid;
  c.shape.seq = attn::kSdpaS8MaxSeqKv + 1;
  prep_row(ctx, __LINE__, op, "seq > kSdpaS8MaxSeqKv", c, &g_bahdanau, Status::kOverflow);
  QuantParams attn::BahdanauS8Quant::*const quants[] = {
      &attn::BahdanauS8Quant::query,      &attn::BahdanauS8Quant::keys,
      &attn::BahdanauS8Quant::query_proj, &attn::BahdanauS8Quant::keys_proj,
      &attn::BahdanauS8Quant::sum,        &attn::BahdanauS8Quant::scores,
      &attn::BahdanauS8Quant::context};
  const char* const quant_names[] = {"query", "keys",   "query_proj", "keys_proj",
                                     "sum",   "scores", "context"};
  for (int q = 0; q < 7; ++q) {
    for (const BadQuant& b : kBadQuants) {
      char what[64];
      c = valid;
      c.quant.*quants[q] = b.make(valid.quant.*quants[q]);
      std::snprintf(what, sizeof what, "quant.%s %s", quant_names[q], b.what);
      prep_row(ctx, __LINE__, op, what, c, &g_bahdanau, Status::kBadArgument);
    }
  }
  for (int i = 0; i < 5; ++i) {
    c = valid;
    c.quant.beta = kBadBetas[i];
    prep_row(ctx, __LINE__, op, kBadBetaNames[i], c, &g_bahdanau, Status::kBadArgument);
  }
  c = valid;
  c.quant.query_proj.scale = 1e-13f;  // W1 multiplier 0.05 * 0.01 / 1e-13 >= 2^30
  prep_row(ctx, __LINE__, op, "w1 FC multiplier >= 2^30", c, &g_bahdanau, Status::kBadArgument);
  c = valid;
  c.quant.sum.scale = 1e-9f;  // the TANH input scale below 2^-28
  prep_row(ctx, __LINE__, op, "sum scale < 2^-28 (TANH)", c, &g_bahdanau, Status::kBadArgument);
}

ATTN_CASE(BadInputS8, BahdanauEval) {
  fill_inputs();
  const char* op = "bahdanau_s8";
  const BahdanauPrep prep = bahdanau_prep_valid();
  ATTN_ASSERT_TRUE(prep.run() == Status::kOk);
  const std::size_t need = attn::bahdanau_s8_scratch_bytes(g_bahdanau.shape);
  ATTN_ASSERT_TRUE(need > 0 && need <= kScratchBytes);
  BahdanauEval valid;
  valid.args.query = g_in1;  // [2, 3]
  valid.args.keys = g_in2;   // [2, 5, 4]
  valid.args.context = g_out;
  valid.args.probs = g_weights;
  valid.args.key_lengths = g_bahdanau_lens;
  valid.scratch = attn::Scratch{g_scratch, need};
  eval_row(ctx, __LINE__, op, "valid", valid, Status::kOk);
  BahdanauEval c = valid;
  c.args.query = nullptr;
  eval_row(ctx, __LINE__, op, "query null", c, Status::kNullPointer);
  c = valid;
  c.args.keys = nullptr;
  eval_row(ctx, __LINE__, op, "keys null", c, Status::kNullPointer);
  c = valid;
  c.args.context = nullptr;
  eval_row(ctx, __LINE__, op, "context null", c, Status::kNullPointer);
  key_length_rows(ctx, op, valid, g_bahdanau_lens, 2, 5);
  scratch_rows(ctx, op, valid, need);
}

// ---------------------------------------------------------------------------
// softmax_s8_prepare / softmax_s8 and sdpa_s8_prepare / sdpa_s8: the rows
// SoftmaxS8.ArgumentErrors and SdpaS8.ContractsAndAllMaskedRows do not have.
struct SoftmaxPrep {
  float scale = 0.05f;
  float beta = 1.0f;
  attn::SoftmaxS8Params* params = &g_softmax;
  Status run() const { return attn::softmax_s8_prepare(scale, beta, params); }
};

struct SoftmaxEval {
  int32_t rows = 2;
  int32_t cols = 5;
  const int8_t* in = g_in1;
  int8_t* out = g_out;
  Status run() const { return attn::softmax_s8({rows, cols}, g_softmax, {in, out}); }
};

ATTN_CASE(BadInputS8, Softmax) {
  fill_inputs();
  const char* op = "softmax_s8_prepare";
  const SoftmaxPrep valid;
  prep_row(ctx, __LINE__, op, "valid", valid, &g_softmax, Status::kOk);
  const float bad_scales_[] = {-0.05f, kNaN, kInf, -kInf};
  const char* const scale_names[] = {"input_scale negative", "input_scale NaN", "input_scale +Inf",
                                     "input_scale -Inf"};
  for (int i = 0; i < 4; ++i) {
    SoftmaxPrep c = valid;
    c.scale = bad_scales_[i];
    prep_row(ctx, __LINE__, op, scale_names[i], c, &g_softmax, Status::kBadArgument);
  }
  const float bad_betas[] = {0.0f, kNaN, kInf, -kInf};
  const char* const beta_names[] = {"beta 0", "beta NaN", "beta +Inf", "beta -Inf"};
  for (int i = 0; i < 4; ++i) {
    SoftmaxPrep c = valid;
    c.beta = bad_betas[i];
    prep_row(ctx, __LINE__, op, beta_names[i], c, &g_softmax, Status::kBadArgument);
  }

  op = "softmax_s8";
  ATTN_ASSERT_TRUE(valid.run() == Status::kOk);
  const SoftmaxEval ev;
  eval_row(ctx, __LINE__, op, "valid", ev, Status::kOk);
  SoftmaxEval c = ev;
  c.out = nullptr;
  eval_row(ctx, __LINE__, op, "out null", c, Status::kNullPointer);
  for (int v = 0; v < 3; ++v) {  // 0, -1, INT32_MIN
    char what[64];
    c = ev;
    c.rows = kBadDims[v];
    std::snprintf(what, sizeof what, "rows %s", kBadDimNames[v]);
    eval_row(ctx, __LINE__, op, what, c, Status::kBadShape);
    c = ev;
    c.cols = kBadDims[v];
    std::snprintf(what, sizeof what, "cols %s", kBadDimNames[v]);
    eval_row(ctx, __LINE__, op, what, c, Status::kBadShape);
  }
  c = ev;
  c.cols = kMaxInt;
  eval_row(ctx, __LINE__, op, "cols INT32_MAX", c, Status::kOverflow);
}

struct SdpaPrep {
  attn::SdpaShape shape{2, 3, 4, 4, 2};
  attn::SdpaS8Quant quant;
  attn::SdpaS8Params* params = &g_sdpa;
  Status run() const { return attn::sdpa_s8_prepare(shape, quant, params); }
};

SdpaPrep sdpa_prep_valid() {
  SdpaPrep c;
  c.quant.q = {0.02f, 3};
  c.quant.k = {0.03f, -7};
  c.quant.v = {0.05f, 5};
  c.quant.scores = {0.05f, 2};
  c.quant.out = {0.04f, -4};
  return c;
}

int32_t g_sdpa_lens[2] = {1, 4};

struct SdpaEval {
  attn::SdpaS8Args args;
  attn::Scratch scratch;
  Status run() const { return attn::sdpa_s8(g_sdpa, args, scratch); }
};

ATTN_CASE(BadInputS8, SdpaPrepare) {
  fill_inputs();
  const char* op = "sdpa_s8_prepare";
  const SdpaPrep valid = sdpa_prep_valid();
  prep_row(ctx, __LINE__, op, "valid", valid, &g_sdpa, Status::kOk);
  SdpaPrep c = valid;
  c.params = nullptr;
  prep_row(ctx, __LINE__, op, "params null", c, &g_sdpa, Status::kNullPointer);
  int32_t attn::SdpaShape::*const dims[] = {&attn::SdpaShape::batch, &attn::SdpaShape::seq_q,
                                            &attn::SdpaShape::seq_kv, &attn::SdpaShape::dim_k,
                                            &attn::SdpaShape::dim_v};
  const char* const dim_names[] = {"batch", "seq_q", "seq_kv", "dim_k", "dim_v"};
  for (int d = 0; d < 5; ++d) {
    for (int v = 0; v < 4; ++v) {
      // seq_q 0 is in SdpaS8.ContractsAndAllMaskedRows.
      if (d == 1 && v == 0) continue;
      char what[64];
      c = valid;
      c.shape.*dims[d] = kBadDims[v];
      std::snprintf(what, sizeof what, "%s %s", dim_names[d], kBadDimNames[v]);
      prep_row(ctx, __LINE__, op, what, c, &g_sdpa, Status::kBadShape);
    }
  }
  QuantParams attn::SdpaS8Quant::*const quants[] = {
      &attn::SdpaS8Quant::q, &attn::SdpaS8Quant::k, &attn::SdpaS8Quant::v,
      &attn::SdpaS8Quant::scores, &attn::SdpaS8Quant::out};
  const char* const quant_names[] = {"q", "k", "v", "scores", "out"};
  for (int q = 0; q < 5; ++q) {
    for (const BadQuant& b : kBadQuants) {
      // out zero point 128 is in SdpaS8.ContractsAndAllMaskedRows.
      if (q == 4 && std::strcmp(b.what, "zero point 128") == 0) continue;
      char what[64];
      c = valid;
      c.quant.*quants[q] = b.make(valid.quant.*quants[q]);
      std::snprintf(what, sizeof what, "quant.%s %s", quant_names[q], b.what);
      prep_row(ctx, __LINE__, op, what, c, &g_sdpa, Status::kBadArgument);
    }
  }
  for (int i = 1; i < 5; ++i) {  // beta -1 is in SdpaS8.ContractsAndAllMaskedRows
    c = valid;
    c.quant.beta = kBadBetas[i];
    prep_row(ctx, __LINE__, op, kBadBetaNames[i], c, &g_sdpa, Status::kBadArgument);
  }
  c = valid;
  c.quant.out.scale = 1e-13f;  // (1/256) * 0.05 / 1e-13 >= 2^30
  prep_row(ctx, __LINE__, op, "out multiplier >= 2^30", c, &g_sdpa, Status::kBadArgument);
}

ATTN_CASE(BadInputS8, SdpaEval) {
  fill_inputs();
  const char* op = "sdpa_s8";
  const SdpaPrep prep = sdpa_prep_valid();
  ATTN_ASSERT_TRUE(prep.run() == Status::kOk);
  const std::size_t need = attn::sdpa_s8_scratch_bytes(g_sdpa.shape);
  ATTN_ASSERT_TRUE(need > 0 && need <= kScratchBytes);
  SdpaEval valid;
  valid.args.q = g_in1;  // [2, 3, 4]
  valid.args.k = g_in2;  // [2, 4, 4]
  valid.args.v = g_in3;  // [2, 4, 2]
  valid.args.out = g_out;
  valid.args.probs = g_weights;
  valid.args.mask.key_lengths = g_sdpa_lens;
  valid.scratch = attn::Scratch{g_scratch, need};
  eval_row(ctx, __LINE__, op, "valid", valid, Status::kOk);
  SdpaEval c = valid;
  c.args.q = nullptr;
  eval_row(ctx, __LINE__, op, "q null", c, Status::kNullPointer);
  c = valid;
  c.args.k = nullptr;
  eval_row(ctx, __LINE__, op, "k null", c, Status::kNullPointer);
  c = valid;
  c.args.v = nullptr;
  eval_row(ctx, __LINE__, op, "v null", c, Status::kNullPointer);
  c = valid;
  c.args.out = nullptr;
  eval_row(ctx, __LINE__, op, "out null", c, Status::kNullPointer);
  {
    const int32_t saved = g_sdpa_lens[1];
    const char* const names[] = {"key length -1", "key length INT32_MIN", "key length INT32_MAX"};
    for (int i = 0; i < 3; ++i) {
      g_sdpa_lens[1] = kBadLengths[i];
      eval_row(ctx, __LINE__, op, names[i], valid, Status::kBadArgument);
    }
    g_sdpa_lens[1] = saved;
  }
  static float additive[3 * 4];
  const float bad_additive[] = {1.0f, kInf, -1e8f};
  const char* const bad_additive_names[] = {"additive 1", "additive +Inf", "additive -1e8"};
  for (int i = 0; i < 3; ++i) {
    for (float& x : additive) x = 0.0f;
    additive[5] = bad_additive[i];
    c = valid;
    c.args.mask.additive = additive;
    eval_row(ctx, __LINE__, op, bad_additive_names[i], c, Status::kUnsupported);
  }
  // scratch one byte short is in SdpaS8.ContractsAndAllMaskedRows.
  const char* const scratch_names[] = {"scratch of 0 bytes", "scratch data null",
                                       "scratch data null, 0 bytes"};
  const attn::Scratch scratches[] = {{g_scratch, 0}, {nullptr, kScratchBytes}, {nullptr, 0}};
  for (int i = 0; i < 3; ++i) {
    c = valid;
    c.scratch = scratches[i];
    eval_row(ctx, __LINE__, op, scratch_names[i], c, Status::kScratchTooSmall);
  }
}

}  // namespace
