// newlib's system calls, retargeted to the platform console (all weak, so a
// board or an RTOS can replace any of them). stdout/stderr writes go to
// attn_platform_putc, _exit to attn_platform_exit. _sbrk is deliberately absent:
// the engine and platform never allocate, and an image that does pulls in
// malloc and fails to link here (or fails the no-heap test) rather than
// growing a heap into the stack.
#include <sys/stat.h>
#include <cerrno>
#include <cstdint>

#include "attn/platform.h"

extern "C" {

__attribute__((weak, noreturn)) void _exit(int code) { attn_platform_exit(code); }

__attribute__((weak)) int _write(int fd, const char* buf, int len) {
  if (fd != 1 && fd != 2) {
    errno = EBADF;
    return -1;
  }
  for (int i = 0; i < len; ++i) attn_platform_putc(buf[i]);
  return len;
}

__attribute__((weak)) int _read(int, char*, int) { return 0; }

__attribute__((weak)) int _close(int) {
  errno = EBADF;
  return -1;
}

__attribute__((weak)) int _lseek(int, int, int) { return 0; }

__attribute__((weak)) int _fstat(int, struct stat* st) {
  st->st_mode = S_IFCHR;
  return 0;
}

__attribute__((weak)) int _isatty(int fd) { return fd <= 2 ? 1 : 0; }

__attribute__((weak)) int _getpid(void) { return 1; }

__attribute__((weak)) int _kill(int, int) {
  errno = EINVAL;
  return -1;
}

}  // extern "C"
