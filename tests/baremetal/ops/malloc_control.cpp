// Negative control for the no-heap check: an image that does allocate. The
// check must reject it (its ctest is expected to fail), proving the check can
// see an allocation at all.
#include <cerrno>
#include <cstddef>
#include <cstdlib>

namespace {
alignas(8) unsigned char g_heap[4096];
std::size_t g_brk = 0;
}  // namespace

extern "C" void* _sbrk(std::ptrdiff_t increment) {
  if (increment < 0 || static_cast<std::size_t>(increment) > sizeof g_heap - g_brk) {
    errno = ENOMEM;
    return reinterpret_cast<void*>(-1);
  }
  void* p = g_heap + g_brk;
  g_brk += static_cast<std::size_t>(increment);
  return p;
}

volatile std::size_t g_size = 64;

int main() {
  void* p = std::malloc(g_size);
  const int ok = p != nullptr ? 0 : 1;
  std::free(p);
  return ok;
}
