/// @file log.hpp
/// The library's only output channel. Library code never prints or exits: it logs through
/// softgrad::log(), whose sink (stderr by default) and verbosity the application chooses.
#pragma once

#include <functional>
#include <sstream>
#include <string>

namespace softgrad {

enum class LogLevel { Error = 0, Warn = 1, Info = 2, Debug = 3 };

/// Receives every message at or below the current verbosity.
using LogSink = std::function<void(LogLevel, const std::string&)>;

/// Replaces the sink (pass nullptr to restore stderr). The sink runs under the library's log
/// mutex (messages from worker threads do not interleave); it must not log itself.
void set_log_sink(LogSink sink);
/// The current sink (empty: stderr), to restore after a temporary one.
LogSink log_sink();
/// Messages above this level are dropped. Default: Warn.
void set_log_level(LogLevel level);
LogLevel log_level();
/// The level's word in messages: "error", "warning", "info" or "debug".
const char* to_string(LogLevel level);
/// Sends one message to the sink if `level` is enabled.
void log(LogLevel level, const std::string& message);

}  // namespace softgrad
