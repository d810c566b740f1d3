// The attn CLI's model-blob commands (info_command.cpp, model_commands.cpp):
//   attn info MODEL [--seq N] [--seq-kv N] [--batch B]
//       validates a blob made by tools/attn-convert with the engine's loader and
//       prints its summary: op, dtype, hyper-parameters, tensor table, parameter
//       and blob bytes, scratch for the given sizes, int8 activation parameters.
//   attn run mha|bahdanau|luong-general --model MODEL ...
//       runs the op with the model's weights (the flags below are added to the
//       float subcommands). int8 models take float32 inputs, quantized with the
//       model's calibrated parameters, and give float32 outputs, unless
//       --raw-int8: int8 .npy in, int8 .npy out.
// Every error is a CliError (exit 2) naming the file and the problem.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "attn/int8/quantize.h"
#include "attn/model.h"
#include "commands.h"
#include "common.h"

namespace attn_cli {

// A blob file in 64-byte-aligned memory, validated by the engine's loader.
struct LoadedModel {
  std::vector<unsigned char> storage;
  const unsigned char* data = nullptr;
  std::size_t size = 0;
  attn::Model model;
};

// Reads and validates `path`; throws "<path>: not a valid attn model blob: <reason>".
std::unique_ptr<LoadedModel> load_model(const std::string& path);

// An int8 input of a model run: int8 codes, with the file's shape.
struct QuantizedInput {
  std::string path;
  attn_npy::Array array;  // shape (and, with --raw-int8, the file itself)
  std::vector<int8_t> values;
  int rank() const { return static_cast<int>(array.shape.size()); }
  int64_t dim(int axis) const {
    return array.shape[static_cast<std::size_t>(axis < 0 ? rank() + axis : axis)];
  }
};

// The file itself with `raw` (an int8 .npy), else a float32 .npy quantized with
// q (round half away from zero, clamped to int8); rank in [min_rank, max_rank].
QuantizedInput load_s8_input(const std::string& path, int min_rank, int max_rank, bool raw,
                             const attn::QuantParams& q);

// The CLI's name of a model's op: "mha", "bahdanau", "luong-general".
std::string op_cli_name(attn::ModelOp op);

// `attn info`.
void add_info(CLI::App* app, Runner* runner);

// --model / --raw-int8 of `attn run <op>`.
struct ModelFlags {
  std::string path;
  bool raw_int8 = false;
  bool given() const { return !path.empty(); }
};

// Adds --model and --raw-int8 to a `run` subcommand. The options named in
// `weight_options` (e.g. "--weights", "--heads") stop being required on their
// own: exactly one of --model or them must be given (checked after parsing).
void add_model_flags(CLI::App* sub, ModelFlags* flags,
                     std::initializer_list<const char*> weight_options);

// The inputs of a model run, from the subcommand's own flags.
struct ModelRunFiles {
  std::string query;      // mha [B,Sq,E]/[Sq,E]; bahdanau/luong [B,Dq]/[Dq]
  std::string kv, value;  // mha cross-attention (default: self-attention)
  std::string keys;       // bahdanau / luong-general [B,T,Dk]/[T,Dk]
  std::string out, probs_out;
  bool per_head_probs = false;
  MaskInputs masks;
};

// Runs the model blob for `op` ("mha", "bahdanau", "luong-general").
void run_model(const std::string& op, const ModelRunFiles& files, const ModelFlags& flags);

}  // namespace attn_cli
