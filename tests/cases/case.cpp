#include "case.h"

#include <cstdarg>
#include <cstdio>

namespace attn_test {

Case*& case_list() {
  static Case* head = nullptr;
  return head;
}

void fail(Context& ctx, const char* file, int line, const char* fmt, ...) {
  ++ctx.failures;
  if (ctx.report == nullptr) return;
  char buf[512];
  int n = std::snprintf(buf, sizeof buf, "%s:%d: ", file, line);
  if (n < 0) n = 0;
  if (static_cast<std::size_t>(n) < sizeof buf) {
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(buf + n, sizeof buf - static_cast<std::size_t>(n), fmt, args);
    va_end(args);
  }
  ctx.report(buf);
}

}  // namespace attn_test

// ---------------------------------------------------------------------------
// Framework extensions: disabled cases, the static arena, array checks.

#include <cstring>

namespace attn_test {

bool is_disabled(const Case& c) {
  return c.name != nullptr && std::strncmp(c.name, "DISABLED_", 9) == 0;
}

namespace {

alignas(64) unsigned char g_arena[kArenaBytes];
std::size_t g_arena_top = 0;
std::size_t g_arena_high = 0;
double g_max_tol_ratio = 0.0;

// Reports at most this many failing elements per array check.
constexpr int kMaxReported = 4;

}  // namespace

Arena::Arena() : mark_(g_arena_top) {}

Arena::~Arena() { g_arena_top = mark_; }

void* Arena::bytes(std::size_t n, std::size_t align) {
  if (align == 0 || align > 64 || (align & (align - 1)) != 0) {
    ok_ = false;
    return nullptr;
  }
  const std::size_t start = (g_arena_top + align - 1) & ~(align - 1);
  if (start > kArenaBytes || n > kArenaBytes - start) {
    ok_ = false;
    return nullptr;
  }
  g_arena_top = start + n;
  if (g_arena_top > g_arena_high) g_arena_high = g_arena_top;
  return g_arena + start;
}

std::size_t Arena::in_use() { return g_arena_top; }

std::size_t Arena::high_water() { return g_arena_high; }

double max_tol_ratio() { return g_max_tol_ratio; }

uint32_t float_bits(float f) {
  uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float bits_float(uint32_t u) {
  float f = 0.0f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

bool expect_close(Context& ctx, const char* file, int line, const char* what, const float* actual,
                  const double* expected, const double* tol, std::size_t n) {
  ++ctx.checks;
  int bad = 0;
  std::size_t first_bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double a = static_cast<double>(actual[i]);
    const double d = a > expected[i] ? a - expected[i] : expected[i] - a;
    if (tol[i] > 0.0 && d / tol[i] > g_max_tol_ratio) g_max_tol_ratio = d / tol[i];
    if (d <= tol[i]) continue;  // false for NaN
    if (bad == 0) first_bad = i;
    if (bad < kMaxReported) {
      fail(ctx, file, line, "%s[%lu] = %.9g, expected %.9g (|diff| %.3g > tol %.3g)", what,
           static_cast<unsigned long>(i), a, expected[i], d, tol[i]);
      --ctx.failures;  // counted once below
    }
    ++bad;
  }
  if (bad > 0) {
    ++ctx.failures;
    if (bad > kMaxReported && ctx.report != nullptr) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "%s:%d: %s: %d of %lu elements out of tolerance (first %lu)",
                    file, line, what, bad, static_cast<unsigned long>(n),
                    static_cast<unsigned long>(first_bad));
      ctx.report(buf);
    }
  }
  return bad == 0;
}

bool expect_all_bits(Context& ctx, const char* file, int line, const char* what,
                     const float* actual, float value, std::size_t n) {
  ++ctx.checks;
  const uint32_t want = float_bits(value);
  for (std::size_t i = 0; i < n; ++i) {
    const uint32_t got = float_bits(actual[i]);
    if (got != want) {
      fail(ctx, file, line, "%s[%lu] has bits 0x%08lx, expected 0x%08lx (untouched)", what,
           static_cast<unsigned long>(i), static_cast<unsigned long>(got),
           static_cast<unsigned long>(want));
      return false;
    }
  }
  return true;
}

bool expect_all_bytes(Context& ctx, const char* file, int line, const char* what,
                      const unsigned char* p, unsigned char value, std::size_t n) {
  ++ctx.checks;
  for (std::size_t i = 0; i < n; ++i) {
    if (p[i] != value) {
      fail(ctx, file, line, "%s[%lu] = 0x%02x, expected 0x%02x", what,
           static_cast<unsigned long>(i), static_cast<unsigned>(p[i]),
           static_cast<unsigned>(value));
      return false;
    }
  }
  return true;
}

bool expect_same_bits(Context& ctx, const char* file, int line, const char* what, const float* a,
                      const float* b, std::size_t n) {
  ++ctx.checks;
  for (std::size_t i = 0; i < n; ++i) {
    if (float_bits(a[i]) != float_bits(b[i])) {
      fail(ctx, file, line, "%s[%lu]: %.9g differs from %.9g", what, static_cast<unsigned long>(i),
           static_cast<double>(a[i]), static_cast<double>(b[i]));
      return false;
    }
  }
  return true;
}

}  // namespace attn_test
