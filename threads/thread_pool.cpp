#include "attn/thread_pool.h"

namespace attn {

namespace {
// Spins before a worker sleeps: long enough to catch the next op of a
// back-to-back sequence (a decode loop), short enough not to hold a core.
constexpr int kSpinIterations = 2000;
}  // namespace

ThreadPool::ThreadPool(int32_t workers) : workers_(workers < 1 ? 1 : workers) {
  threads_.reserve(static_cast<std::size_t>(workers_ - 1));
  for (int32_t w = 1; w < workers_; ++w) threads_.emplace_back([this, w] { worker_loop(w); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ThreadPool::run(void* pool, ParallelTask task, void* ctx, int32_t n_tasks) {
  static_cast<ThreadPool*>(pool)->run_tasks(task, ctx, n_tasks);
}

void ThreadPool::run_tasks(ParallelTask task, void* ctx, int32_t n_tasks) {
  if (n_tasks <= 0) return;
  std::lock_guard<std::mutex> serial(run_mutex_);
  if (threads_.empty() || n_tasks == 1) {
    for (int32_t i = 0; i < n_tasks; ++i) task(ctx, i, 0);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(m_);
    task_ = task;
    ctx_ = ctx;
    n_tasks_ = n_tasks;
    next_.store(0, std::memory_order_relaxed);
    busy_ = static_cast<int32_t>(threads_.size());
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  drain(0);
  std::unique_lock<std::mutex> lock(m_);
  done_.wait(lock, [this] { return busy_ == 0; });
}

void ThreadPool::drain(int32_t worker) {
  for (;;) {
    const int32_t i = next_.fetch_add(1, std::memory_order_relaxed);
    if (i >= n_tasks_) return;
    task_(ctx_, i, worker);
  }
}

void ThreadPool::worker_loop(int32_t worker) {
  uint64_t seen = 0;
  for (;;) {
    for (int spin = 0; spin < kSpinIterations; ++spin) {
      if (generation_.load(std::memory_order_acquire) != seen) break;
      std::this_thread::yield();
    }
    {
      std::unique_lock<std::mutex> lock(m_);
      wake_.wait(lock, [&] { return generation_.load(std::memory_order_relaxed) != seen; });
      seen = generation_.load(std::memory_order_relaxed);
      if (stop_) return;
    }
    drain(worker);
    std::lock_guard<std::mutex> lock(m_);
    if (--busy_ == 0) done_.notify_one();
  }
}

}  // namespace attn
