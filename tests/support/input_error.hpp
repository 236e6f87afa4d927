/// @file input_error.hpp
/// The message of the InputError a call throws, for tests that check what bad input is told.
#pragma once

#include <string>

#include "softgrad/errors.hpp"

namespace softgrad::test {

/// The message of the InputError that `f()` throws, or "" if it throws none.
template <class F>
std::string input_error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace softgrad::test
