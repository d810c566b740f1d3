// A small std::thread pool that provides the engine's parallel hook
// (attn/parallel.h) on hosted targets (Linux).
//
//   attn::ThreadPool pool(4);                  // the caller's thread + 3 threads
//   attn::SdpaF32Args args{...};
//   args.executor = pool.executor();
//   attn::sdpa_f32(shape, args, scratch);      // scratch sized for pool.workers()
//
// Allocation happens only in the constructor (the threads). run() hands out
// tasks through an atomic counter, the calling thread working as worker 0,
// and returns when every task has finished.
//
// Hand-off: tasks of a few microseconds (a decode step) cost less than one
// futex sleep and wake of a thread, so neither side sleeps on the fast path.
// run() publishes the job in one atomic word (generation, open flag, joined
// count) and takes no lock; idle workers spin on that word (a CPU pause,
// then sched_yield) for a bounded time, kIdleSpin, before they sleep on a
// condition variable, and the caller spins the same way, up to kDoneSpin,
// for the workers that joined the run to leave. A worker joins a run by
// incrementing the joined count while the run is open; the caller closes the
// run once the count is back to 0, so a worker that is still asleep (or
// descheduled) never delays the caller: it finds the run closed and waits
// for the next. The caller wakes sleeping workers (a syscall) only when there
// are some.
//
// One run at a time: run() called while the pool is busy with another
// caller's run (another thread, or a task of this pool calling an op with the
// same executor) runs its tasks on the calling thread, as worker 0 of its own
// run, instead of waiting.
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
  uint64_t wait_for_run(uint64_t seen_generation);
  void wait_until_left();

  int32_t workers_;
  std::vector<std::thread> threads_;
  // The job of the open run: written by the caller while the run is closed,
  // read by workers that joined it.
  ParallelTask task_ = nullptr;
  void* ctx_ = nullptr;
  int32_t n_tasks_ = 0;
  // generation << 32 | open flag (bit 31) | workers joined (bits 0-30).
  alignas(64) std::atomic<uint64_t> state_{0};
  alignas(64) std::atomic<int32_t> next_{0};      // the next task index to take
  alignas(64) std::atomic<bool> running_{false};  // a caller is inside run()
  std::atomic<int32_t> sleepers_{0};              // workers asleep on wake_
  std::atomic<bool> caller_asleep_{false};        // the caller asleep on done_
  std::atomic<bool> stop_{false};
  std::mutex m_;  // the slow path only: sleeping and waking
  std::condition_variable wake_;
  std::condition_variable done_;
};

}  // namespace attn
