// The float32 ops of `attn run` (f32_commands.cpp): their flags and runners.
// run.cpp registers the flags (and the int8 and model flags beside them) in
// its op table. Every error is a CliError (exit 2) naming the file or flag.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "common.h"

namespace attn_cli {

// Flags shared by the ops that take masks.
struct MaskFlags {
  std::string mask;
  MaskInputs inputs;
  void add(CLI::App* sub, bool matrices) {
    if (matrices) {
      sub->add_option("--mask", mask,
                      "'causal' (look-ahead mask, offset by Skv-Sq when Skv > Sq), 'none', or "
                      "a .npy mask [Sq,Skv] or [B,Sq,Skv]: float32 = Keras convention (1 = "
                      "masked, adds -1e9*m), bool/uint8 = boolean mask (nonzero/True = masked)")
          ->type_name("causal|none|FILE");
      sub->add_option("--additive-mask", inputs.additive_path,
                      "float32 .npy [Sq,Skv] or [B,Sq,Skv] added to the scores as is "
                      "(PyTorch float attn_mask; -inf masks a key)");
    }
    sub->add_option("--key-lengths", inputs.key_lengths_path,
                    "int32 or int64 .npy [B]: key padding, keys j >= L[b] are masked");
  }
  MaskInputs resolved() const {
    MaskInputs in = inputs;
    if (!mask.empty()) parse_mask_flag(mask, &in);
    return in;
  }
};

struct SdpaFlags {
  std::string q, k, v, out, probs_out;
  std::optional<double> scale;
  MaskFlags masks;
};

struct MhaFlags {
  std::string query, kv, value, weights_dir, out, probs_out;
  int heads = 0;
  bool per_head = false;
  MaskFlags masks;
};

struct ContextFlags {
  std::string query, keys, out, probs_out, key_lengths;
  void add(CLI::App* sub) {
    sub->add_option("--query", query, "float32 (int8) .npy query [B,Dq] or [Dq] (batch 1)")
        ->required();
    sub->add_option("--keys", keys,
                    "float32 (int8) .npy keys/values (encoder outputs) [B,T,Dk] or [T,Dk]")
        ->required();
    sub->add_option("--out", out, "output .npy: context [B,Dk] (or [Dk])")->required();
    sub->add_option("--probs-out", probs_out,
                    "output .npy: attention probabilities [B,T] (or [T])");
    sub->add_option("--key-lengths", key_lengths,
                    "int32 or int64 .npy [B]: keys t >= L[b] are masked");
  }
};

struct BahdanauFlags {
  ContextFlags io;
  std::string w1, b1, w2, b2, v;
  double bv = 0.0;
};

struct LuongGeneralFlags {
  ContextFlags io;
  std::string w, b;
};

struct GeneralFlags {
  std::string x, wq, wk, wv, out, probs_out;
  std::optional<double> scale;
  MaskFlags masks;
};

// --scale: empty until given (the engine's 0 means its default 1/sqrt(Dk)).
void add_scale(CLI::App* sub, std::optional<double>* scale);

void run_sdpa(const SdpaFlags& f);
void run_mha(const MhaFlags& f);
void run_bahdanau(const BahdanauFlags& f);
void run_luong_dot(const ContextFlags& f);
void run_luong_general(const LuongGeneralFlags& f);
void run_general(const GeneralFlags& f);

}  // namespace attn_cli
