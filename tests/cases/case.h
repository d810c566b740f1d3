// A tiny test-case framework that runs the same cases under GoogleTest on
// Linux hosts and under the bare-metal runner on Cortex-M boards.
//
// A case is a function registered with ATTN_CASE(suite, name). It checks with
// ATTN_EXPECT_* macros, which report through the Context (no exceptions, no
// heap, no iostreams). Cases keep their data in static storage sized for the
// smallest board (stay under ~256 KiB per case), compute expected values with
// an independent double-precision implementation, and use the deterministic
// Rng below, so every target runs identical inputs.
//
// Registration uses static constructors that link nodes into one list: the
// bare-metal start-up must run .init_array (the platform's reset handler does).
#pragma once

#include <cstddef>
#include <cstdint>

namespace attn_test {

struct Context {
  int failures = 0;
  int checks = 0;
  // Receives one line per failed check (without a newline).
  void (*report)(const char* line) = nullptr;
};

using CaseFn = void (*)(Context&);

struct Case {
  const char* suite;
  const char* name;
  CaseFn fn;
  Case* next;
};

// The head of the registry (cases in reverse order of registration).
Case*& case_list();

struct Registrar {
  Registrar(Case* c) {
    c->next = case_list();
    case_list() = c;
  }
};

// Failure reporting, formatting into a fixed buffer.
void fail(Context& ctx, const char* file, int line, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

// Deterministic xorshift32 generator: identical streams on every target.
class Rng {
 public:
  explicit Rng(uint32_t seed) : state_(seed == 0 ? 0x9e3779b9u : seed) {}
  uint32_t next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 17;
    state_ ^= state_ << 5;
    return state_;
  }
  // Uniform in [lo, hi).
  float uniform(float lo, float hi) {
    return lo + (hi - lo) * static_cast<float>(next() >> 8) * (1.0f / 16777216.0f);
  }
  // Uniform integer in [lo, hi].
  int32_t range(int32_t lo, int32_t hi) {
    return lo + static_cast<int32_t>(next() % static_cast<uint32_t>(hi - lo + 1));
  }

 private:
  uint32_t state_;
};

// Fills p[0, n) with uniform values in [lo, hi).
inline void fill_uniform(Rng& rng, float* p, std::size_t n, float lo, float hi) {
  for (std::size_t i = 0; i < n; ++i) p[i] = rng.uniform(lo, hi);
}

// A case whose name starts with "DISABLED_" documents a known engine bug with
// a reproducer that currently fails. GoogleTest skips such tests natively;
// other runners should skip a case when this returns true.
bool is_disabled(const Case& c);

// ---------------------------------------------------------------------------
// Static memory for cases.
//
// One static arena of kArenaBytes, shared by every case (cases run one at a
// time), so the RAM a test image needs does not grow with the number of cases.
// An Arena object is a bump allocator over it that gives its memory back when
// it goes out of scope (stack discipline: inner Arenas nest). Allocation never
// fails loudly: it returns null and clears ok(), which the case asserts.
inline constexpr std::size_t kArenaBytes = 192u * 1024u;

class Arena {
 public:
  Arena();
  ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  // `n` bytes aligned to `align` (a power of two <= 64), or null when the
  // arena is exhausted. Memory is not cleared.
  void* bytes(std::size_t n, std::size_t align = 64);
  template <typename T>
  T* alloc(std::size_t n) {
    return static_cast<T*>(bytes(n * sizeof(T) + (n == 0 ? 1 : 0), 64));
  }
  bool ok() const { return ok_; }
  // Bytes in use in the whole arena (this and enclosing Arenas).
  static std::size_t in_use();
  // The most bytes ever in use at once (for sizing boards).
  static std::size_t high_water();

 private:
  std::size_t mark_;
  bool ok_ = true;
};

// ---------------------------------------------------------------------------
// Array checks. Each counts as one check and reports at most a few failing
// elements (the index and values), so a broken op does not flood a UART.

// |actual[i] - expected[i]| <= tol[i] for every i < n; NaN never passes.
bool expect_close(Context& ctx, const char* file, int line, const char* what, const float* actual,
                  const double* expected, const double* tol, std::size_t n);

// The largest |actual - expected| / tol that expect_close has seen so far
// (how much of the error bounds the ops use; for reports and tuning).
double max_tol_ratio();

// Every actual[i] has the bit pattern of `value` (NaN sentinels compare).
bool expect_all_bits(Context& ctx, const char* file, int line, const char* what,
                     const float* actual, float value, std::size_t n);

// Every byte of p[0, n) equals `value` (scratch guard bands).
bool expect_all_bytes(Context& ctx, const char* file, int line, const char* what,
                      const unsigned char* p, unsigned char value, std::size_t n);

// a[i] and b[i] have the same bit pattern for every i < n.
bool expect_same_bits(Context& ctx, const char* file, int line, const char* what, const float* a,
                      const float* b, std::size_t n);

// Bit pattern helpers (memcpy, no aliasing tricks).
uint32_t float_bits(float f);
float bits_float(uint32_t u);

}  // namespace attn_test

