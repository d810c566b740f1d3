// A fixed heap for the test runner only: case.cpp formats failure messages with
// newlib's snprintf, whose floating-point conversion allocates. The engine and
// platform never allocate (the no-heap image in noheap/ proves it); this arena
// exists so that a failing check can still print its values (newlib-nano's
// dtoa takes well under 1 KiB per conversion: 16 KiB leaves the cases' RAM
// to the arena and the ops' workspaces, which grow with the query tile).
#include <cerrno>
#include <cstddef>
#include <cstdint>

namespace {
alignas(8) unsigned char g_heap[16 * 1024];
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
