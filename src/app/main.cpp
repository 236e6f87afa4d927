// The softgrad command line program; see `softgrad --help` and src/app/cli.hpp.
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "softgrad/openmp_waiting.hpp"

int main(int argc, char** argv) {
  softgrad::restart_with_bounded_openmp_waiting(argv);
  const std::vector<std::string> args(argv, argv + argc);
  const softgrad::app::Console console{std::cout, std::cerr, isatty(STDERR_FILENO) == 1};
  return softgrad::app::run_cli(args, console);
}
