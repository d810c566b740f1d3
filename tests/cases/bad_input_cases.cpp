// The bad-argument table of every float op: starting from a valid
// call, each row breaks one thing (a required null pointer, a zero, negative or
// too large dimension, heads not dividing E, in_proj_weight with kdim/vdim !=
// E, a key length outside [0, seq_kv], a negative/NaN/Inf scale, too little or
// null scratch, ...) and expects the documented attn::Status. Every row also
// checks that the op wrote nothing: the output and weights buffers are filled
// with a NaN-payload sentinel before the call and must keep its exact bits.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <limits>

#include "attn/attn.h"
#include "case.h"

namespace {

using attn::Status;
using attn_test::Rng;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr int32_t kMaxInt = std::numeric_limits<int32_t>::max();
constexpr int32_t kMinInt = std::numeric_limits<int32_t>::min();

// Valid inputs for every op below (small shapes, so a few hundred floats).
float g_a[512], g_b[512], g_c[512], g_w1[512], g_w2[512], g_w3[512], g_w4[512], g_bias[64];
float g_keras[64], g_additive[64];
uint8_t g_boolean[64];
int32_t g_lens[4] = {1, 4, 0, 2};
// Outputs, checked untouched after every failing call.
float g_out[512];
float g_weights[512];
// Scratch comes from the case arena (see run_table).
constexpr std::size_t kScratchBytes = 16384;
unsigned char* g_scratch = nullptr;

float sentinel() { return attn_test::bits_float(0x7fa5a5a5u); }

void fill_inputs() {
  static bool done = false;
  if (done) return;
  done = true;
  Rng rng(700);
  for (float* p : {g_a, g_b, g_c, g_w1, g_w2, g_w3, g_w4})
    attn_test::fill_uniform(rng, p, 512, -1, 1);
  attn_test::fill_uniform(rng, g_bias, 64, -1, 1);
  for (int i = 0; i < 64; ++i) {
    g_keras[i] = (i % 5 == 0) ? 1.0f : 0.0f;
    g_additive[i] = (i % 7 == 0) ? -kInf : 0.25f;
    g_boolean[i] = (i % 6 == 0) ? 1 : 0;
  }
}

void arm_outputs() {
  const float s = sentinel();
  for (float& x : g_out) x = s;
  for (float& x : g_weights) x = s;
}

// One row's verdict: the status, and nothing written.
void check_row(attn_test::Context& ctx, const char* op, const char* what, Status got, Status want) {
  ++ctx.checks;
  if (got != want) {
    attn_test::fail(ctx, __FILE__, __LINE__, "%s, %s: status %d (%s), expected %d (%s)", op, what,
                    static_cast<int>(got), attn::status_str(got), static_cast<int>(want),
                    attn::status_str(want));
  }
  if (want == Status::kOk) return;
  const int before = ctx.failures;
  ATTN_EXPECT_ALL_BITS("out", g_out, sentinel(), sizeof g_out / sizeof g_out[0]);
  ATTN_EXPECT_ALL_BITS("weights", g_weights, sentinel(), sizeof g_weights / sizeof g_weights[0]);
  if (ctx.failures != before) {
    attn_test::fail(ctx, __FILE__, __LINE__, "%s, %s: wrote output on error", op, what);
  }
}

attn::Scratch scratch_of(std::size_t bytes) { return attn::Scratch{g_scratch, bytes}; }

// Scratch mutations shared by every op: `need` is the op's exact requirement.
template <typename Call>
void scratch_rows(attn_test::Context& ctx, const char* op, Call valid, Status (*run)(Call&),
                  std::size_t need) {
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
    arm_outputs();
    check_row(ctx, op, r.what, run(c), Status::kScratchTooSmall);
  }
}

// ---------------------------------------------------------------------------
// sdpa_f32
struct SdpaCall {
  attn::SdpaShape shape{2, 3, 4, 5, 3};
  attn::SdpaF32Args args;
  attn::Scratch scratch;
};

SdpaCall sdpa_valid() {
  SdpaCall c;
  c.args.q = g_a;
  c.args.k = g_b;
  c.args.v = g_c;
  c.args.out = g_out;
  c.args.probs = g_weights;
  c.args.mask.causal = true;
  c.args.mask.key_lengths = g_lens;
  c.args.mask.keras = g_keras;
  c.args.mask.additive = g_additive;
  c.args.mask.boolean = g_boolean;
  c.scratch = scratch_of(attn::sdpa_f32_scratch_bytes(c.shape));
  return c;
}

