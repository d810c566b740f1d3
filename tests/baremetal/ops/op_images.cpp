// Firmware images for the footprint report and the no-heap proof.
//
// Compiled once per op with ATTN_OP=<n> (see CMakeLists.txt): the image calls
// just that op on a fixed representative shape, so flash / static RAM / stack
// of "this op" = this image minus the baseline image (ATTN_OP=0, the platform
// alone). ATTN_OP=99 calls every op: the no-heap image, whose symbol table must
// hold no malloc/free/new/delete/exception allocation.
//
// Inputs live in .bss and are filled at run time, outputs go to volatile sinks,
// so nothing is constant-folded away. Each op's scratch size is exported as the
// absolute symbol attn_fp_scratch_<op> (read by scripts/footprint.py).
#include <cstddef>
#include <cstdint>

#include "attn/attn.h"
#include "attn/bahdanau_s8.h"
#include "attn/luong_s8.h"
#include "attn/mha_s8.h"
#include "attn/model.h"
#include "attn/model_s8.h"
#include "attn/platform.h"
#include "attn/sdpa_s8.h"
#include "decode_images.h"

#ifndef ATTN_OP
#define ATTN_OP 99
#endif

#define ATTN_RUN(n) (ATTN_OP == (n) || ATTN_OP == 99)

// Records a compile-time scratch size in the symbol table.
#define ATTN_EXPORT_SCRATCH(name, bytes)                                            \
  __asm__ volatile(".global attn_fp_scratch_" #name "\n.set attn_fp_scratch_" #name \
                   ", %c0\n" ::"i"(bytes))

