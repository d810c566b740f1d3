// Console: string output and a small printf subset on top of attn_platform_putc.
// The formatter is our own so that no libc printf (and through it malloc) is
// linked into firmware.
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstring>

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

// Digits of v in `base` (most significant first) into out; returns their count.
int unsigned_digits(unsigned long long v, unsigned base, bool upper, char* out) {
  char buf[24];
  int n = 0;
  const char* const table = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  do {
    buf[n++] = table[v % base];
    v /= base;
  } while (v != 0);
  for (int i = 0; i < n; ++i) out[i] = buf[n - 1 - i];
  return n;
}

void put_unsigned(unsigned long long v, unsigned base, bool upper, bool negative, int width,
                  bool left, bool zero) {
  char digits[24];
  put_field(digits, unsigned_digits(v, base, upper, digits), negative, width, left, zero);
}

// C's %a of a normal double's magnitude (1.f * 2^e: "0x1.8p+70"), for values
// too large for the fixed-point form. Returns the length written to out.
int hex_float(uint64_t fraction, int exponent, char* out) {
  int n = 0;
  out[n++] = '0';
  out[n++] = 'x';
  out[n++] = '1';
  if (fraction != 0) {
    out[n++] = '.';
    for (int shift = 48; shift >= 0 && fraction != 0; shift -= 4) {
      out[n++] = "0123456789abcdef"[(fraction >> shift) & 0xf];
      fraction &= (uint64_t{1} << shift) - 1;
    }
  }
  out[n++] = 'p';
  out[n++] = '+';
  return n + unsigned_digits(static_cast<unsigned long long>(exponent), 10, false, out + n);
}

// %.<precision>f of |v|, v = (bits of an IEEE double), without floating
// point: v = m * 2^e exactly (m < 2^53), so the integer part and the
// fraction's digits come from integer shifts, and the last digit is rounded
// to nearest, ties to even, on the exact remainder (what glibc's printf does).
// |v| >= 2^64 prints in the %a form instead. Returns the length in out
// (kFloatChars at most).
constexpr int kMaxPrecision = 30;
constexpr int kFloatChars = 22 + kMaxPrecision;
int fixed_float(uint64_t bits, int precision, char* out) {
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  const uint64_t fraction = bits & ((uint64_t{1} << 52) - 1);
  if (biased == 0x7ff) {
    const char* text = fraction != 0 ? "nan" : "inf";
    for (int i = 0; i < 3; ++i) out[i] = text[i];
    return 3;
  }
  const uint64_t m = biased != 0 ? fraction | (uint64_t{1} << 52) : fraction;
  const int e = biased != 0 ? biased - 1075 : -1074;
  if (e >= 12) return hex_float(fraction, e + 52, out);
  // |v| = integer + rest / 2^s, rest < 2^s, s <= 60 (lower bits kept as sticky).
  uint64_t integer = 0;
  uint64_t rest = 0;
  int s = 0;
  bool sticky = false;
  if (e >= 0) {
    integer = m << e;
  } else {
    s = -e;
    integer = s < 64 ? m >> s : 0;
    rest = s < 64 ? m & ((uint64_t{1} << s) - 1) : m;
    if (s > 60) {
      const int drop = s - 60;
      sticky = drop >= 64 ? rest != 0 : (rest & ((uint64_t{1} << drop) - 1)) != 0;
      rest = drop >= 64 ? 0 : rest >> drop;
      s = 60;
    }
  }
  char digits[kMaxPrecision];
  for (int i = 0; i < precision; ++i) {
    rest *= 10;
    digits[i] = static_cast<char>('0' + (rest >> s));
    rest &= s == 0 ? 0 : (uint64_t{1} << s) - 1;
  }
  if (s > 0) {
    const uint64_t half = uint64_t{1} << (s - 1);
    const bool odd = precision > 0 ? ((digits[precision - 1] - '0') & 1) != 0 : (integer & 1) != 0;
    if (rest > half || (rest == half && (sticky || odd))) {
      int i = precision - 1;
      for (; i >= 0 && digits[i] == '9'; --i) digits[i] = '0';
      if (i >= 0) {
        ++digits[i];
      } else {
        ++integer;  // no overflow: |v| < 2^64 - 2^11 here
      }
    }
  }
  int n = unsigned_digits(integer, 10, false, out);
  if (precision > 0) {
    out[n++] = '.';
    for (int i = 0; i < precision; ++i) out[n++] = digits[i];
  }
  return n;
}

void put_float(double v, int precision, int width, bool left, bool zero) {
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  char text[kFloatChars];
  const int n = fixed_float(bits, precision, text);
  const bool finite = ((bits >> 52) & 0x7ff) != 0x7ff;
  put_field(text, n, (bits >> 63) != 0, width, left, zero && finite);
}

// One conversion's flags, width, precision and length modifiers.
struct Spec {
  bool left = false;  // '-'
  bool zero = false;  // '0'
  int width = 0;
  int precision = -1;  // -1: none
  int longs = 0;       // 'l' count
  bool size = false;   // 'z'
};

// Reads the part of a conversion between '%' and its letter from p; returns
// the position of the letter.
const char* parse_spec(const char* p, Spec* spec) {
  for (;; ++p) {
    if (*p == '-') {
      spec->left = true;
    } else if (*p == '0') {
      spec->zero = true;
    } else {
      break;
    }
  }
  while (*p >= '0' && *p <= '9') spec->width = spec->width * 10 + (*p++ - '0');
  if (*p == '.') {
    spec->precision = 0;
    for (++p; *p >= '0' && *p <= '9'; ++p) spec->precision = spec->precision * 10 + (*p - '0');
  }
  for (; *p == 'l' || *p == 'z'; ++p) {
    if (*p == 'z') {
      spec->size = true;
    } else {
      ++spec->longs;
    }
  }
  return p;
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
    Spec spec;
    p = parse_spec(p + 1, &spec);
    const bool left = spec.left;
    const bool zero = spec.zero;
    const int width = spec.width;
    const int longs = spec.longs;
    const bool size = spec.size;
    switch (*p) {
      case 'd':
      case 'i': {
        long long v = size         ? static_cast<long long>(va_arg(args, std::ptrdiff_t))
                      : longs >= 2 ? va_arg(args, long long)
                      : longs == 1 ? static_cast<long long>(va_arg(args, long))
                                   : static_cast<long long>(va_arg(args, int));
        const bool neg = v < 0;
        const unsigned long long mag = neg ? 0ull - static_cast<unsigned long long>(v)
                                           : static_cast<unsigned long long>(v);
        put_unsigned(mag, 10, false, neg, width, left, zero);
        break;
      }
      case 'u':
      case 'x':
      case 'X': {
        using Ull = unsigned long long;
        Ull v = size         ? static_cast<Ull>(va_arg(args, std::size_t))
                : longs >= 2 ? va_arg(args, Ull)
                : longs == 1 ? static_cast<Ull>(va_arg(args, unsigned long))
                             : static_cast<Ull>(va_arg(args, unsigned));
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
      case 'f': {
        const int digits = spec.precision < 0 ? 6 : spec.precision;
        put_float(va_arg(args, double), digits > kMaxPrecision ? kMaxPrecision : digits, width,
                  left, zero);
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
      case '%': attn_platform_putc('%'); break;
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
