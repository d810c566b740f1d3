// The parallel hook: how an op spreads its work over workers the caller owns.
//
// The engine never creates threads and never allocates. An op whose args
// carry an Executor splits its work into independent tasks and hands them to
// `run`, which must call task(ctx, i, worker) once for every i in [0, n_tasks),
// possibly concurrently, and return only when all have finished.
//
//   worker  the index, in [0, workers), of the worker running the task. Two
//           tasks running at the same time never share a worker index: the op
//           gives each worker its own slice of the caller's scratch, so the
//           *_scratch_bytes formulas take the worker count.
//
// A default Executor (run = nullptr, workers = 1) runs every task on the
// calling thread in order: exactly the single-threaded op. `run` with
// workers = 1 is valid (the tasks then share one scratch slice and must run
// one after another). Results do not depend on which worker runs which task:
// for a given worker count they are deterministic (see each op's header for
// how the split changes float summation order).
//
// Minimum work per task: an op never makes a task of less work than
// kParallelMinTaskWork, and runs a call on the calling thread alone (whatever
// the executor) when the whole is less than two tasks' worth. Handing a task
// to another thread costs a few cache-line transfers (a fraction of a
// microsecond with attn::ThreadPool's spinning workers, more when a worker
// has to be woken); a task of 2^16 units (one unit: a float multiply-add; an
// int8 multiply-add counts a quarter, the int8 kernels doing about four per
// float one; the softmax of one score counts 4) runs for about 1 to 6 us on
// a desktop core, so the hand-off stays a small part of it. Each op's header
// says what it splits.
//
// Ports: on Linux, attn::ThreadPool (threads/) provides `run`; a dual-core
// microcontroller implements it with its inter-core mailbox (platform/PORTING.md).
#pragma once

#include <cstdint>

namespace attn {

inline constexpr int64_t kParallelMinTaskWork = int64_t{1} << 16;

// One task of a parallel op: `task` in [0, n_tasks), `worker` in [0, workers).
using ParallelTask = void (*)(void* ctx, int32_t task, int32_t worker);

struct Executor {
  // Runs task(ctx, i, w) for i in [0, n_tasks) and returns when all are done.
  void (*run)(void* pool, ParallelTask task, void* ctx, int32_t n_tasks) = nullptr;
  void* pool = nullptr;  // passed to run unchanged
  int32_t workers = 1;   // workers that may run tasks at once; >= 1
};

// True if `ex` is usable: workers >= 1, and run set whenever workers > 1.
constexpr bool executor_valid(const Executor& ex) {
  return ex.workers >= 1 && (ex.run != nullptr || ex.workers == 1);
}

// Runs the n tasks through `ex`, or in order on this thread when ex.run is null.
inline void parallel_run(const Executor& ex, ParallelTask task, void* ctx, int32_t n_tasks) {
  if (n_tasks <= 0) return;
  if (ex.run == nullptr || n_tasks == 1) {
    for (int32_t i = 0; i < n_tasks; ++i) task(ctx, i, 0);
    return;
  }
  ex.run(ex.pool, task, ctx, n_tasks);
}

namespace parallel_detail {
// The ParallelTask that calls a callable. Not inlined into the caller: the
// task's locals then live in this frame, not in every op's (the Cortex-M
// stack budgets count the deepest path through both).
template <class F>
__attribute__((noinline)) void call(void* ctx, int32_t task, int32_t worker) {
  (*static_cast<F*>(ctx))(task, worker);
}
}  // namespace parallel_detail

// parallel_run with a callable: f(task, worker) for every task in
// [0, n_tasks). `f` lives on the caller's stack; nothing is allocated.
template <class F>
void parallel_for(const Executor& ex, int32_t n_tasks, F& f) {
  parallel_run(ex, &parallel_detail::call<F>, &f, n_tasks);
}

}  // namespace attn