namespace {

// Shapes (the README's footprint table uses these).
constexpr int32_t kS = 16;  // sequence length
constexpr int32_t kD = 64;  // head / feature dim
constexpr int32_t kE = 64;  // MHA embed dim
constexpr int32_t kH = 4;   // MHA heads
constexpr int32_t kU = 32;  // Bahdanau units

float g_a[kS * kD * 3];
float g_b[kS * kD * 3];
float g_c[kS * kD * 3];
float g_w[4 * kE * kE];
float g_bias[4 * kE];
float g_out[kS * kD * 3];
volatile float g_sink;
volatile int g_status_sink;

void fill(float* p, std::size_t n, uint32_t seed) {
  for (std::size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    p[i] = static_cast<float>(static_cast<int32_t>(seed >> 9) - (1 << 22)) * (1.0f / 4194304.0f);
  }
}

[[maybe_unused]] int check(attn::Status st, const char* op) {
  g_status_sink = static_cast<int>(st);
  g_sink = g_out[0];
  attn::platform::print("%s: %s\n", op, attn::status_str(st));
  return st == attn::Status::kOk ? 0 : 1;
}

void fill_float_inputs() {
  fill(g_a, sizeof g_a / sizeof(float), 1);
  fill(g_b, sizeof g_b / sizeof(float), 2);
  fill(g_c, sizeof g_c / sizeof(float), 3);
  fill(g_w, sizeof g_w / sizeof(float), 4);
  fill(g_bias, sizeof g_bias / sizeof(float), 5);
  g_sink = g_out[0];  // the baseline holds the same buffers as every op image
}

// ------------------------------------------------------------- float ops

#if ATTN_RUN(1)
int run_sdpa_f32() {
  constexpr attn::SdpaShape shape{1, kS, kS, kD, kD};
  static attn::Workspace<attn::sdpa_f32_scratch_bytes(shape)> ws;
  ATTN_EXPORT_SCRATCH(sdpa_f32, attn::sdpa_f32_scratch_bytes(shape));
  attn::SdpaF32Args args;
  args.q = g_a;
  args.k = g_b;
  args.v = g_c;
  args.out = g_out;
  args.mask.causal = true;
  return check(attn::sdpa_f32(shape, args, ws.scratch()), "sdpa_f32");
}
#endif

#if ATTN_RUN(2)
int run_mha_f32() {
  constexpr attn::MhaShape shape{1, kS, kS, kE, kH, 0, 0};
  static attn::Workspace<attn::mha_f32_scratch_bytes(shape)> ws;
  ATTN_EXPORT_SCRATCH(mha_f32, attn::mha_f32_scratch_bytes(shape));
  attn::MhaF32Weights w;
  w.in_proj_weight = g_w;
  w.in_proj_bias = g_bias;
  w.out_proj_weight = g_w + 3 * kE * kE;
  w.out_proj_bias = g_bias + 3 * kE;
  attn::MhaF32Args args;
  args.query = g_a;
  args.key = g_b;
  args.value = g_c;
  args.out = g_out;
  return check(attn::mha_f32(shape, w, args, ws.scratch()), "mha_f32");
}
#endif

#if ATTN_RUN(3)
int run_bahdanau_f32() {
  constexpr attn::BahdanauShape shape{1, kS, kD, kD, kU};
  static attn::Workspace<attn::bahdanau_f32_scratch_bytes(shape)> ws;
  ATTN_EXPORT_SCRATCH(bahdanau_f32, attn::bahdanau_f32_scratch_bytes(shape));
  attn::BahdanauF32Weights w;
  w.w1 = g_w;
  w.b1 = g_bias;
  w.w2 = g_w + kD * kU;
  w.b2 = g_bias + kU;
  w.v = g_bias + 2 * kU;
  attn::BahdanauF32Args args;
  args.query = g_a;
  args.keys = g_b;
  args.context = g_out;
  return check(attn::bahdanau_f32(shape, w, args, ws.scratch()), "bahdanau_f32");
}
#endif

#if ATTN_RUN(4)
int run_luong_dot_f32() {
  constexpr attn::LuongDotShape shape{1, kS, kD};
  static attn::Workspace<attn::luong_dot_f32_scratch_bytes(shape)> ws;
  ATTN_EXPORT_SCRATCH(luong_dot_f32, attn::luong_dot_f32_scratch_bytes(shape));
  attn::LuongF32Args args;
  args.query = g_a;
  args.keys = g_b;
  args.context = g_out;
  return check(attn::luong_dot_f32(shape, args, ws.scratch()), "luong_dot_f32");
}
#endif

#if ATTN_RUN(5)
int run_luong_general_f32() {
  constexpr attn::LuongGeneralShape shape{1, kS, kD, kD};
  static attn::Workspace<attn::luong_general_f32_scratch_bytes(shape)> ws;
  ATTN_EXPORT_SCRATCH(luong_general_f32, attn::luong_general_f32_scratch_bytes(shape));
  attn::LuongGeneralF32Weights w;
  w.w = g_w;
  w.b = g_bias;
  attn::LuongF32Args args;
  args.query = g_a;
  args.keys = g_b;
  args.context = g_out;
  return check(attn::luong_general_f32(shape, w, args, ws.scratch()), "luong_general_f32");
}
#endif

#if ATTN_RUN(6)
int run_general_attention_f32() {
  constexpr attn::GeneralAttentionShape shape{1, kS, kD, kD, kD};
  static attn::Workspace<attn::general_attention_f32_scratch_bytes(shape)> ws;
  ATTN_EXPORT_SCRATCH(general_attention_f32, attn::general_attention_f32_scratch_bytes(shape));
  attn::GeneralAttentionF32Args args;
  args.x = g_a;
  args.out = g_out;
  return check(attn::general_attention_f32(shape, {g_w, g_w + kD * kD, g_w + 2 * kD * kD}, args,
                                           ws.scratch()),
               "general_attention_f32");
}
#endif

// -------------------------------------------------------------- int8 ops

#if ATTN_RUN(7)
int run_sdpa_s8() {
  constexpr attn::SdpaShape shape{1, kS, kS, kD, kD};
  static attn::Workspace<attn::sdpa_s8_scratch_bytes(shape)> ws;
  ATTN_EXPORT_SCRATCH(sdpa_s8, attn::sdpa_s8_scratch_bytes(shape));
  static int8_t q[kS * kD], k[kS * kD], v[kS * kD], out[kS * kD];
  for (int i = 0; i < kS * kD; ++i) {
    q[i] = static_cast<int8_t>(g_a[i] * 100.0f);
    k[i] = static_cast<int8_t>(g_b[i] * 100.0f);
    v[i] = static_cast<int8_t>(g_c[i] * 100.0f);
  }
  attn::SdpaS8Quant quant;
  quant.q = {0.01f, 0};
  quant.k = {0.01f, 0};
  quant.v = {0.01f, 0};
  quant.scores = {0.05f, 0};
  quant.out = {0.01f, 0};
  static attn::SdpaS8Params params;  // holds the 1 KiB softmax exp table
  attn::Status st = attn::sdpa_s8_prepare(shape, quant, &params);
  if (st == attn::Status::kOk) {
    attn::SdpaS8Args args;
    args.q = q;
    args.k = k;
    args.v = v;
    args.out = out;
    st = attn::sdpa_s8(params, args, ws.scratch());
  }
  g_sink = out[0];
  return check(st, "sdpa_s8");
}
#endif

#if ATTN_RUN(8)
int run_softmax_s8() {
  ATTN_EXPORT_SCRATCH(softmax_s8, 0);
  static int8_t in[kS * kS], out[kS * kS];
  for (int i = 0; i < kS * kS; ++i) in[i] = static_cast<int8_t>(g_a[i] * 127.0f);
  static attn::SoftmaxS8Params params;
  attn::Status st = attn::softmax_s8_prepare(0.05f, 1.0f, &params);
  if (st == attn::Status::kOk) st = attn::softmax_s8({kS, kS}, params, {in, out});
  g_sink = out[0];
  return check(st, "softmax_s8");
}
#endif

#if ATTN_RUN(9) || ATTN_RUN(10) || ATTN_RUN(11) || ATTN_RUN(13)
// The int8 layer ops' inputs: weights, per-channel scales, biases, two
// activations and an output, derived from the float inputs.
int8_t g_w8[4 * kE * kE], g_x8[kS * kE], g_y8[kS * kE], g_z8[kS * kE];
float g_scales[4 * kE];
int32_t g_bias32[4 * kE];

void fill_int8_layer_inputs() {
  for (int i = 0; i < 4 * kE * kE; ++i) {
    g_w8[i] = static_cast<int8_t>(g_w[i % (4 * kE * kE)] * 127.0f);
  }
  for (int i = 0; i < kS * kE; ++i) {
    g_x8[i] = static_cast<int8_t>(g_a[i] * 100.0f);
    g_y8[i] = static_cast<int8_t>(g_b[i] * 100.0f);
  }
  for (int i = 0; i < 4 * kE; ++i) {
    g_scales[i] = 0.01f;
    g_bias32[i] = static_cast<int32_t>(g_bias[i] * 1000.0f);
  }
  g_sink = static_cast<float>(g_w8[0]) + g_scales[0] + static_cast<float>(g_bias32[0]);
}
#endif

#if ATTN_RUN(9)
int run_mha_s8() {
  constexpr attn::MhaShape shape{1, kS, kS, kE, kH, 0, 0};
  static attn::Workspace<attn::mha_s8_scratch_bytes(shape)> ws;
  ATTN_EXPORT_SCRATCH(mha_s8, attn::mha_s8_scratch_bytes(shape));
  attn::MhaS8Quant quant;
  quant.query = quant.key = quant.value = {0.01f, 0};
  quant.q = quant.k = quant.v = {0.05f, 0};
  quant.scores = {0.1f, 0};
  quant.attn = {0.05f, 0};
  quant.out = {0.05f, 0};
  attn::MhaS8Weights w;
  w.q = {g_w8, g_scales, g_bias32};
  w.k = {g_w8 + kE * kE, g_scales + kE, g_bias32 + kE};
  w.v = {g_w8 + 2 * kE * kE, g_scales + 2 * kE, g_bias32 + 2 * kE};
  w.out = {g_w8 + 3 * kE * kE, g_scales + 3 * kE, g_bias32 + 3 * kE};
  static attn::QuantizedMultiplier channels[attn::mha_s8_channel_count(shape)];
  static attn::MhaS8Params params;
  attn::Status st = attn::mha_s8_prepare(shape, quant, w, channels, &params);
  if (st == attn::Status::kOk) {
    attn::MhaS8Args args;
    args.query = g_x8;
    args.key = g_y8;
    args.value = g_y8;
    args.out = g_z8;
    st = attn::mha_s8(params, args, ws.scratch());
  }
  g_sink = g_z8[0];
  return check(st, "mha_s8");
}
#endif

#if ATTN_RUN(10) || ATTN_RUN(11)
// Luong dot and general share the quantization, the parameters and the args.
attn::LuongS8Params g_luong_params;

attn::LuongS8Quant luong_s8_quant() {
  attn::LuongS8Quant quant;
  quant.query = quant.keys = {0.01f, 0};
  quant.keys_proj = {0.05f, 0};
  quant.scores = {0.1f, 0};
  quant.context = {0.01f, 0};
  return quant;
}

attn::LuongS8Args luong_s8_args() {
  attn::LuongS8Args args;
  args.query = g_x8;
  args.keys = g_y8;
  args.context = g_z8;
  return args;
}
#endif

#if ATTN_RUN(10)
int run_luong_dot_s8() {
  constexpr attn::LuongDotShape shape{1, kS, kD};
  static attn::Workspace<attn::luong_dot_s8_scratch_bytes(shape)> ws;
  ATTN_EXPORT_SCRATCH(luong_dot_s8, attn::luong_dot_s8_scratch_bytes(shape));
  attn::Status st = attn::luong_dot_s8_prepare(shape, luong_s8_quant(), &g_luong_params);
  if (st == attn::Status::kOk) st = attn::luong_s8(g_luong_params, luong_s8_args(), ws.scratch());
  g_sink = g_z8[0];
  return check(st, "luong_dot_s8");
}
#endif

#if ATTN_RUN(11)
int run_luong_general_s8() {
  constexpr attn::LuongGeneralShape shape{1, kS, kD, kD};
  static attn::Workspace<attn::luong_general_s8_scratch_bytes(shape)> ws;
  ATTN_EXPORT_SCRATCH(luong_general_s8, attn::luong_general_s8_scratch_bytes(shape));
  static attn::QuantizedMultiplier channels[kD];
  attn::Status st = attn::luong_general_s8_prepare(
      shape, luong_s8_quant(), {g_w8, g_scales, g_bias32}, channels, &g_luong_params);
  if (st == attn::Status::kOk) st = attn::luong_s8(g_luong_params, luong_s8_args(), ws.scratch());
  g_sink = g_z8[0];
  return check(st, "luong_general_s8");
}
#endif

#if ATTN_RUN(13)
int run_bahdanau_s8() {
  constexpr attn::BahdanauShape shape{1, kS, kD, kD, kU};
  static attn::Workspace<attn::bahdanau_s8_scratch_bytes(shape)> ws;
  ATTN_EXPORT_SCRATCH(bahdanau_s8, attn::bahdanau_s8_scratch_bytes(shape));
  attn::BahdanauS8Quant quant;
  quant.query = quant.keys = {0.01f, 0};
  quant.query_proj = quant.keys_proj = {0.05f, 0};
  quant.sum = {0.1f, 0};
  quant.scores = {0.1f, 0};
  quant.context = {0.01f, 0};
  attn::BahdanauS8Weights w;
  w.w1 = {g_w8, g_scales, g_bias32};
  w.w2 = {g_w8 + kU * kD, g_scales + kU, g_bias32 + kU};
  w.v = {g_w8 + 2 * kU * kD, g_scales + 2 * kU, g_bias32 + 2 * kU};
  static attn::QuantizedMultiplier channels[attn::bahdanau_s8_channel_count(shape)];
  static attn::BahdanauS8Params params;  // holds the TANH table and the softmax exp table
  attn::Status st = attn::bahdanau_s8_prepare(shape, quant, w, channels, &params);
  if (st == attn::Status::kOk) {
    attn::BahdanauS8Args args;
    args.query = g_x8;
    args.keys = g_y8;
    args.context = g_z8;
    st = attn::bahdanau_s8(params, args, ws.scratch());
  }
  g_sink = g_z8[0];
  return check(st, "bahdanau_s8");
}
#endif

// ----------------------------------------------------------------- model

#if ATTN_RUN(12)
#if ATTN_OP == 99
// The model runners, linked into the all-ops image and called on a model that
// failed to load (their error paths run; the no-heap check sees their code).
void call_model_runners(const attn::Model& model) {
  attn::MhaF32Args mha_args;
  attn::BahdanauF32Args bahdanau_args;
  attn::LuongF32Args luong_args;
  static attn::MhaS8Params mha_params;
  static attn::QuantizedMultiplier channels[4];
  static attn::Workspace<1024> ws;
  g_status_sink =
      static_cast<int>(attn::model_run_mha_f32(model, 1, 1, 1, mha_args, ws.scratch())) +
      static_cast<int>(attn::model_run_bahdanau_f32(model, 1, 1, bahdanau_args, ws.scratch())) +
      static_cast<int>(attn::model_run_luong_general_f32(model, 1, 1, luong_args, ws.scratch())) +
      static_cast<int>(attn::model_mha_s8_prepare(model, 1, 1, 1, channels, 4, &mha_params));
}
#endif

// The model loader on a blob that fails validation (the image has no model):
// an error status is expected.
int run_model_load() {
  ATTN_EXPORT_SCRATCH(model_load, 0);
  static unsigned char blob[64];
  attn::Model model;
  attn::ModelError error{};
  const attn::Status st = attn::model_load(blob, sizeof blob, &model, &error);
  attn::platform::print("model_load on an empty blob: %s (%s)\n", attn::status_str(st),
                        attn::model_error_str(error));
#if ATTN_OP == 99
  call_model_runners(model);
#endif
  return st == attn::Status::kOk ? 1 : 0;
}
#endif

}  // namespace

