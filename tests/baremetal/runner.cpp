// Bare-metal test runner: runs every portable case (tests/cases) on the board
// and reports through the platform console. Returns the number of failed cases
// (capped at 127): the reset handler hands it to attn_platform_exit, so under
// QEMU a failure becomes a non-zero emulator exit code and fails ctest.
//
// Output, one line per case (GoogleTest-like so logs read the same):
//   [ RUN      ] Suite.Name
//   <file>:<line>: <message>          (per failed check)
//   [       OK ] Suite.Name (<checks> checks)   or   [  FAILED  ] ...
#include <cstdint>

#include "attn/platform.h"
#include "case.h"

// Marker calls around each case: under QEMU the instruction-count plugin
// (tools/qemu-plugin) with begin=attn_case_begin,end=attn_case_end gives the
// instructions each case executes, in run order: tools/qemu-plugin/profile_cases.py
// prints them per case, heaviest first.
volatile uint32_t g_case_marker;
extern "C" __attribute__((noinline, used)) void attn_case_begin(void) { g_case_marker = 1u; }
extern "C" __attribute__((noinline, used)) void attn_case_end(void) { g_case_marker = 2u; }

namespace {

void report(const char* line) {
  attn::platform::write(line);
  attn::platform::write("\n");
}

}  // namespace

int main() {
  namespace pf = attn::platform;
  pf::write("attn bare-metal test runner\n");
  pf::print_cpu_report();

  // The registry is built in reverse registration order: run it in order.
  constexpr int kMaxCases = 1024;
  static attn_test::Case* cases[kMaxCases];
  int count = 0;
  for (attn_test::Case* c = attn_test::case_list(); c != nullptr && count < kMaxCases;
       c = c->next) {
    cases[count++] = c;
  }

  int failed = 0;
  int checks = 0;
  for (int i = count - 1; i >= 0; --i) {
    attn_test::Case* c = cases[i];
    pf::print("[ RUN      ] %s.%s\n", c->suite, c->name);
    attn_test::Context ctx;
    ctx.report = &report;
    attn_case_begin();
    c->fn(ctx);
    attn_case_end();
    if (ctx.checks == 0) {
      pf::write("a case that checks nothing\n");
      ++ctx.failures;
    }
    checks += ctx.checks;
    if (ctx.failures != 0) {
      ++failed;
      pf::print("[  FAILED  ] %s.%s (%d of %d checks failed)\n", c->suite, c->name, ctx.failures,
                ctx.checks);
    } else {
      pf::print("[       OK ] %s.%s (%d checks)\n", c->suite, c->name, ctx.checks);
    }
  }
  pf::print("[==========] %d cases, %d checks, %d failed cases\n", count, checks, failed);
  if (count == kMaxCases) pf::write("warning: case list truncated at kMaxCases\n");
  pf::flush();
  return failed > 127 ? 127 : failed;
}
