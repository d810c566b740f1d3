// `attn run mha-decode` (decode_commands.cpp): token-by-token decoding of a
// sequence through a KV cache, chunk by chunk, with float weights from a
// directory of .npy files or a model blob (float or int8) from
// tools/attn-convert; and the decoder lines of `attn info`.
// Every error is a CliError (exit 2) naming the file or flag; no output file
// is written unless every chunk ran.
#pragma once

#include <CLI/CLI.hpp>

#include "attn/model.h"
#include "commands.h"

namespace attn_cli {

// Registers the flags of `attn run mha-decode` on `sub`.
void add_mha_decode(CLI::App* sub, Runner* runner);

// `attn info` of an mha_decode model: hyper-parameters, cache bytes per cache
// element, scratch for `tokens` new tokens per call.
void print_decode_params(const attn::Model& m);
void print_decode_memory(const attn::Model& m, int tokens);

}  // namespace attn_cli
