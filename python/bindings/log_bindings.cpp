// softgrad's C++ log records to Python's logging.getLogger("softgrad"). Records are queued,
// from any thread, and handed to the logger when the call that made them returns
// (softgrad._typed's wrappers call _flush_log): a worker thread never waits for the GIL, which
// the thread waiting for it may hold, and no Python handler runs (and lets other Python
// threads in) in the middle of a step.
#include <atomic>
#include <deque>
#include <mutex>
#include <string>
#include <utility>

#include "bindings.hpp"
#include "handles.hpp"
#include "softgrad/log.hpp"

namespace softgrad::python {

namespace py = pybind11;

namespace {

std::mutex& queue_mutex() {
  static std::mutex m;
  return m;
}
std::deque<std::pair<LogLevel, std::string>>& queue() {
  static auto* q = new std::deque<std::pair<LogLevel, std::string>>;  // outlives the interpreter
  return *q;
}

int python_level(LogLevel l) {
  switch (l) {
    case LogLevel::Error:
      return 40;
    case LogLevel::Warn:
      return 30;
    case LogLevel::Info:
      return 20;
    case LogLevel::Debug:
      return 10;
  }
  return 30;
}

/// Hands one record to the logger; the caller holds the GIL. A handler's error is Python's to
/// report (sys.unraisablehook), never the simulation's.
py::object* g_logger = nullptr;  // logging.getLogger("softgrad"), found at import

void emit(LogLevel l, const std::string& message) {
  try {
    g_logger->attr("log")(python_level(l), message);
  } catch (py::error_already_set& e) {
    e.discard_as_unraisable("softgrad's log handler");
  }
}

std::atomic<bool> pending_records{false};

void sink(LogLevel l, const std::string& message) {
  const std::lock_guard<std::mutex> lock(queue_mutex());
  queue().emplace_back(l, message);
  pending_records = true;
}

}  // namespace

void flush_log() {
  if (!pending_records.exchange(false)) return;
  std::deque<std::pair<LogLevel, std::string>> pending;
  {
    const std::lock_guard<std::mutex> lock(queue_mutex());
    pending.swap(queue());
  }
  for (const auto& [level, message] : pending) emit(level, message);
}

void bind_log(py::module_& m) {
  g_logger = new py::object(py::module_::import("logging").attr("getLogger")("softgrad"));
  set_log_sink(sink);
  set_log_level(LogLevel::Debug);  // every record: the logger's level and handlers choose
  m.def("_flush_log", &flush_log, "Hands the queued log records to logging.getLogger('softgrad').");
}

}  // namespace softgrad::python
