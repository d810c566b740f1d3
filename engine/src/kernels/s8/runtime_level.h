// The run-time dispatch level of a kernel set that picks its level from the
// CPU (x86, AArch64: ATTN_S8_HAS_RUNTIME_LEVELS; internal). Each set's header
// numbers and describes its levels; kernels_s8.h includes this header for
// such sets.
#pragma once

#include <atomic>

namespace attn {
namespace detail {

// The levels of this build's set: 0 (the set's plainest) up to its best.
bool kernels_s8_supported(int lvl);  // this CPU runs level lvl
int kernels_s8_level();              // the level the kernels use now
// Tests and benchmarks: use level `lvl` from now on (-1: the CPU's best);
// false (no change) if the CPU lacks it. Not synchronised with running kernels.
bool kernels_s8_select(int lvl);
const char* kernels_s8_level_name(int lvl);  // "?" for a level the set lacks

// The state behind kernels_s8_level / kernels_s8_select: the CPU's best,
// Cpu(), from the first use on, until select() sets another level the CPU
// runs. One namespace-scope object per set; loads and stores are relaxed
// (tests and benchmarks select a level while no kernel runs).
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
