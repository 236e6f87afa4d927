// The doctest main of tests_cuda: a run in which a case skipped itself for want of a CUDA device
// (and none failed) exits with kSkipReturnCode, so that ctest reports Skipped, not Passed.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include "cuda/cuda_test.hpp"

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int result = context.run();
  if (context.shouldExit()) return result;
  if (result == 0 && softgrad::test::cuda_case_skipped()) {
    std::printf("tests_cuda: skipped: no CUDA device\n");
    return softgrad::test::kSkipReturnCode;
  }
  return result;
}
