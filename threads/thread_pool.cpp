#include "attn/thread_pool.h"

#include <chrono>

namespace attn {

namespace {

using Clock = std::chrono::steady_clock;

// How long an idle worker spins for the next run before it sleeps: long
// enough to catch the next op of a back-to-back sequence (a decode loop, the
// phases of one op), short enough not to hold a core for long.
constexpr Clock::duration kIdleSpin = std::chrono::microseconds(500);
// How long the caller spins for the workers of its run to finish before it
// sleeps: a wake costs tens of microseconds in a VM, a fraction of any run
// this long.
constexpr Clock::duration kDoneSpin = std::chrono::milliseconds(1);
// Spin iterations with a CPU pause before each further one also yields the
// CPU (to a thread the spinner may be waiting for, on an oversubscribed machine).
constexpr uint32_t kPauses = 256;

constexpr uint64_t kOpen = uint64_t{1} << 31;
constexpr uint64_t kJoinedMask = kOpen - 1;

uint64_t generation(uint64_t state) { return state >> 32; }

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  asm volatile("yield" ::: "memory");
#endif
}

// A bounded spin: step() waits a little and returns false once `budget` has
// passed (the clock is read every 16 steps after the pauses).
class Backoff {
 public:
  explicit Backoff(Clock::duration budget) : end_(Clock::now() + budget) {}
  bool step() {
    if (++steps_ <= kPauses) {
      cpu_relax();
      return true;
    }
    std::this_thread::yield();
    return (steps_ & 15) != 0 || Clock::now() < end_;
  }

 private:
  Clock::time_point end_;
  uint32_t steps_ = 0;
};

}  // namespace

ThreadPool::ThreadPool(int32_t workers) : workers_(workers < 1 ? 1 : workers) {
  threads_.reserve(static_cast<std::size_t>(workers_ - 1));
  for (int32_t w = 1; w < workers_; ++w) threads_.emplace_back([this, w] { worker_loop(w); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true);
  state_.fetch_add(uint64_t{1} << 32);  // a new generation, closed: every waiter looks
  { std::lock_guard<std::mutex> lock(m_); }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ThreadPool::run(void* pool, ParallelTask task, void* ctx, int32_t n_tasks) {
  static_cast<ThreadPool*>(pool)->run_tasks(task, ctx, n_tasks);
}

void ThreadPool::run_tasks(ParallelTask task, void* ctx, int32_t n_tasks) {
  if (n_tasks <= 0) return;
  // Alone, one task, or the pool busy with another run: this thread does it all.
  if (threads_.empty() || n_tasks == 1 || running_.exchange(true, std::memory_order_acquire)) {
    for (int32_t i = 0; i < n_tasks; ++i) task(ctx, i, 0);
    return;
  }
  // The run is closed and no worker is inside: the job may be rewritten.
  task_ = task;
  ctx_ = ctx;
  n_tasks_ = n_tasks;
  next_.store(0, std::memory_order_relaxed);
  const uint64_t gen = generation(state_.load(std::memory_order_relaxed)) + 1;
  state_.store(gen << 32 | kOpen);  // seq_cst: ordered before the sleepers_ load
  if (sleepers_.load() > 0) {
    { std::lock_guard<std::mutex> lock(m_); }
    wake_.notify_all();
  }
  drain(0);
  wait_until_left();
  running_.store(false, std::memory_order_release);
}

void ThreadPool::drain(int32_t worker) {
  const ParallelTask task = task_;
  void* const ctx = ctx_;
  const int32_t n = n_tasks_;
  for (int32_t i; (i = next_.fetch_add(1, std::memory_order_relaxed)) < n;) task(ctx, i, worker);
}

// Every task is taken; the run ends when the workers that joined it have left.
void ThreadPool::wait_until_left() {
  Backoff backoff(kDoneSpin);
  uint64_t s = state_.load(std::memory_order_acquire);
  for (;;) {
    if ((s & kJoinedMask) == 0) {
      // Close it: a worker arriving from now on finds it closed.
      if (state_.compare_exchange_weak(s, s & ~kOpen, std::memory_order_acq_rel,
                                       std::memory_order_acquire)) {
        return;
      }
      continue;
    }
    if (!backoff.step()) {
      std::unique_lock<std::mutex> lock(m_);
      caller_asleep_.store(true);  // seq_cst: ordered before the state_ load below
      done_.wait(lock, [this] { return (state_.load() & kJoinedMask) == 0; });
      caller_asleep_.store(false, std::memory_order_relaxed);
    }
    s = state_.load(std::memory_order_acquire);
  }
}

// A state of another generation than `seen` (or the pool stopping).
uint64_t ThreadPool::wait_for_run(uint64_t seen) {
  Backoff backoff(kIdleSpin);
  for (;;) {
    const uint64_t s = state_.load(std::memory_order_acquire);
    if (generation(s) != seen) return s;
    if (!backoff.step()) break;
  }
  std::unique_lock<std::mutex> lock(m_);
  sleepers_.fetch_add(1);  // seq_cst: ordered before the state_ load below
  wake_.wait(lock, [this, seen] { return generation(state_.load()) != seen; });
  sleepers_.fetch_sub(1, std::memory_order_relaxed);
  return state_.load(std::memory_order_acquire);
}

void ThreadPool::worker_loop(int32_t worker) {
  uint64_t seen = 0;
  for (;;) {
    uint64_t s = wait_for_run(seen);
    if (stop_.load(std::memory_order_acquire)) return;
    seen = generation(s);
    // Join while this generation's run is open.
    bool joined = false;
    while (!joined && generation(s) == seen && (s & kOpen) != 0) {
      joined = state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel,
                                            std::memory_order_acquire);
    }
    if (!joined) continue;
    drain(worker);
    const uint64_t before = state_.fetch_sub(1);  // seq_cst: before the caller_asleep_ load
    if ((before & kJoinedMask) == 1 && caller_asleep_.load()) {
      { std::lock_guard<std::mutex> lock(m_); }
      done_.notify_one();
    }
  }
}

}  // namespace attn
