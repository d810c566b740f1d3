// attn: command-line front end of the attention engine.
//   attn demo          the seed worked example and a short run of every op
//   attn run <op> ...  one op on .npy files (see CLI.md)
// Exit codes: 0 success, 2 any error (usage, bad input file, engine status).
#include <cstdio>
#include <new>

#include <CLI/CLI.hpp>

#include "commands.h"
#include "model_commands.h"
#include "common.h"

int main(int argc, char** argv) {
  CLI::App app{"attn: allocation-free attention engine, command-line front end.\n"
               "Runs the engine's float32 ops on NumPy .npy files. Exit code 0 on success, "
               "2 on any error.",
               "attn"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Print help for every subcommand and exit");
  // Usage errors: one line on stderr, like every other error of the tool.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return std::string("attn: ") + e.what() + " (see --help)\n";
  });
  attn_cli::Runner runner;
  attn_cli::add_demo(&app, &runner);
  attn_cli::add_run(&app, &runner);
  attn_cli::add_info(&app, &runner);  // attn info MODEL (model_commands.cpp)
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
