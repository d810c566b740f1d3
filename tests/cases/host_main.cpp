// Runs every registered case as one GoogleTest test (host and Linux targets).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "case.h"

namespace {

void report(const char* line) { ADD_FAILURE() << line; }

class CaseTest : public ::testing::Test {
 public:
  explicit CaseTest(attn_test::CaseFn fn) : fn_(fn) {}
  void TestBody() override {
    attn_test::Context ctx;
    ctx.report = &report;
    fn_(ctx);
    EXPECT_GT(ctx.checks, 0) << "a case that checks nothing";
  }

 private:
  attn_test::CaseFn fn_;
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<attn_test::Case*> cases;
  for (attn_test::Case* c = attn_test::case_list(); c != nullptr; c = c->next) cases.push_back(c);
  for (auto it = cases.rbegin(); it != cases.rend(); ++it) {
    attn_test::Case* c = *it;
    ::testing::RegisterTest(c->suite, c->name, nullptr, nullptr, __FILE__, __LINE__,
                            [c]() -> ::testing::Test* { return new CaseTest(c->fn); });
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
