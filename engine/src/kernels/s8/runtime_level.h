// The dispatch level of a kernel set that picks its level at run time from
// the CPU (x86, AArch64; internal): the CPU's best, Cpu(), from the first use
// on, until select() sets another level the CPU runs. One namespace-scope
// object per set; loads and stores are relaxed (tests and benchmarks select
// a level while no kernel runs).
#pragma once

#include <atomic>

namespace attn {
namespace detail {

template <int (*Cpu)()>
class RuntimeLevel {
 public:
  int get() {
    int lvl = level_.load(std::memory_order_relaxed);
    if (lvl < 0) {
      lvl = Cpu();
      level_.store(lvl, std::memory_order_relaxed);
    }
    return lvl;
  }
  // Use level lvl (-1: the CPU's best) if supported(lvl); false (no change)
  // otherwise.
  template <typename Supported>
  bool select(int lvl, Supported supported) {
    if (lvl < 0) lvl = Cpu();
    if (!supported(lvl)) return false;
    level_.store(lvl, std::memory_order_relaxed);
    return true;
  }

 private:
  std::atomic<int> level_{-1};
};

}  // namespace detail
}  // namespace attn
