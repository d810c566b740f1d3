// attn::ThreadPool, the parallel hook's provider on Linux: every task runs
// exactly once, worker indices stay in [0, workers) and two tasks never run
// at once on one worker index, the pool is reused across many runs, wakes
// its sleeping workers, takes runs from two threads and from inside a task,
// and handles zero or one task. Also parallel_run / parallel_for without a pool.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "attn/parallel.h"
#include "attn/thread_pool.h"

namespace {

// What a run saw: per-task run counts, per-worker busy flags, violations.
struct Probe {
  explicit Probe(int32_t tasks, int32_t workers)
      : runs(static_cast<std::size_t>(tasks)), busy(static_cast<std::size_t>(workers)) {}
  std::vector<std::atomic<int32_t>> runs;
  std::vector<std::atomic<bool>> busy;
  std::atomic<int32_t> bad_worker{0};
  std::atomic<int32_t> overlap{0};
};

void probe_task(void* ctx, int32_t task, int32_t worker) {
  auto* p = static_cast<Probe*>(ctx);
  if (worker < 0 || worker >= static_cast<int32_t>(p->busy.size())) {
    p->bad_worker.fetch_add(1);
    return;
  }
  const auto w = static_cast<std::size_t>(worker);
  if (p->busy[w].exchange(true)) p->overlap.fetch_add(1);
  // Some work, so that tasks overlap in time on different workers.
  volatile uint32_t x = static_cast<uint32_t>(task);
  for (int i = 0; i < 200; ++i) x = x * 1664525u + 1013904223u;
  p->runs[static_cast<std::size_t>(task)].fetch_add(1);
  p->busy[w].store(false);
}

void expect_each_once(const Probe& p) {
  for (std::size_t i = 0; i < p.runs.size(); ++i) {
    ASSERT_EQ(p.runs[i].load(), 1) << "task " << i;
  }
  EXPECT_EQ(p.bad_worker.load(), 0);
  EXPECT_EQ(p.overlap.load(), 0);
}

TEST(ThreadPool, EveryTaskOnceWorkersInRangeNeverConcurrent) {
  for (int32_t workers : {1, 2, 3, 7}) {
    attn::ThreadPool pool(workers);
    ASSERT_EQ(pool.workers(), workers);
    const attn::Executor ex = pool.executor();
    ASSERT_TRUE(attn::executor_valid(ex));
    for (int32_t tasks : {1, 2, 3, 7, 8, 64, 1000}) {
      Probe p(tasks, workers);
      attn::parallel_run(ex, probe_task, &p, tasks);
      SCOPED_TRACE(testing::Message() << workers << " workers, " << tasks << " tasks");
      expect_each_once(p);
    }
  }
}

TEST(ThreadPool, ReusedAcrossManyRuns) {
  attn::ThreadPool pool(3);
  const attn::Executor ex = pool.executor();
  Probe p(5, 3);
  for (int run = 0; run < 2000; ++run) attn::parallel_run(ex, probe_task, &p, 5);
  for (const auto& r : p.runs) EXPECT_EQ(r.load(), 2000);
  EXPECT_EQ(p.bad_worker.load(), 0);
  EXPECT_EQ(p.overlap.load(), 0);
}

TEST(ThreadPool, ZeroTasksRunNothing) {
  attn::ThreadPool pool(4);
  Probe p(1, 4);
  pool.executor().run(pool.executor().pool, probe_task, &p, 0);
  attn::parallel_run(pool.executor(), probe_task, &p, 0);
  EXPECT_EQ(p.runs[0].load(), 0);
}

TEST(ThreadPool, WorkersBelowOneAreOne) {
  attn::ThreadPool pool(0);
  EXPECT_EQ(pool.workers(), 1);
  Probe p(9, 1);
  attn::parallel_run(pool.executor(), probe_task, &p, 9);
  expect_each_once(p);
}

// A run while the pool is busy with another caller's runs on its own thread:
// both complete, each task once, worker indices never shared within a run.
TEST(ThreadPool, RunsFromTwoThreadsBothComplete) {
  attn::ThreadPool pool(2);
  const attn::Executor ex = pool.executor();
  Probe a(50, 2);
  Probe b(50, 2);
  std::thread other([&] {
    for (int i = 0; i < 20; ++i) attn::parallel_run(ex, probe_task, &a, 50);
  });
  for (int i = 0; i < 20; ++i) attn::parallel_run(ex, probe_task, &b, 50);
  other.join();
  for (const auto& r : a.runs) EXPECT_EQ(r.load(), 20);
  for (const auto& r : b.runs) EXPECT_EQ(r.load(), 20);
  EXPECT_EQ(a.overlap.load() + b.overlap.load(), 0);
}

// A task of a run calling run() on the same pool (an op inside a task): the
// inner run goes on the task's thread, no deadlock.
struct Nested {
  attn::Executor ex;
  Probe* inner;
  std::atomic<int32_t> outer_runs{0};
};
void nested_task(void* ctx, int32_t, int32_t) {
  auto* n = static_cast<Nested*>(ctx);
  n->outer_runs.fetch_add(1);
  attn::parallel_run(n->ex, probe_task, n->inner, 1);
}

TEST(ThreadPool, RunInsideATaskRunsOnTheTasksThread) {
  attn::ThreadPool pool(3);
  Probe inner(1, 3);
  Nested n{pool.executor(), &inner};
  for (int run = 0; run < 50; ++run) attn::parallel_run(pool.executor(), nested_task, &n, 6);
  EXPECT_EQ(n.outer_runs.load(), 300);
  EXPECT_EQ(inner.runs[0].load(), 300);
  EXPECT_EQ(inner.bad_worker.load(), 0);
}

// Runs with the workers asleep (after their idle spin) and right after
// another run (still spinning): every task once either way.
TEST(ThreadPool, WakesSleepingWorkers) {
  attn::ThreadPool pool(3);
  for (int round = 0; round < 3; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    Probe p(40, 3);
    attn::parallel_run(pool.executor(), probe_task, &p, 40);
    expect_each_once(p);
    Probe q(40, 3);
    attn::parallel_run(pool.executor(), probe_task, &q, 40);
    expect_each_once(q);
  }
}

TEST(ParallelHook, DefaultExecutorRunsInOrderOnWorkerZero) {
  const attn::Executor ex{};
  EXPECT_TRUE(attn::executor_valid(ex));
  std::vector<int32_t> order;
  order.reserve(6);
  auto f = [&](int32_t task, int32_t worker) {
    EXPECT_EQ(worker, 0);
    order.push_back(task);
  };
  attn::parallel_for(ex, 6, f);
  EXPECT_EQ(order, (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
}

TEST(ParallelHook, InvalidExecutors) {
  attn::Executor no_run{};
  no_run.workers = 2;
  EXPECT_FALSE(attn::executor_valid(no_run));
  attn::Executor zero{};
  zero.workers = 0;
  EXPECT_FALSE(attn::executor_valid(zero));
  attn::ThreadPool pool(2);
  attn::Executor negative = pool.executor();
  negative.workers = -1;
  EXPECT_FALSE(attn::executor_valid(negative));
}

}  // namespace
