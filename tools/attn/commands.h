// The attn CLI's subcommands. Each add_* registers a subcommand and its flags
// on `parent`; the returned function runs it after parsing (it throws
// CliError on a bad input or engine status).
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace attn_cli {

using Runner = std::function<void()>;

// `attn demo`.
void add_demo(CLI::App* app, Runner* runner);

// `attn run <op>` for every op; `runner` is set to the parsed op's runner.
void add_run(CLI::App* app, Runner* runner);

// `attn bench <op>`: times one op on synthetic data (bench.cpp).
void add_bench(CLI::App* app, Runner* runner);

}  // namespace attn_cli