#define ATTN_EXPECT_CLOSE(what, actual, expected, tol, n) \
  attn_test::expect_close(ctx, __FILE__, __LINE__, what, actual, expected, tol, n)
#define ATTN_EXPECT_ALL_BITS(what, actual, value, n) \
  attn_test::expect_all_bits(ctx, __FILE__, __LINE__, what, actual, value, n)
#define ATTN_EXPECT_ALL_BYTES(what, p, value, n) \
  attn_test::expect_all_bytes(ctx, __FILE__, __LINE__, what, p, value, n)
#define ATTN_EXPECT_SAME_BITS(what, a, b, n) \
  attn_test::expect_same_bits(ctx, __FILE__, __LINE__, what, a, b, n)

// Status check that prints both statuses' text on failure.
#define ATTN_EXPECT_STATUS(actual, expected)                                                   \
  do {                                                                                         \
    ++ctx.checks;                                                                              \
    const int attn_sa_ = static_cast<int>(actual);                                             \
    const int attn_se_ = static_cast<int>(expected);                                           \
    if (attn_sa_ != attn_se_)                                                                  \
      attn_test::fail(ctx, __FILE__, __LINE__, "%s = %d, expected %s = %d", #actual, attn_sa_, \
                      #expected, attn_se_);                                                    \
  } while (0)

#define ATTN_CASE_CONCAT2(a, b) a##b
#define ATTN_CASE_CONCAT(a, b) ATTN_CASE_CONCAT2(a, b)

#define ATTN_CASE(suite, name)                                                                \
  static void ATTN_CASE_CONCAT(case_fn_, ATTN_CASE_CONCAT(suite, name))(attn_test::Context&); \
  static attn_test::Case ATTN_CASE_CONCAT(case_, ATTN_CASE_CONCAT(suite, name)){              \
      #suite, #name, &ATTN_CASE_CONCAT(case_fn_, ATTN_CASE_CONCAT(suite, name)), nullptr};    \
  static attn_test::Registrar ATTN_CASE_CONCAT(case_reg_, ATTN_CASE_CONCAT(suite, name)){     \
      &ATTN_CASE_CONCAT(case_, ATTN_CASE_CONCAT(suite, name))};                               \
  static void ATTN_CASE_CONCAT(case_fn_, ATTN_CASE_CONCAT(suite, name))(attn_test::Context & ctx)

// Checks. Each counts, and on failure reports file:line and the values.
#define ATTN_EXPECT_TRUE(cond)                                                   \
  do {                                                                           \
    ++ctx.checks;                                                                \
    if (!(cond)) attn_test::fail(ctx, __FILE__, __LINE__, "expected %s", #cond); \
  } while (0)

#define ATTN_EXPECT_EQ_INT(actual, expected)                                                      \
  do {                                                                                            \
    ++ctx.checks;                                                                                 \
    const long long attn_a_ = static_cast<long long>(actual);                                     \
    const long long attn_e_ = static_cast<long long>(expected);                                   \
    if (attn_a_ != attn_e_)                                                                       \
      attn_test::fail(ctx, __FILE__, __LINE__, "%s = %lld, expected %s = %lld", #actual, attn_a_, \
                      #expected, attn_e_);                                                        \
  } while (0)

// |actual - expected| <= tol (NaN never passes).
#define ATTN_EXPECT_NEAR(actual, expected, tol)                                                 \
  do {                                                                                          \
    ++ctx.checks;                                                                               \
    const double attn_a_ = static_cast<double>(actual);                                         \
    const double attn_e_ = static_cast<double>(expected);                                       \
    const double attn_d_ = attn_a_ > attn_e_ ? attn_a_ - attn_e_ : attn_e_ - attn_a_;           \
    if (!(attn_d_ <= static_cast<double>(tol)))                                                 \
      attn_test::fail(ctx, __FILE__, __LINE__, "%s = %.9g, expected %.9g (|diff| %.3g > %.3g)", \
                      #actual, attn_a_, attn_e_, attn_d_, static_cast<double>(tol));            \
  } while (0)

// Stops the case after a failed check (e.g. a status that makes the rest moot).
#define ATTN_ASSERT_TRUE(cond)           \
  do {                                   \
    const int attn_f_ = ctx.failures;    \
    ATTN_EXPECT_TRUE(cond);              \
    if (ctx.failures != attn_f_) return; \
  } while (0)
