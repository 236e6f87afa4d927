/// @file fuzz_support.hpp
/// What every fuzz target shares: a private folder for the files a reader must open, and the
/// rule that an input may be refused only with an InputError (any other exception, a crash or
/// a sanitizer report is a finding).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "softgrad/errors.hpp"

namespace softgrad::fuzz {

/// A folder of this process's own under /tmp (made once).
inline const std::string& work_dir() {
  static const std::string dir = [] {
    char name[] = "/tmp/softgrad-fuzz-XXXXXX";
    if (!mkdtemp(name)) std::abort();
    return std::string(name);
  }();
  return dir;
}

/// Writes `bytes` to work_dir()/name and returns the path.
inline std::string write_input(const std::string& name, std::string_view bytes) {
  const std::string path = work_dir() + "/" + name;
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<long>(bytes.size()));
  return path;
}

/// Inputs a reader accepted so far in this process (the replay checks that inputs named
/// "refused_*" are not among them).
inline int& accepted_inputs() {
  static int n = 0;
  return n;
}

/// Runs `f`; an InputError is the reader refusing bad input and ends the run normally.
template <class F>
int expect_input_errors_only(F&& f) {
  try {
    f();
    ++accepted_inputs();
  } catch (const InputError&) {
  }
  return 0;
}

}  // namespace softgrad::fuzz