Status run_sdpa(SdpaCall& c) { return attn::sdpa_f32(c.shape, c.args, c.scratch); }

// ---------------------------------------------------------------------------
// mha_f32 (packed weights; a second base with separate weights and kdim/vdim)
struct MhaCall {
  attn::MhaShape shape{2, 3, 4, 4, 2, 0, 0};
  attn::MhaF32Weights w;
  attn::MhaF32Args args;
  attn::Scratch scratch;
};

MhaCall mha_valid(bool packed) {
  MhaCall c;
  if (packed) {
    c.w.in_proj_weight = g_w1;
  } else {
    c.shape.kdim = 3;
    c.shape.vdim = 5;
    c.w.q_proj_weight = g_w1;
    c.w.k_proj_weight = g_w2;
    c.w.v_proj_weight = g_w3;
  }
  c.w.in_proj_bias = g_bias;
  c.w.out_proj_weight = g_w4;
  c.w.out_proj_bias = g_bias;
  c.args.query = g_a;
  c.args.key = g_b;
  c.args.value = g_c;
  c.args.out = g_out;
  c.args.probs = g_weights;
  c.args.probs_mode = attn::MhaProbsMode::kPerHead;
  c.args.mask.causal = true;
  c.args.mask.key_lengths = g_lens;
  c.args.mask.boolean = g_boolean;
  c.scratch = scratch_of(attn::mha_f32_scratch_bytes(c.shape));
  return c;
}
MhaCall mha_packed_valid() { return mha_valid(true); }
MhaCall mha_separate_valid() { return mha_valid(false); }

Status run_mha(MhaCall& c) { return attn::mha_f32(c.shape, c.w, c.args, c.scratch); }

// ---------------------------------------------------------------------------
// bahdanau_f32
struct BahdanauCall {
  attn::BahdanauShape shape{2, 4, 3, 5, 6};
  attn::BahdanauF32Weights w;
  attn::BahdanauF32Args args;
  attn::Scratch scratch;
};

BahdanauCall bahdanau_valid() {
  BahdanauCall c;
  c.w.w1 = g_w1;
  c.w.b1 = g_bias;
  c.w.w2 = g_w2;
  c.w.b2 = g_bias;
  c.w.v = g_w3;
  c.w.bv = 0.5f;
  c.args.query = g_a;
  c.args.keys = g_b;
  c.args.context = g_out;
  c.args.probs = g_weights;
  c.args.key_lengths = g_lens;
  c.scratch = scratch_of(attn::bahdanau_f32_scratch_bytes(c.shape));
  return c;
}

Status run_bahdanau(BahdanauCall& c) { return attn::bahdanau_f32(c.shape, c.w, c.args, c.scratch); }

// ---------------------------------------------------------------------------
// luong_dot_f32 / luong_general_f32
struct LuongDotCall {
  attn::LuongDotShape shape{2, 4, 5};
  attn::LuongF32Args args;
  attn::Scratch scratch;
};

LuongDotCall luong_dot_valid() {
  LuongDotCall c;
  c.args.query = g_a;
  c.args.keys = g_b;
  c.args.context = g_out;
  c.args.probs = g_weights;
  c.args.key_lengths = g_lens;
  c.scratch = scratch_of(attn::luong_dot_f32_scratch_bytes(c.shape));
  return c;
}

Status run_luong_dot(LuongDotCall& c) { return attn::luong_dot_f32(c.shape, c.args, c.scratch); }

struct LuongGeneralCall {
  attn::LuongGeneralShape shape{2, 4, 3, 5};
  attn::LuongGeneralF32Weights w;
  attn::LuongF32Args args;
  attn::Scratch scratch;
};

LuongGeneralCall luong_general_valid() {
  LuongGeneralCall c;
  c.w.w = g_w1;
  c.w.b = g_bias;
  c.args.query = g_a;
  c.args.keys = g_b;
  c.args.context = g_out;
  c.args.probs = g_weights;
  c.args.key_lengths = g_lens;
  c.scratch = scratch_of(attn::luong_general_f32_scratch_bytes(c.shape));
  return c;
}

Status run_luong_general(LuongGeneralCall& c) {
  return attn::luong_general_f32(c.shape, c.w, c.args, c.scratch);
}

// ---------------------------------------------------------------------------
// general_attention_f32
struct GeneralCall {
  attn::GeneralAttentionShape shape{2, 4, 3, 5, 3};
  attn::GeneralAttentionF32Weights w;
  attn::GeneralAttentionF32Args args;
  attn::Scratch scratch;
};

