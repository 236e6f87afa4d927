/// @file interrupt.hpp
/// Ctrl-C (SIGINT) and SIGTERM (kill, a batch system's time limit) for the long commands: while
/// an InterruptHandler lives, either signal sets a flag that the command polls between steps or
/// iterations; it then stops and writes what it has. A second signal ends the program at once.
#pragma once

#include <csignal>

namespace softgrad::app {

class InterruptHandler {
 public:
  InterruptHandler();
  ~InterruptHandler();
  InterruptHandler(const InterruptHandler&) = delete;
  InterruptHandler& operator=(const InterruptHandler&) = delete;

  /// The flag the signals set (0: none yet), for loops that poll a pointer.
  static volatile std::sig_atomic_t* flag();
  static bool interrupted() { return *flag() != 0; }
  /// The exit code for the signal received: 130 for SIGINT, 143 for SIGTERM (128 + number).
  static int exit_code();

 private:
  void (*previous_int_)(int);
  void (*previous_term_)(int);
};

}  // namespace softgrad::app
