// The doctest main of every test executable. A run whose filters select no test case fails:
// CTest runs one case per process by name, and a name doctest cannot match (a ';' in it splits
// the CTest name) would otherwise pass without asserting anything.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include "softgrad/openmp_waiting.hpp"

namespace {

unsigned g_selected = 0;  // test cases that passed the filters in the last run
bool g_ran = false;

struct SelectionCounter : doctest::IReporter {
  explicit SelectionCounter(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& stats) override {
    g_selected = stats.numTestCasesPassingFilters;
    g_ran = true;
  }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

REGISTER_LISTENER("selection_counter", 1, SelectionCounter);

}  // namespace

int main(int argc, char** argv) {
  softgrad::restart_with_bounded_openmp_waiting(argv);
  doctest::Context context(argc, argv);
  const int result = context.run();
  if (context.shouldExit() || result != 0 || !g_ran) return result;
  if (g_selected == 0) {
    std::fprintf(stderr, "error: the filters selected no test case (is there a ';' in a name?)\n");
    return 1;
  }
  return 0;
}
