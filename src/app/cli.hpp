/// @file cli.hpp
/// The softgrad program: parses the command line and runs the chosen subcommand.
#pragma once

#include <string>
#include <vector>

#include "app/console.hpp"

namespace softgrad::app {

/// Exit codes of the program.
enum ExitCode : int {
  kExitOk = 0,
  kExitInputError = 1,     ///< bad arguments, scene or mesh, unwritable output
  kExitNewtonFailed = 2,   ///< a Newton solve failed under on_failure "stop"
  kExitInternalError = 3,  ///< a bug in softgrad (InternalError) or an unexpected exception
  kExitCheckFailed = 4,    ///< gradcheck: an adjoint gradient disagrees with finite differences
  kExitInterrupted = 130   ///< Ctrl-C; what was computed is written
};

/// Runs the program on `args` (args[0] is the program name, as argv). Never throws: a usage error
/// or an InputError prints "softgrad: error: <message>" on console.err and returns
/// kExitInputError; a ConvergenceError (a failed forward step in grad or gradcheck) prints the
/// same and returns kExitNewtonFailed; an InternalError or other exception prints "softgrad:
/// internal error: ..." and returns kExitInternalError. --help and --version print on console.out
/// and return 0.
int run_cli(const std::vector<std::string>& args, const Console& console);

}  // namespace softgrad::app
