// The attn CLI's int8 commands (int8_commands.cpp):
//   attn run softmax-s8                    TFLite int8 SOFTMAX on an int8 .npy
//   attn run sdpa --dtype int8 ...         int8 SDPA (the flags below are added
//                                          to the float `sdpa` subcommand)
//   attn run mha|luong-dot|luong-general|bahdanau --dtype int8   likewise
// Scales are parsed as float32 (strtof: decimal or hex float literals), zero
// points as integers in [-128, 127]; every error is a CliError (exit 2).
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "commands.h"
#include "common.h"

namespace attn_cli {

// The flags `attn run sdpa` takes for --dtype int8.
struct SdpaInt8Flags {
  std::string dtype = "f32";
  // Empty until given.
  std::optional<std::string> q_quant, k_quant, v_quant, scores_quant, out_quant;  // "S:Z"
  std::optional<std::string> beta;  // default (float)(1/sqrt(Dk))
  bool int8() const { return dtype == "int8"; }
};

// Adds --dtype, --q-quant, --k-quant, --v-quant, --scores-quant, --out-quant
// and --beta to the `sdpa` subcommand.
void add_sdpa_int8_flags(CLI::App* sdpa, SdpaInt8Flags* flags);

// With --dtype f32: throws if an int8-only flag was given.
void reject_int8_flags(const SdpaInt8Flags& flags);

// The inputs `sdpa` takes for both dtypes.
struct SdpaFiles {
  std::string q, k, v, out, probs_out;
  MaskInputs masks;
  bool scale_given = false;  // --scale is float only
};

// `attn run sdpa --dtype int8`.
void run_sdpa_s8(const SdpaFiles& files, const SdpaInt8Flags& flags);

// The flags `attn run luong-dot` / `luong-general` take for --dtype int8.
struct LuongInt8Flags {
  std::string dtype = "f32";
  // Empty until given. keys_proj and w_scales: luong-general only.
  std::optional<std::string> query_quant, keys_quant, keys_proj_quant, scores_quant,
      context_quant;                    // "S:Z"
  std::optional<std::string> beta;      // default 1
  std::optional<std::string> w_scales;  // float32 .npy [Dq] (or one value): W's per-channel scales
  bool int8() const { return dtype == "int8"; }
};

void add_luong_int8_flags(CLI::App* sub, LuongInt8Flags* flags, bool general);
void reject_int8_flags(const LuongInt8Flags& flags);

// The inputs `luong-dot` / `luong-general` take for both dtypes.
struct LuongFiles {
  std::string query, keys, out, probs_out, key_lengths;
  std::string w, b;  // luong-general: W [Dk,Dq] int8, b [Dq] int32 (optional)
};

// `attn run luong-dot --dtype int8` (general false) / `luong-general --dtype int8`.
void run_luong_s8(const LuongFiles& files, const LuongInt8Flags& flags, bool general);

// The flags `attn run bahdanau` takes for --dtype int8.
struct BahdanauInt8Flags {
  std::string dtype = "f32";
  // Empty until given ("S:Z").
  std::optional<std::string> query_quant, keys_quant, query_proj_quant, keys_proj_quant, sum_quant,
      scores_quant, context_quant;
  std::optional<std::string> w1_scales, w2_scales;  // float32 .npy [U] (or one value)
  std::optional<std::string> v_scale;               // float32
  std::optional<std::string> beta;                  // default 1
  bool int8() const { return dtype == "int8"; }
};

void add_bahdanau_int8_flags(CLI::App* bahdanau, BahdanauInt8Flags* flags);
void reject_int8_flags(const BahdanauInt8Flags& flags);

// The inputs `bahdanau` takes for both dtypes (int8: W1 [Dq,U], W2 [Dk,U],
// v [U] or [U,1] int8 in the Keras layout; b1, b2 int32 [U]; bv an int32).
struct BahdanauFiles {
  std::string query, keys, out, probs_out, key_lengths;
  std::string w1, b1, w2, b2, v;
  double bv = 0.0;
};

// `attn run bahdanau --dtype int8`.
void run_bahdanau_s8(const BahdanauFiles& files, const BahdanauInt8Flags& flags);

// The flags `attn run mha` takes for --dtype int8.
struct MhaInt8Flags {
  std::string dtype = "f32";
  // Empty until given ("S:Z"). key defaults to query, value to key.
  std::optional<std::string> query_quant, key_quant, value_quant, q_quant, k_quant, v_quant,
      scores_quant, attn_quant, out_quant;
  std::optional<std::string> beta;  // default (float)(1/sqrt(E/H))
  bool int8() const { return dtype == "int8"; }
};

void add_mha_int8_flags(CLI::App* mha, MhaInt8Flags* flags);
void reject_int8_flags(const MhaInt8Flags& flags);

// The inputs `mha` takes for both dtypes.
struct MhaFiles {
  std::string query, kv, value, weights_dir, out, probs_out;
  int heads = 0;
  bool per_head = false;
  MaskInputs masks;
};

// `attn run mha --dtype int8`.
void run_mha_s8(const MhaFiles& files, const MhaInt8Flags& flags);

// The flags and runner of `attn run softmax-s8` on its subcommand `sub`.
void add_softmax_s8(CLI::App* sub, Runner* runner);

}  // namespace attn_cli