GeneralCall general_valid() {
  GeneralCall c;
  c.w.w_q = g_w1;
  c.w.w_k = g_w2;
  c.w.w_v = g_w3;
  c.args.x = g_a;
  c.args.out = g_out;
  c.args.probs = g_weights;
  c.args.mask.causal = true;
  c.args.mask.key_lengths = g_lens;
  c.args.mask.keras = g_keras;
  c.scratch = scratch_of(attn::general_attention_f32_scratch_bytes(c.shape));
  return c;
}

Status run_general(GeneralCall& c) {
  return attn::general_attention_f32(c.shape, c.w, c.args, c.scratch);
}

// A table row: a mutation of the valid call and the status it must give.
template <typename Call>
struct Row {
  const char* what;
  void (*mutate)(Call&);
  Status want;
};

template <typename Call, std::size_t N>
void run_table(attn_test::Context& ctx, const char* op, Call (*valid)(), Status (*run)(Call&),
               const Row<Call> (&rows)[N]) {
  fill_inputs();
  attn_test::Arena arena;
  g_scratch = static_cast<unsigned char*>(arena.bytes(kScratchBytes));
  ATTN_ASSERT_TRUE(arena.ok());
  {
    Call c = valid();
    arm_outputs();
    check_row(ctx, op, "the valid base call", run(c), Status::kOk);
  }
  for (const Row<Call>& r : rows) {
    Call c = valid();
    r.mutate(c);
    arm_outputs();
    check_row(ctx, op, r.what, run(c), r.want);
  }
  Call c = valid();
  scratch_rows<Call>(ctx, op, c, run, c.scratch.bytes);
}

}  // namespace

