// --threads N of `attn run` and `attn bench`: every op call of the process
// gets the same executor, an attn::ThreadPool of N workers built on first
// use (for N = 1 none: the calling thread alone, the serial op).
#pragma once

#include <cstdint>

#include <CLI/CLI.hpp>

#include "attn/parallel.h"

namespace attn_cli {

// Registers --threads on `sub` (N in [1, kMaxThreads]; anything else is a
// one-line usage error, exit 2, before any file is read or written).
void add_threads_flag(CLI::App* sub);

inline constexpr int32_t kMaxThreads = 256;

// The executor for --threads (a default Executor for 1), and its workers: the
// count every scratch formula takes.
attn::Executor threads_executor();
inline int32_t threads_workers() { return threads_executor().workers; }

}  // namespace attn_cli
