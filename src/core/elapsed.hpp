/// @file elapsed.hpp
/// Wall-clock seconds since a steady-clock time point (the times in summaries and reports).
#pragma once

#include <chrono>

namespace softgrad {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace softgrad
