/// @file console.hpp
/// Where the softgrad program writes: the final report on stdout; errors, warnings and progress
/// on stderr. The library never prints (STYLE.md §6): while a command runs, a LogRedirect routes
/// softgrad::log() to the console at the verbosity the user chose.
#pragma once

#include <functional>
#include <iosfwd>

#include "softgrad/log.hpp"

namespace softgrad::app {

/// How much the program says on stderr: --quiet, the default, --verbose.
enum class Verbosity { Quiet, Normal, Verbose };

/// The program's streams. main() passes std::cout and std::cerr; tests pass string streams.
struct Console {
  std::ostream& out;             ///< the final report
  std::ostream& err;             ///< errors, warnings, progress
  bool err_is_terminal = false;  ///< stderr is a terminal: a redrawn progress bar is allowed
};

/// The library log level for a verbosity: Quiet -> Error, Normal -> Warn, Verbose -> Info.
LogLevel log_level_for(Verbosity verbosity);

/// While alive, library log messages go to console.err as "softgrad: <level>: <message>", at the
/// level log_level_for(verbosity). The destructor restores the previous level and the default
/// (stderr) sink. One at a time: the log sink is process-wide.
class LogRedirect {
 public:
  LogRedirect(const Console& console, Verbosity verbosity);
  ~LogRedirect();
  LogRedirect(const LogRedirect&) = delete;
  LogRedirect& operator=(const LogRedirect&) = delete;

  /// Called before each message is written; a progress bar uses it to clear its line.
  void set_before_message(std::function<void()> before);

 private:
  const Console& console_;
  LogLevel previous_level_;
  LogSink previous_sink_;  ///< restored on destruction
  std::function<void()> before_;
};

}  // namespace softgrad::app
