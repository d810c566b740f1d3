// The executors of the threaded tests: attn::ThreadPool of 1, 2, 3 and 7
// workers, and a striped executor that forces concurrency whatever the
// machine's load: one std::thread per worker index, started for each run;
// worker w runs tasks w, w + W, w + 2W, ... (the pool hands tasks out first
// come, first served, and on a busy machine its calling thread may run them
// all). Results must not depend on which worker runs which task.
#pragma once

#include <cstdint>
#include <thread>
#include <vector>

#include "attn/parallel.h"
#include "attn/thread_pool.h"

namespace attn_test {

inline attn::ThreadPool& pool(int32_t workers) {
  static attn::ThreadPool p1(1), p2(2), p3(3), p7(7);
  switch (workers) {
    case 1: return p1;
    case 2: return p2;
    case 3: return p3;
    default: return p7;
  }
}

struct Striped {
  int32_t workers;
};

inline void striped_run(void* pool, attn::ParallelTask task, void* ctx, int32_t n_tasks) {
  const int32_t w = static_cast<Striped*>(pool)->workers;
  std::vector<std::thread> threads;
  for (int32_t k = 0; k < w; ++k) {
    threads.emplace_back([=] {
      for (int32_t i = k; i < n_tasks; i += w) task(ctx, i, k);
    });
  }
  for (std::thread& t : threads) t.join();
}

// 1, 2, 3 or 7 (any other count: 7) workers.
inline attn::Executor striped(int32_t workers) {
  static Striped s1{1}, s2{2}, s3{3}, s7{7};
  Striped* s = workers == 1 ? &s1 : (workers == 2 ? &s2 : (workers == 3 ? &s3 : &s7));
  return attn::Executor{striped_run, s, workers};
}

}  // namespace attn_test
