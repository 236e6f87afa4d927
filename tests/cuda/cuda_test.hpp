/// @file cuda_test.hpp
/// Skipping GPU test cases on machines without a CUDA device (STYLE.md §8): a case starts with
/// SOFTGRAD_REQUIRE_CUDA_DEVICE(), which, without a device, prints "skipped: no CUDA device"
/// and returns; the test main then exits with kSkipReturnCode, which ctest shows as Skipped
/// rather than Passed.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "solvers/cuda/context.hpp"

namespace softgrad::test {

/// Exit code of tests_cuda when a case was skipped (ctest's SKIP_RETURN_CODE).
constexpr int kSkipReturnCode = 77;

/// Set when a case skipped itself; read by the test main.
inline bool& cuda_case_skipped() {
  static bool skipped = false;
  return skipped;
}

/// True if a CUDA device is present; otherwise records the skip and says why.
inline bool cuda_device_present() {
  std::string why;
  if (cuda::device_count(&why) > 0) return true;
  MESSAGE("skipped: no CUDA device (" << why << ")");
  cuda_case_skipped() = true;
  return false;
}

}  // namespace softgrad::test

/// Returns from the test case, marked skipped, when there is no CUDA device.
#define SOFTGRAD_REQUIRE_CUDA_DEVICE()                    \
  do {                                                    \
    if (!::softgrad::test::cuda_device_present()) return; \
  } while (false)
