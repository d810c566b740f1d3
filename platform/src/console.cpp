// Console: string output and a small printf subset on top of attn_platform_putc.
// The formatter is our own so that no libc printf (and through it malloc) is
// linked into firmware.
#include <cstdarg>
#include <cstddef>
#include <cstdint>

#include "attn/platform.h"

namespace attn {
namespace platform {
namespace {

void put_repeat(char c, int n) {
  for (; n > 0; --n) attn_platform_putc(c);
}

// Writes `digits` (n chars, most significant first) padded to `width`.
void put_field(const char* digits, int n, bool negative, int width, bool left, bool zero) {
  const int len = n + (negative ? 1 : 0);
  const int pad = width > len ? width - len : 0;
  if (!left && !zero) put_repeat(' ', pad);
  if (negative) attn_platform_putc('-');
  if (!left && zero) put_repeat('0', pad);
  for (int i = 0; i < n; ++i) attn_platform_putc(digits[i]);
  if (left) put_repeat(' ', pad);
}

void put_unsigned(unsigned long long v, unsigned base, bool upper, bool negative, int width,
                  bool left, bool zero) {
  char buf[24];
  int n = 0;
  const char* const table = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  do {
    buf[n++] = table[v % base];
    v /= base;
  } while (v != 0);
  char digits[24];
  for (int i = 0; i < n; ++i) digits[i] = buf[n - 1 - i];
  put_field(digits, n, negative, width, left, zero);
}

}  // namespace

void write(const char* s) {
  if (s == nullptr) return;
  for (; *s != '\0'; ++s) attn_platform_putc(*s);
}

void flush() { attn_platform_flush(); }

void print(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  for (const char* p = fmt; *p != '\0'; ++p) {
    if (*p != '%') {
      attn_platform_putc(*p);
      continue;
    }
    ++p;
    bool left = false;
    bool zero = false;
    for (;; ++p) {
      if (*p == '-') {
        left = true;
      } else if (*p == '0') {
        zero = true;
      } else {
        break;
      }
    }
    int width = 0;
    while (*p >= '0' && *p <= '9') width = width * 10 + (*p++ - '0');
    int longs = 0;
    bool size = false;
    while (*p == 'l' || *p == 'z') {
      if (*p == 'z') {
        size = true;
      } else {
        ++longs;
      }
      ++p;
    }
    switch (*p) {
      case 'd':
      case 'i': {
        long long v = size       ? static_cast<long long>(va_arg(args, std::ptrdiff_t))
                      : longs >= 2 ? va_arg(args, long long)
                      : longs == 1 ? static_cast<long long>(va_arg(args, long))
                                   : static_cast<long long>(va_arg(args, int));
        const bool neg = v < 0;
        const unsigned long long mag =
            neg ? 0ull - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
        put_unsigned(mag, 10, false, neg, width, left, zero);
        break;
      }
      case 'u':
      case 'x':
      case 'X': {
        unsigned long long v = size       ? static_cast<unsigned long long>(va_arg(args, std::size_t))
                               : longs >= 2 ? va_arg(args, unsigned long long)
                               : longs == 1 ? static_cast<unsigned long long>(va_arg(args, unsigned long))
                                            : static_cast<unsigned long long>(va_arg(args, unsigned));
        put_unsigned(v, *p == 'u' ? 10u : 16u, *p == 'X', false, width, left, zero);
        break;
      }
      case 'p': {
        const auto v = reinterpret_cast<std::uintptr_t>(va_arg(args, void*));
        attn_platform_putc('0');
        attn_platform_putc('x');
        put_unsigned(v, 16, false, false, width, left, zero);
        break;
      }
      case 'c': {
        const char c = static_cast<char>(va_arg(args, int));
        put_field(&c, 1, false, width, left, false);
        break;
      }
      case 's': {
        const char* s = va_arg(args, const char*);
        if (s == nullptr) s = "(null)";
        int n = 0;
        while (s[n] != '\0') ++n;
        put_field(s, n, false, width, left, false);
        break;
      }
      case '%':
        attn_platform_putc('%');
        break;
      case '\0':
        --p;  // a lone '%' at the end
        break;
      default:
        attn_platform_putc('%');
        attn_platform_putc(*p);
        break;
    }
  }
  va_end(args);
}

}  // namespace platform
}  // namespace attn
