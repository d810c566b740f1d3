// Proves no public function of the engine allocates: every float and int8
// op, every *_prepare, model_load, the model helpers and the model runners,
// their error paths too, run between alloc_counter::arm() and disarm()
// (alloc_counter.h: malloc's family and every operator new / delete are
// counted), and the test demands zero calls.
//
// The ops run once per kernel level this build can select: every x86 int8
// dispatch level (scalar, AVX2, AVX-VNNI, AVX-512 VNNI) and every Highway
// target compiled into the float kernels, each forced alone; a level this
// CPU lacks is reported as skipped. Other builds (Arm) run their one static
// kernel set ("build").
//
// A control test proves the counters work: a std::vector, a raw malloc and a
// new expression inside the armed window ARE counted.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "alloc_counter.h"
#include "alloc_ops.h"
#include "kernels/s8/kernels_s8.h"

#if ATTN_TEST_HWY
#include "hwy/targets.h"
#endif

namespace {

using alloc_counter::arm;
using alloc_counter::Counts;
using alloc_counter::disarm;

// Keeps a pointer observable so the compiler cannot elide an allocation.
void escape(const void* p) { asm volatile("" : : "g"(p) : "memory"); }

TEST(Allocation, CountersSeeVectorMallocAndNew) {
  arm();
  {
    std::vector<int> v(100, 7);
    escape(v.data());
  }
  const Counts after_vector = disarm();
  EXPECT_GE(after_vector.new_calls, 2) << "std::vector's new + delete were not counted";
#if !defined(ATTN_ALLOC_TEST_SANITIZED)
  EXPECT_GE(after_vector.malloc_calls, 2) << "operator new's malloc + free were not counted";
  arm();
  void* p = std::malloc(64);
  escape(p);
  std::free(p);
  const Counts after_malloc = disarm();
  EXPECT_EQ(after_malloc.malloc_calls, 2);
  EXPECT_EQ(after_malloc.new_calls, 0);
#endif
  arm();
  int* q = new int(3);
  escape(q);
  delete q;
  EXPECT_GE(disarm().new_calls, 2);
}

// One kernel level to force before the ops run.
struct Level {
  enum Kind { kBuild, kS8X86, kHwy };
  std::string name;
  Kind kind;
  int64_t id;  // x86 int8 level, or Highway target bit
};

void PrintTo(const Level& l, std::ostream* os) { *os << l.name; }

// GoogleTest parameter names: letters, digits and '_'.
std::string param_name(std::string s) {
  for (char& c : s) {
    if ((c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9')) c = '_';
  }
  return s;
}

std::vector<Level> levels() {
  std::vector<Level> v;
#if defined(ATTN_S8_KERNELS_X86)
  for (int l = 0; l < 4; ++l) {
    v.push_back({std::string("s8_") + attn::detail::kernels_s8_level_name(l), Level::kS8X86, l});
  }
#endif
#if ATTN_TEST_HWY && HWY_ARCH_X86
  // Every target compiled into this build (the library's list: same flags).
  for (int64_t bits = HWY_TARGETS; bits != 0; bits &= bits - 1) {
    const int64_t t = bits & -bits;
    v.push_back({std::string("hwy_") + ::hwy::TargetName(t), Level::kHwy, t});
  }
#endif
  if (v.empty()) v.push_back({"build", Level::kBuild, 0});
  return v;
}

class AllocationAtLevel : public ::testing::TestWithParam<Level> {
 protected:
  void SetUp() override {
    const Level& l = GetParam();
#if defined(ATTN_S8_KERNELS_X86)
    if (l.kind == Level::kS8X86 && !attn::detail::kernels_s8_select(static_cast<int>(l.id))) {
      GTEST_SKIP() << "this CPU lacks the x86 int8 level " << l.name;
    }
    if (l.kind == Level::kS8X86) std::printf("x86 int8 kernels forced: %s\n", l.name.c_str());
#endif
#if ATTN_TEST_HWY && HWY_ARCH_X86
    if (l.kind == Level::kHwy) {
      if ((::hwy::SupportedTargets() & l.id) == 0) {
        GTEST_SKIP() << "this CPU lacks the Highway target " << l.name;
      }
      ::hwy::SetSupportedTargetsForTest(l.id);
      std::printf("Highway target forced: %s\n", l.name.c_str());
    }
#endif
    (void)l;
  }
  void TearDown() override {
#if defined(ATTN_S8_KERNELS_X86)
    attn::detail::kernels_s8_select(-1);
#endif
#if ATTN_TEST_HWY && HWY_ARCH_X86
    ::hwy::SetSupportedTargetsForTest(0);
#endif
  }

  // Runs `ops` (which records into results) inside the armed window, then
  // demands zero allocations and the expected status of every call.
  template <class Ops>
  void expect_no_allocation(const char* what, Ops ops) {
    alloc_ops::Results results;
    arm();
    ops(&results);
    const Counts c = disarm();
    EXPECT_EQ(c.malloc_calls, 0) << what << ": malloc/calloc/realloc/free called";
    EXPECT_EQ(c.new_calls, 0) << what << ": operator new/delete called";
    ASSERT_FALSE(results.overflowed) << "raise alloc_ops::Results::kMax";
    ASSERT_GT(results.count, 0);
    for (int i = 0; i < results.count; ++i) {
      const alloc_ops::Result& r = results.items[i];
      EXPECT_EQ(r.status, r.expected) << r.name << ": " << attn::status_str(r.status);
    }
  }
};

TEST_P(AllocationAtLevel, FloatOps) {
  alloc_ops::Inputs in;
  expect_no_allocation("float ops", [&](alloc_ops::Results* r) { alloc_ops::float_ops(in, r); });
}

TEST_P(AllocationAtLevel, Int8Ops) {
  alloc_ops::Inputs in;
  expect_no_allocation("int8 ops", [&](alloc_ops::Results* r) { alloc_ops::int8_ops(in, r); });
}

TEST_P(AllocationAtLevel, ModelsLoadAndRun) {
  alloc_ops::Inputs in;
  alloc_ops::Blobs blobs;
  ASSERT_TRUE(blobs.read(ATTN_MODEL_DATA_DIR)) << blobs.missing;
  expect_no_allocation("models",
                       [&](alloc_ops::Results* r) { alloc_ops::model_ops(blobs, in, r); });
}

INSTANTIATE_TEST_SUITE_P(Levels, AllocationAtLevel, ::testing::ValuesIn(levels()),
                         [](const ::testing::TestParamInfo<Level>& i) {
                           return param_name(i.param.name);
                         });

}  // namespace
