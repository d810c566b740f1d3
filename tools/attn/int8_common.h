// Helpers of the attn CLI's int8 commands (int8_commands.cpp,
// context_s8_commands.cpp): float32 and SCALE:ZERO_POINT flag parsing,
// per-channel scale files, int8 outputs. Every error is a CliError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "attn/int8/quantize.h"
#include "common.h"

namespace attn_cli {

// "SCALE:ZERO_POINT", the type name of every --*-quant flag in --help.
inline constexpr const char* kQuantFormat = "SCALE:ZERO_POINT";

// Adds `--dtype f32|int8` to an op's subcommand.
void add_dtype_flag(CLI::App* sub, std::string* dtype);

// An optional string flag and its name.
using NamedFlag = std::pair<const char*, const std::optional<std::string>*>;
// Throws "<flag> is required with --dtype int8" for the first one not given.
void require_flags(const std::vector<NamedFlag>& flags);
// Throws "<flag> needs --dtype int8" for the first one given.
void reject_flags(const std::vector<NamedFlag>& flags);

// A float32 printed with 9 significant digits (round-trips).
std::string f32_str(float v);

// A positive finite float32 given as `flag text` (decimal or hex literal).
float parse_positive(const std::string& flag, const std::string& text);

// "S:Z": S a positive finite float32, Z an integer in [-128, 127].
attn::QuantParams parse_quant(const std::string& flag, const std::string& text);

// A float32 .npy of `count` per-channel scales, or one value ([1] or []) for
// the whole tensor (repeated `count` times); each positive and finite. `why`
// names the tensor in errors.
std::vector<float> load_scales_file(const std::string& path, std::size_t count,
                                    const std::string& why);

// An int32 .npy bias of shape [count]; `why` names it in errors.
std::vector<int32_t> load_bias_file(const std::string& path, int64_t count, const std::string& why);

// An int8 output: file, shape, data.
struct S8Output {
  std::string path;
  std::vector<int64_t> shape;
  const int8_t* data;
};

// Writes every output with a path as int8 (|i1); on a failure removes the
// ones already written, so an error leaves no output file.
void write_s8_outputs(const std::vector<S8Output>& outputs);

}  // namespace attn_cli
