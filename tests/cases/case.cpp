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