// The dimension rows below use each value of {0, -1, INT32_MIN, INT32_MAX}.
// clang-format 14 breaks a macro that expands to a list of braced rows:
// clang-format off
#define ATTN_DIM_ROWS(Call, field)                                                      \
  {#field " = 0", [](Call& c) { c.shape.field = 0; }, Status::kBadShape},               \
  {#field " = -1", [](Call& c) { c.shape.field = -1; }, Status::kBadShape},             \
  {#field " = INT32_MIN", [](Call& c) { c.shape.field = kMinInt; }, Status::kBadShape}, \
  {#field " = INT32_MAX", [](Call& c) { c.shape.field = kMaxInt; }, Status::kBadShape}
// clang-format on

ATTN_CASE(BadInput, SdpaTable) {
  static const Row<SdpaCall> rows[] = {
      {"q null", [](SdpaCall& c) { c.args.q = nullptr; }, Status::kNullPointer},
      {"k null", [](SdpaCall& c) { c.args.k = nullptr; }, Status::kNullPointer},
      {"v null", [](SdpaCall& c) { c.args.v = nullptr; }, Status::kNullPointer},
      {"out null", [](SdpaCall& c) { c.args.out = nullptr; }, Status::kNullPointer},
      ATTN_DIM_ROWS(SdpaCall, batch),
      ATTN_DIM_ROWS(SdpaCall, seq_q),
      ATTN_DIM_ROWS(SdpaCall, seq_kv),
      ATTN_DIM_ROWS(SdpaCall, dim_k),
      ATTN_DIM_ROWS(SdpaCall, dim_v),
      {"scale -1", [](SdpaCall& c) { c.args.scale = -1.0f; }, Status::kBadArgument},
      {"scale -0.0 is the default", [](SdpaCall& c) { c.args.scale = -0.0f; }, Status::kOk},
      {"scale NaN", [](SdpaCall& c) { c.args.scale = kNaN; }, Status::kBadArgument},
      {"scale +Inf", [](SdpaCall& c) { c.args.scale = kInf; }, Status::kBadArgument},
      {"scale -Inf", [](SdpaCall& c) { c.args.scale = -kInf; }, Status::kBadArgument},
      {"key length -1",
       [](SdpaCall& c) {
         static const int32_t l[2] = {2, -1};
         c.args.mask.key_lengths = l;
       },
       Status::kBadArgument},
      {"key length seq_kv + 1",
       [](SdpaCall& c) {
         static const int32_t l[2] = {5, 1};
         c.args.mask.key_lengths = l;
       },
       Status::kBadArgument},
      {"key length INT32_MIN",
       [](SdpaCall& c) {
         static const int32_t l[2] = {0, kMinInt};
         c.args.mask.key_lengths = l;
       },
       Status::kBadArgument},
      {"weights null is fine", [](SdpaCall& c) { c.args.probs = nullptr; }, Status::kOk},
  };
  run_table(ctx, "sdpa_f32", &sdpa_valid, &run_sdpa, rows);
}

ATTN_CASE(BadInput, MhaTable) {
  static const Row<MhaCall> rows[] = {
      {"query null", [](MhaCall& c) { c.args.query = nullptr; }, Status::kNullPointer},
      {"key null", [](MhaCall& c) { c.args.key = nullptr; }, Status::kNullPointer},
      {"value null", [](MhaCall& c) { c.args.value = nullptr; }, Status::kNullPointer},
      {"out null", [](MhaCall& c) { c.args.out = nullptr; }, Status::kNullPointer},
      {"out_proj_weight null", [](MhaCall& c) { c.w.out_proj_weight = nullptr; },
       Status::kNullPointer},
      {"no input projection", [](MhaCall& c) { c.w.in_proj_weight = nullptr; },
       Status::kNullPointer},
      {"only q/k proj, no v proj",
       [](MhaCall& c) {
         c.w.in_proj_weight = nullptr;
         c.w.q_proj_weight = g_w1;
         c.w.k_proj_weight = g_w2;
       },
       Status::kNullPointer},
      ATTN_DIM_ROWS(MhaCall, batch),
      ATTN_DIM_ROWS(MhaCall, seq_q),
      ATTN_DIM_ROWS(MhaCall, seq_kv),
      ATTN_DIM_ROWS(MhaCall, embed_dim),
      ATTN_DIM_ROWS(MhaCall, num_heads),
      {"kdim = -1", [](MhaCall& c) { c.shape.kdim = -1; }, Status::kBadShape},
      {"vdim = -1", [](MhaCall& c) { c.shape.vdim = -1; }, Status::kBadShape},
      {"kdim = INT32_MIN", [](MhaCall& c) { c.shape.kdim = kMinInt; }, Status::kBadShape},
      {"vdim = INT32_MAX", [](MhaCall& c) { c.shape.vdim = kMaxInt; }, Status::kBadShape},
      {"heads 3 do not divide E 4", [](MhaCall& c) { c.shape.num_heads = 3; },
       Status::kShapeMismatch},
      {"heads 8 > E 4", [](MhaCall& c) { c.shape.num_heads = 8; }, Status::kShapeMismatch},
      {"in_proj_weight with kdim 3 != E", [](MhaCall& c) { c.shape.kdim = 3; },
       Status::kShapeMismatch},
      {"in_proj_weight with vdim 5 != E", [](MhaCall& c) { c.shape.vdim = 5; },
       Status::kShapeMismatch},
      {"kdim = E is the default", [](MhaCall& c) { c.shape.kdim = 4; }, Status::kOk},
      {"probs_mode 7", [](MhaCall& c) { c.args.probs_mode = static_cast<attn::MhaProbsMode>(7); },
       Status::kBadArgument},
      {"probs_mode -1", [](MhaCall& c) { c.args.probs_mode = static_cast<attn::MhaProbsMode>(-1); },
       Status::kBadArgument},
      {"key length -1",
       [](MhaCall& c) {
         static const int32_t l[2] = {-1, 2};
         c.args.mask.key_lengths = l;
       },
       Status::kBadArgument},
      {"key length seq_kv + 1",
       [](MhaCall& c) {
         static const int32_t l[2] = {4, 5};
         c.args.mask.key_lengths = l;
       },
       Status::kBadArgument},
      {"weights null is fine", [](MhaCall& c) { c.args.probs = nullptr; }, Status::kOk},
      {"biases null are fine",
       [](MhaCall& c) {
         c.w.in_proj_bias = nullptr;
         c.w.out_proj_bias = nullptr;
       },
       Status::kOk},
  };
  run_table(ctx, "mha_f32 (packed)", &mha_packed_valid, &run_mha, rows);

  static const Row<MhaCall> separate[] = {
      {"k_proj_weight null", [](MhaCall& c) { c.w.k_proj_weight = nullptr; }, Status::kNullPointer},
      {"q_proj_weight null", [](MhaCall& c) { c.w.q_proj_weight = nullptr; }, Status::kNullPointer},
      {"v_proj_weight null", [](MhaCall& c) { c.w.v_proj_weight = nullptr; }, Status::kNullPointer},
      {"in_proj_weight given too, kdim != E", [](MhaCall& c) { c.w.in_proj_weight = g_w1; },
       Status::kShapeMismatch},
      {"heads 3 do not divide E 4", [](MhaCall& c) { c.shape.num_heads = 3; },
       Status::kShapeMismatch},
      {"kdim = 0 is E", [](MhaCall& c) { c.shape.kdim = 0; }, Status::kOk},
  };
  run_table(ctx, "mha_f32 (separate, kdim 3, vdim 5)", &mha_separate_valid, &run_mha, separate);
}

ATTN_CASE(BadInput, BahdanauTable) {
  static const Row<BahdanauCall> rows[] = {
      {"query null", [](BahdanauCall& c) { c.args.query = nullptr; }, Status::kNullPointer},
      {"keys null", [](BahdanauCall& c) { c.args.keys = nullptr; }, Status::kNullPointer},
      {"context null", [](BahdanauCall& c) { c.args.context = nullptr; }, Status::kNullPointer},
      {"w1 null", [](BahdanauCall& c) { c.w.w1 = nullptr; }, Status::kNullPointer},
      {"w2 null", [](BahdanauCall& c) { c.w.w2 = nullptr; }, Status::kNullPointer},
      {"v null", [](BahdanauCall& c) { c.w.v = nullptr; }, Status::kNullPointer},
      ATTN_DIM_ROWS(BahdanauCall, batch),
      ATTN_DIM_ROWS(BahdanauCall, seq),
      ATTN_DIM_ROWS(BahdanauCall, query_dim),
      ATTN_DIM_ROWS(BahdanauCall, key_dim),
      ATTN_DIM_ROWS(BahdanauCall, units),
      {"bv NaN", [](BahdanauCall& c) { c.w.bv = kNaN; }, Status::kBadArgument},
      {"bv +Inf", [](BahdanauCall& c) { c.w.bv = kInf; }, Status::kBadArgument},
      {"bv -Inf", [](BahdanauCall& c) { c.w.bv = -kInf; }, Status::kBadArgument},
      {"key length -1",
       [](BahdanauCall& c) {
         static const int32_t l[2] = {0, -1};
         c.args.key_lengths = l;
       },
       Status::kBadArgument},
      {"key length seq + 1",
       [](BahdanauCall& c) {
         static const int32_t l[2] = {5, 0};
         c.args.key_lengths = l;
       },
       Status::kBadArgument},
      {"b1, b2, weights null are fine",
       [](BahdanauCall& c) {
         c.w.b1 = nullptr;
         c.w.b2 = nullptr;
         c.args.probs = nullptr;
       },
       Status::kOk},
  };
  run_table(ctx, "bahdanau_f32", &bahdanau_valid, &run_bahdanau, rows);
}

ATTN_CASE(BadInput, LuongDotTable) {
  static const Row<LuongDotCall> rows[] = {
      {"query null", [](LuongDotCall& c) { c.args.query = nullptr; }, Status::kNullPointer},
      {"keys null", [](LuongDotCall& c) { c.args.keys = nullptr; }, Status::kNullPointer},
      {"context null", [](LuongDotCall& c) { c.args.context = nullptr; }, Status::kNullPointer},
      ATTN_DIM_ROWS(LuongDotCall, batch),
      ATTN_DIM_ROWS(LuongDotCall, seq),
      ATTN_DIM_ROWS(LuongDotCall, dim),
      {"key length -1",
       [](LuongDotCall& c) {
         static const int32_t l[2] = {-1, 0};
         c.args.key_lengths = l;
       },
       Status::kBadArgument},
      {"key length seq + 1",
       [](LuongDotCall& c) {
         static const int32_t l[2] = {4, 5};
         c.args.key_lengths = l;
       },
       Status::kBadArgument},
      {"weights null is fine", [](LuongDotCall& c) { c.args.probs = nullptr; }, Status::kOk},
  };
  run_table(ctx, "luong_dot_f32", &luong_dot_valid, &run_luong_dot, rows);
}

ATTN_CASE(BadInput, LuongGeneralTable) {
  static const Row<LuongGeneralCall> rows[] = {
      {"query null", [](LuongGeneralCall& c) { c.args.query = nullptr; }, Status::kNullPointer},
      {"keys null", [](LuongGeneralCall& c) { c.args.keys = nullptr; }, Status::kNullPointer},
      {"context null", [](LuongGeneralCall& c) { c.args.context = nullptr; }, Status::kNullPointer},
      {"w null", [](LuongGeneralCall& c) { c.w.w = nullptr; }, Status::kNullPointer},
      ATTN_DIM_ROWS(LuongGeneralCall, batch),
      ATTN_DIM_ROWS(LuongGeneralCall, seq),
      ATTN_DIM_ROWS(LuongGeneralCall, query_dim),
      ATTN_DIM_ROWS(LuongGeneralCall, key_dim),
      {"key length -1",
       [](LuongGeneralCall& c) {
         static const int32_t l[2] = {1, -1};
         c.args.key_lengths = l;
       },
       Status::kBadArgument},
      {"key length seq + 1",
       [](LuongGeneralCall& c) {
         static const int32_t l[2] = {5, 4};
         c.args.key_lengths = l;
       },
       Status::kBadArgument},
      {"b, weights null are fine",
       [](LuongGeneralCall& c) {
         c.w.b = nullptr;
         c.args.probs = nullptr;
       },
       Status::kOk},
  };
  run_table(ctx, "luong_general_f32", &luong_general_valid, &run_luong_general, rows);
}

ATTN_CASE(BadInput, GeneralAttentionTable) {
  static const Row<GeneralCall> rows[] = {
      {"x null", [](GeneralCall& c) { c.args.x = nullptr; }, Status::kNullPointer},
      {"out null", [](GeneralCall& c) { c.args.out = nullptr; }, Status::kNullPointer},
      {"w_q null", [](GeneralCall& c) { c.w.w_q = nullptr; }, Status::kNullPointer},
      {"w_k null", [](GeneralCall& c) { c.w.w_k = nullptr; }, Status::kNullPointer},
      {"w_v null", [](GeneralCall& c) { c.w.w_v = nullptr; }, Status::kNullPointer},
      ATTN_DIM_ROWS(GeneralCall, batch),
      ATTN_DIM_ROWS(GeneralCall, seq),
      ATTN_DIM_ROWS(GeneralCall, in_dim),
      ATTN_DIM_ROWS(GeneralCall, dim_k),
      ATTN_DIM_ROWS(GeneralCall, dim_v),
      {"scale -0.5", [](GeneralCall& c) { c.args.scale = -0.5f; }, Status::kBadArgument},
      {"scale NaN", [](GeneralCall& c) { c.args.scale = kNaN; }, Status::kBadArgument},
      {"scale +Inf", [](GeneralCall& c) { c.args.scale = kInf; }, Status::kBadArgument},
      {"scale -Inf", [](GeneralCall& c) { c.args.scale = -kInf; }, Status::kBadArgument},
      {"key length -1",
       [](GeneralCall& c) {
         static const int32_t l[2] = {-1, 4};
         c.args.mask.key_lengths = l;
       },
       Status::kBadArgument},
      {"key length seq + 1",
       [](GeneralCall& c) {
         static const int32_t l[2] = {2, 5};
         c.args.mask.key_lengths = l;
       },
       Status::kBadArgument},
      {"weights null is fine", [](GeneralCall& c) { c.args.probs = nullptr; }, Status::kOk},
  };
  run_table(ctx, "general_attention_f32", &general_valid, &run_general, rows);
}

ATTN_CASE(BadInput, StatusTextIsDistinctForEveryStatus) {
  const Status all[] = {
      Status::kOk,          Status::kNullPointer,     Status::kBadShape,    Status::kShapeMismatch,
      Status::kBadArgument, Status::kScratchTooSmall, Status::kUnsupported, Status::kOverflow,
      Status::kBadModel,    Status::kCacheFull};
  const std::size_t n = sizeof all / sizeof all[0];
  for (std::size_t i = 0; i < n; ++i) {
    const char* t = attn::status_str(all[i]);
    ATTN_ASSERT_TRUE(t != nullptr);
    ATTN_EXPECT_TRUE(t[0] != '\0');
    for (std::size_t j = 0; j < i; ++j) {
      ATTN_EXPECT_TRUE(std::strcmp(t, attn::status_str(all[j])) != 0);
    }
  }
  // A value outside the enum (e.g. from a corrupt blob) still gets text.
  const char* unknown = attn::status_str(static_cast<Status>(99));
  ATTN_ASSERT_TRUE(unknown != nullptr);
  ATTN_EXPECT_TRUE(unknown[0] != '\0');
  const char* negative = attn::status_str(static_cast<Status>(-1));
  ATTN_ASSERT_TRUE(negative != nullptr);
}
