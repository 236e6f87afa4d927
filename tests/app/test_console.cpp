#include <doctest/doctest.h>

#include <sstream>

#include "app/console.hpp"

using namespace softgrad;
using namespace softgrad::app;

TEST_CASE("app/console: verbosity picks the library log level") {
  CHECK(log_level_for(Verbosity::Quiet) == LogLevel::Error);
  CHECK(log_level_for(Verbosity::Normal) == LogLevel::Warn);
  CHECK(log_level_for(Verbosity::Verbose) == LogLevel::Info);
}

TEST_CASE("app/console: library logs go to the console's stderr while redirected") {
  std::ostringstream out, err;
  const Console console{out, err, false};
  const LogLevel before = log_level();
  {
    LogRedirect redirect(console, Verbosity::Verbose);
    int cleared = 0;
    redirect.set_before_message([&] { ++cleared; });
    log(LogLevel::Info, "hello");
    log(LogLevel::Debug, "dropped");
    CHECK(cleared == 1);
    CHECK(log_level() == LogLevel::Info);
  }
  CHECK(err.str() == "softgrad: info: hello\n");
  CHECK(out.str().empty());
  CHECK(log_level() == before);
  {
    LogRedirect quiet(console, Verbosity::Quiet);
    log(LogLevel::Warn, "hidden");
    log(LogLevel::Error, "shown");
  }
  CHECK(err.str() == "softgrad: info: hello\nsoftgrad: error: shown\n");
}
