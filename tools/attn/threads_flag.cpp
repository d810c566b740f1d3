// --threads (see threads_flag.h).
#include "threads_flag.h"

#include <memory>
#include <string>

#include "attn/thread_pool.h"

namespace attn_cli {
namespace {

int32_t g_threads = 1;

}  // namespace

void add_threads_flag(CLI::App* sub) {
  sub->add_option("--threads", g_threads,
                  "worker threads the op's work is split over, 1 to " +
                      std::to_string(kMaxThreads) +
                      " (default 1: this thread alone; more: an attn::ThreadPool; the outputs "
                      "equal one thread's, see CLI.md)")
      ->type_name("N")
      ->check(CLI::Range(1, kMaxThreads).description(""));
}

attn::Executor threads_executor() {
  if (g_threads <= 1) return attn::Executor{};
  static const std::unique_ptr<attn::ThreadPool> pool =
      std::make_unique<attn::ThreadPool>(g_threads);
  return pool->executor();
}

}  // namespace attn_cli