int main() {
  fill_float_inputs();
  int failures = 0;
#if ATTN_RUN(1)
  failures += run_sdpa_f32();
#endif
#if ATTN_RUN(2)
  failures += run_mha_f32();
#endif
#if ATTN_RUN(3)
  failures += run_bahdanau_f32();
#endif
#if ATTN_RUN(4)
  failures += run_luong_dot_f32();
#endif
#if ATTN_RUN(5)
  failures += run_luong_general_f32();
#endif
#if ATTN_RUN(6)
  failures += run_general_attention_f32();
#endif
#if ATTN_RUN(7)
  failures += run_sdpa_s8();
#endif
#if ATTN_RUN(8)
  failures += run_softmax_s8();
#endif
#if ATTN_RUN(9) || ATTN_RUN(10) || ATTN_RUN(11) || ATTN_RUN(13)
  fill_int8_layer_inputs();
#endif
#if ATTN_RUN(9)
  failures += run_mha_s8();
#endif
#if ATTN_RUN(10)
  failures += run_luong_dot_s8();
#endif
#if ATTN_RUN(11)
  failures += run_luong_general_s8();
#endif
#if ATTN_RUN(13)
  failures += run_bahdanau_s8();
#endif
#if ATTN_RUN(12)
  failures += run_model_load();
#endif
  failures += run_mha_decode_f32_image() + run_mha_decode_s8_image();
  attn::platform::print("ops done, %d failed\n", failures);
  return failures;
}
