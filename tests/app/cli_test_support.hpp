/// @file cli_test_support.hpp
/// Runs the command-line program in-process for the app tests: exit code, stdout and stderr.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "support/text.hpp"

namespace softgrad::test {

/// What one `softgrad ...` invocation did.
struct Outcome {
  int code = -1;
  std::string out, err;
};

/// Runs `softgrad args...` with captured output (no terminal: no progress bar).
inline Outcome cli(std::vector<std::string> args) {
  args.insert(args.begin(), "softgrad");
  std::ostringstream out, err;
  Outcome o;
  o.code = app::run_cli(args, app::Console{out, err, false});
  o.out = out.str();
  o.err = err.str();
  return o;
}

}  // namespace softgrad::test
