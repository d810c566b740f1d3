// `attn run <op>`: one engine op on .npy inputs, .npy outputs. The ops are a
// table (kRunOps): name, description, and a struct per op holding its flags
// and its runner for each number format (float32 in f32_commands.cpp, int8 in
// int8_commands.cpp / context_s8_commands.cpp, model blobs in
// model_commands.cpp).
#include <memory>

#include "commands.h"
#include "common.h"
#include "decode_commands.h"
#include "f32_commands.h"
#include "int8_commands.h"
#include "model_commands.h"
#include "threads_flag.h"

namespace attn_cli {
namespace {

// ------------------------------------------------------------ the op table
// Each op is a struct holding its parsed flags: add() registers them on the
// op's subcommand, run_f32() (and run_int8() when kInt8, run_model() when
// kModel) runs one number format. run_form() picks the format the flags ask
// for, the same way for every op.

template <class Op>
void run_form(const Op& op) {
  bool int8 = false;
  if constexpr (Op::kInt8) int8 = op.i8.int8();
  if constexpr (Op::kModel) {
    if (op.model.given()) {
      if (int8) throw CliError("--model: the dtype and quantization come from the model");
      if constexpr (Op::kInt8) reject_int8_flags(op.i8);
      op.run_model();
      return;
    }
  }
  if constexpr (Op::kInt8) {
    if (int8) {
      op.run_int8();
      return;
    }
    reject_int8_flags(op.i8);
  }
  op.run_f32();
}

struct SdpaOp {
  static constexpr bool kInt8 = true, kModel = false;
  SdpaFlags f;
  SdpaInt8Flags i8;
  void add(CLI::App* s) {
    s->add_option("--q", f.q, "float32 (int8 with --dtype int8) .npy queries [B,Sq,Dk] or [Sq,Dk]")
        ->required();
    s->add_option("--k", f.k, "float32 (int8) .npy keys [B,Skv,Dk] or [Skv,Dk]")->required();
    s->add_option("--v", f.v, "float32 (int8) .npy values [B,Skv,Dv] or [Skv,Dv]")->required();
    add_scale(s, &f.scale);
    add_sdpa_int8_flags(s, &i8);
    f.masks.add(s, true);
    s->add_option("--out", f.out, "output .npy [B,Sq,Dv] (or [Sq,Dv])")->required();
    s->add_option("--probs-out", f.probs_out,
                  "output .npy: attention probabilities [B,Sq,Skv] (or [Sq,Skv])");
  }
  void run_f32() const { run_sdpa(f); }
  void run_int8() const {
    run_sdpa_s8({f.q, f.k, f.v, f.out, f.probs_out, f.masks.resolved(), f.scale.has_value()}, i8);
  }
};

struct MhaOp {
  static constexpr bool kInt8 = true, kModel = true;
  MhaFlags f;
  MhaInt8Flags i8;
  ModelFlags model;
  void add(CLI::App* s) {
    s->add_option("--query", f.query, "float32 (int8) .npy query [B,Sq,E] or [Sq,E]")->required();
    s->add_option("--kv", f.kv,
                  "float32 (int8) .npy keys (and values) [B,Skv,kdim] or [Skv,kdim] for "
                  "cross-attention (default: the query, i.e. self-attention)");
    s->add_option("--value", f.value,
                  "float32 (int8) .npy values [B,Skv,vdim] when they differ from --kv");
    s->add_option("--weights", f.weights_dir,
                  "directory of state_dict .npy files: in_proj_weight.npy [3E,E] (or "
                  "q_proj_weight.npy [E,E], k_proj_weight.npy [E,kdim], v_proj_weight.npy "
                  "[E,vdim]), optional in_proj_bias.npy [3E], out_proj.weight.npy [E,E], "
                  "optional out_proj.bias.npy [E] (int8: see CLI.md)")
        ->required();
    s->add_option("--heads", f.heads, "number of heads H (must divide E)")->required();
    f.masks.add(s, true);
    s->add_option("--out", f.out, "output .npy [B,Sq,E] (or [Sq,E])")->required();
    s->add_option("--probs-out", f.probs_out,
                  "output .npy: attention probabilities averaged over heads [B,Sq,Skv] "
                  "(PyTorch's attention weights, its default), or per head [B,H,Sq,Skv] with "
                  "--per-head-probs");
    s->add_flag("--per-head-probs", f.per_head,
                "write per-head probabilities [B,H,Sq,Skv] (average_attn_weights=False)");
    add_mha_int8_flags(s, &i8);
    add_model_flags(s, &model, {"--weights", "--heads"});
  }
  void run_f32() const { run_mha(f); }
  void run_int8() const {
    run_mha_s8({f.query, f.kv, f.value, f.weights_dir, f.out, f.probs_out, f.heads, f.per_head,
                f.masks.resolved()},
               i8);
  }
  void run_model() const {
    attn_cli::run_model(
        "mha", {f.query, f.kv, f.value, "", f.out, f.probs_out, f.per_head, f.masks.resolved()},
        model);
  }
};

// The model runs of bahdanau and luong-general (query, keys, key lengths).
void run_context_model(const char* op, const ContextFlags& io, const ModelFlags& model) {
  MaskInputs masks;
  masks.key_lengths_path = io.key_lengths;
  run_model(op, {io.query, "", "", io.keys, io.out, io.probs_out, false, masks}, model);
}

struct BahdanauOp {
  static constexpr bool kInt8 = true, kModel = true;
  BahdanauFlags f;
  BahdanauInt8Flags i8;
  ModelFlags model;
  void add(CLI::App* s) {
    f.io.add(s);
    s->add_option("--w1", f.w1, "float32 .npy W1 [Dq,U] (int8 with --dtype int8)")->required();
    s->add_option("--b1", f.b1, "float32 .npy b1 [U] (default 0; int32 with --dtype int8)");
    s->add_option("--w2", f.w2, "float32 .npy W2 [Dk,U] (int8 with --dtype int8)")->required();
    s->add_option("--b2", f.b2, "float32 .npy b2 [U] (default 0; int32 with --dtype int8)");
    s->add_option("--v", f.v,
                  "float32 .npy v [U] or [U,1] (Keras Dense(1) kernel; int8 with "
                  "--dtype int8)")
        ->required();
    s->add_option("--bv", f.bv,
                  "bias of the Dense(1) score layer, a number (default 0; an "
                  "int32 integer with --dtype int8)");
    add_bahdanau_int8_flags(s, &i8);
    add_model_flags(s, &model, {"--w1", "--w2", "--v"});
  }
  void run_f32() const { run_bahdanau(f); }
  void run_int8() const {
    run_bahdanau_s8({f.io.query, f.io.keys, f.io.out, f.io.probs_out, f.io.key_lengths, f.w1, f.b1,
                     f.w2, f.b2, f.v, f.bv},
                    i8);
  }
  void run_model() const { run_context_model("bahdanau", f.io, model); }
};

struct LuongDotOp {
  static constexpr bool kInt8 = true, kModel = false;
  ContextFlags f;
  LuongInt8Flags i8;
  void add(CLI::App* s) {
    f.add(s);
    add_luong_int8_flags(s, &i8, false);
  }
  void run_f32() const { run_luong_dot(f); }
  void run_int8() const {
    run_luong_s8({f.query, f.keys, f.out, f.probs_out, f.key_lengths, "", ""}, i8, false);
  }
};

struct LuongGeneralOp {
  static constexpr bool kInt8 = true, kModel = true;
  LuongGeneralFlags f;
  LuongInt8Flags i8;
  ModelFlags model;
  void add(CLI::App* s) {
    f.io.add(s);
    s->add_option("--w", f.w,
                  "float32 .npy W [Dk,Dq] (Keras Dense on the keys; int8 with "
                  "--dtype int8)")
        ->required();
    s->add_option("--b", f.b,
                  "float32 .npy b [Dq] (default 0; cancels in the softmax; int32 "
                  "with --dtype int8, where it does not cancel)");
    add_luong_int8_flags(s, &i8, true);
    add_model_flags(s, &model, {"--w"});
  }
  void run_f32() const { run_luong_general(f); }
  void run_int8() const {
    run_luong_s8({f.io.query, f.io.keys, f.io.out, f.io.probs_out, f.io.key_lengths, f.w, f.b}, i8,
                 true);
  }
  void run_model() const { run_context_model("luong-general", f.io, model); }
};

struct GeneralOp {
  static constexpr bool kInt8 = false, kModel = false;
  GeneralFlags f;
  void add(CLI::App* s) {
    s->add_option("--x", f.x, "float32 .npy inputs X [B,S,In] or [S,In]")->required();
    s->add_option("--wq", f.wq, "float32 .npy W_Q [In,Dk]")->required();
    s->add_option("--wk", f.wk, "float32 .npy W_K [In,Dk]")->required();
    s->add_option("--wv", f.wv, "float32 .npy W_V [In,Dv]")->required();
    add_scale(s, &f.scale);
    f.masks.add(s, true);
    s->add_option("--out", f.out, "output .npy [B,S,Dv] (or [S,Dv])")->required();
    s->add_option("--probs-out", f.probs_out,
                  "output .npy: attention probabilities [B,S,S] (or [S,S])");
  }
  void run_f32() const { run_general(f); }
};

// Registers Op's flags on `sub`; after parsing, `runner` runs the chosen form.
template <class Op>
void add_op(CLI::App* sub, Runner* runner) {
  auto op = std::make_shared<Op>();
  op->add(sub);
  sub->callback([op, runner] { *runner = [op] { run_form(*op); }; });
}

// `attn run <name>`: description (the subcommand's help) and flags + runner.
struct RunOp {
  const char* name;
  const char* description;
  void (*add)(CLI::App* sub, Runner* runner);
};

const RunOp kRunOps[] = {
    {"sdpa",
     "Scaled dot-product attention: O = softmax(Q K^T * scale + mask) V. Q [B,Sq,Dk], "
     "K [B,Skv,Dk], V [B,Skv,Dv]; rank-2 arrays mean batch 1. float32, or TFLite-exact int8 "
     "with --dtype int8",
     add_op<SdpaOp>},
    {"mha",
     "Multi-head attention with PyTorch nn.MultiheadAttention weights (batch_first=True): "
     "self-attention, or cross-attention with --kv. float32, int8 (--dtype int8) or a model "
     "blob (--model)",
     add_op<MhaOp>},
    {"mha-decode",
     "Token-by-token multi-head attention over a KV cache: the tokens X [T,E] go through the "
     "decoder step --chunk tokens per call (1 = pure decode); the output equals one-shot causal "
     "attention (a band mask with --window) whatever the chunking. Llama-style or PyTorch "
     "weights, grouped-query heads, RoPE, f32/f16 cache; or a model blob (--model, float or "
     "int8 with an int8 cache)",
     add_mha_decode},
    {"bahdanau",
     "Bahdanau (additive) attention, Keras Dense layout (x @ W + b): e_t = v . tanh(q W1 + b1 + "
     "h_t W2 + b2) + bv, context = sum_t softmax(e)_t h_t. float32, int8 (--dtype int8) or a "
     "model blob (--model)",
     add_op<BahdanauOp>},
    {"luong-dot",
     "Luong dot attention: e_t = q . h_t, context = sum_t softmax(e)_t h_t (Dq == Dk). float32 "
     "or int8 (--dtype int8)",
     add_op<LuongDotOp>},
    {"luong-general",
     "Luong general attention: e_t = q . (h_t W + b), context = sum_t softmax(e)_t h_t. float32, "
     "int8 (--dtype int8) or a model blob (--model)",
     add_op<LuongGeneralOp>},
    {"general",
     "General attention (seed example): Q = X Wq, K = X Wk, V = X Wv, O = softmax(Q K^T * "
     "scale + mask) V. float32",
     add_op<GeneralOp>},
    {"softmax-s8",
     "int8 softmax over the last axis, bit-identical to TensorFlow Lite's SOFTMAX: int8 in "
     "(scale --input-scale; its zero point cancels), int8 out with scale 1/256 and zero point "
     "-128",
     add_softmax_s8},
};

}  // namespace

void add_run(CLI::App* app, Runner* runner) {
  CLI::App* run = app->add_subcommand(
      "run",
      "Run one op on C-order .npy inputs and write .npy outputs: float32, TFLite-exact "
      "int8 (softmax-s8; sdpa, mha, luong-dot, luong-general, bahdanau with --dtype "
      "int8), or a model blob from attn-convert (mha, mha-decode, bahdanau, "
      "luong-general --model)");
  run->require_subcommand(1);
  for (const RunOp& op : kRunOps) {
    CLI::App* sub = run->add_subcommand(op.name, op.description);
    op.add(sub, runner);
    add_threads_flag(sub);
  }
  // Name the value of every string flag FILE (DIR for --weights) in --help.
  for (CLI::App* sub : run->get_subcommands({})) {
    for (CLI::Option* o : sub->get_options({})) {
      if (o->get_type_name() == "TEXT") o->type_name(o->get_name() == "--weights" ? "DIR" : "FILE");
    }
  }
}

}  // namespace attn_cli
