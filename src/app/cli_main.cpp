// The command line's entry point in libsoftgrad, called by the softgrad launcher (main.cpp).
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "app/cli.hpp"

extern "C" __attribute__((visibility("default"))) int softgrad_cli_main(int argc, char** argv) {
  const std::vector<std::string> args(argv, argv + argc);
  const softgrad::app::Console console{std::cout, std::cerr, isatty(STDERR_FILENO) == 1};
  return softgrad::app::run_cli(args, console);
}
