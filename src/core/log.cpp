#include "softgrad/log.hpp"

#include <atomic>
#include <cstdio>
#include <mutex>

namespace softgrad {
namespace {

std::mutex& sink_mutex() {
  static std::mutex m;
  return m;
}
LogSink& sink() {
  static LogSink s;
  return s;
}
std::atomic<int>& level() {
  static std::atomic<int> l{static_cast<int>(LogLevel::Warn)};
  return l;
}

}  // namespace

const char* to_string(LogLevel l) {
  switch (l) {
    case LogLevel::Error:
      return "error";
    case LogLevel::Warn:
      return "warning";
    case LogLevel::Info:
      return "info";
    case LogLevel::Debug:
      return "debug";
  }
  return "?";
}

LogSink log_sink() {
  std::lock_guard<std::mutex> lock(sink_mutex());
  return sink();
}

void set_log_sink(LogSink s) {
  std::lock_guard<std::mutex> lock(sink_mutex());
  sink() = std::move(s);
}

void set_log_level(LogLevel l) { level() = static_cast<int>(l); }

LogLevel log_level() { return static_cast<LogLevel>(level().load()); }

void log(LogLevel l, const std::string& message) {
  if (static_cast<int>(l) > level().load()) return;
  std::lock_guard<std::mutex> lock(sink_mutex());
  if (sink()) {
    sink()(l, message);
  } else {
    std::fprintf(stderr, "softgrad %s: %s\n", to_string(l), message.c_str());
  }
}

}  // namespace softgrad
