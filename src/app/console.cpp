#include "app/console.hpp"

#include <ostream>
#include <string>
#include <utility>

namespace softgrad::app {
LogLevel log_level_for(Verbosity verbosity) {
  switch (verbosity) {
    case Verbosity::Quiet:
      return LogLevel::Error;
    case Verbosity::Normal:
      return LogLevel::Warn;
    case Verbosity::Verbose:
      return LogLevel::Info;
  }
  return LogLevel::Warn;
}

LogRedirect::LogRedirect(const Console& console, Verbosity verbosity)
    : console_(console), previous_level_(log_level()), previous_sink_(log_sink()) {
  set_log_level(log_level_for(verbosity));
  // The sink runs under the library's log mutex, so messages from worker threads do not interleave.
  set_log_sink([this](LogLevel level, const std::string& message) {
    if (before_) before_();
    console_.err << "softgrad: " << to_string(level) << ": " << message << std::endl;
  });
}

LogRedirect::~LogRedirect() {
  set_log_sink(previous_sink_);  // Python's, when a command ran from Python
  set_log_level(previous_level_);
}

void LogRedirect::set_before_message(std::function<void()> before) { before_ = std::move(before); }

}  // namespace softgrad::app
