/// @file text.hpp
/// Checks on text: error messages, program output, written files.
#pragma once

#include <doctest/doctest.h>

#include <string>

namespace softgrad::test {

/// Whether `text` contains `part`; if not, logs the start of `text` beside the failing check.
inline bool contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return true;
  MESSAGE("'" << text.substr(0, 400) << "' does not contain '" << part << "'");
  return false;
}

}  // namespace softgrad::test
