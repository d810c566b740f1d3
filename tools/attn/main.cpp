// attn: command-line front end of the attention engine.
//   attn demo            the seed worked example and a short run of every op
//   attn run <op> ...    one op on .npy files (see CLI.md)
//   attn info MODEL      a model blob's summary
//   attn bench <op> ...  time one op on synthetic data on this machine
// Exit codes: 0 success, 2 any error (usage, bad input file, engine status).
// A new subcommand is one add_* function (commands.h) and one line in kCommands.
#include <cstdio>
#include <new>

#include <CLI/CLI.hpp>

#include "commands.h"
#include "common.h"
#include "model_commands.h"

namespace {

// The subcommands, in --help order.
constexpr void (*kCommands[])(CLI::App*, attn_cli::Runner*) = {
    attn_cli::add_demo,   // attn demo (demo.cpp)
    attn_cli::add_run,    // attn run <op> (run.cpp)
    attn_cli::add_info,   // attn info MODEL (model_commands.cpp)
    attn_cli::add_bench,  // attn bench <op> (bench.cpp)
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "attn: allocation-free attention engine, command-line front end.\n"
      "Runs the engine's ops on NumPy .npy files: float32, TFLite-exact int8, or a "
      "model blob from attn-convert; inspects model blobs; times ops on this machine. "
      "Exit code 0 on success, 2 on any error.",
      "attn"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Print help for every subcommand and exit");
  // Usage errors: one line on stderr, like every other error of the tool.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return std::string("attn: ") + e.what() + " (see --help)\n";
  });
  attn_cli::Runner runner;
  for (const auto add : kCommands) add(&app, &runner);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    if (runner) runner();
  } catch (const attn_cli::CliError& e) {
    std::fprintf(stderr, "attn: %s\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "attn: out of memory\n");
    return 2;
  }
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "attn: error writing to standard output\n");
    return 2;
  }
  return 0;
}
