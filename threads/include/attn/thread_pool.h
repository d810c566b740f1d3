// A small std::thread pool that provides the engine's parallel hook
// (attn/parallel.h) on hosted targets (Linux).
//
//   attn::ThreadPool pool(4);                  // the caller's thread + 3 threads
//   attn::SdpaF32Args args{...};
//   args.executor = pool.executor();
//   attn::sdpa_f32(shape, args, scratch);      // scratch sized for pool.workers()
//
// Allocation happens only in the constructor (the threads). run() hands out
// tasks through an atomic counter, the calling thread working as worker 0, and
// returns when every task has finished; idle workers spin briefly, then sleep
// on a condition variable. One run at a time: concurrent run() calls on the
// same pool are serialized. Not for use inside a task of the same pool.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "attn/parallel.h"

namespace attn {

class ThreadPool {
 public:
  // workers >= 1 (values below 1 are taken as 1): workers - 1 threads are started.
  explicit ThreadPool(int32_t workers);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int32_t workers() const { return workers_; }
  // The hook for an op's args; valid while the pool lives.
  Executor executor() { return Executor{&ThreadPool::run, this, workers_}; }

 private:
  static void run(void* pool, ParallelTask task, void* ctx, int32_t n_tasks);
  void run_tasks(ParallelTask task, void* ctx, int32_t n_tasks);
  void worker_loop(int32_t worker);
  void drain(int32_t worker);

  int32_t workers_;
  std::vector<std::thread> threads_;
  std::mutex run_mutex_;  // one run at a time
  std::mutex m_;
  std::condition_variable wake_;
  std::condition_variable done_;
  ParallelTask task_ = nullptr;
  void* ctx_ = nullptr;
  int32_t n_tasks_ = 0;
  std::atomic<int32_t> next_{0};
  std::atomic<uint64_t> generation_{0};
  int32_t busy_ = 0;  // threads still draining this generation (guarded by m_)
  bool stop_ = false;
};

}  // namespace attn
