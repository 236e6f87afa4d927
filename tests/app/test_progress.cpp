#include <doctest/doctest.h>

#include <limits>
#include <sstream>

#include "app/progress.hpp"
#include "app_test_support.hpp"

using softgrad::app::format_duration;
using softgrad::app::Progress;
using softgrad::app::Verbosity;
using softgrad::test::count_of;

TEST_CASE("app/progress: durations read as seconds, m:ss or h:mm:ss") {
  CHECK(format_duration(0.0) == "0.0 s");
  CHECK(format_duration(12.34) == "12.3 s");
  CHECK(format_duration(65.0) == "1:05");
  CHECK(format_duration(3725.0) == "1:02:05");
  CHECK(format_duration(-1.0) == "?");
  CHECK(format_duration(std::numeric_limits<double>::quiet_NaN()) == "?");
}

TEST_CASE("app/progress: the style follows the verbosity and whether stderr is a terminal") {
  CHECK(Progress::choose(Verbosity::Quiet, true) == Progress::Style::None);
  CHECK(Progress::choose(Verbosity::Normal, true) == Progress::Style::Bar);
  CHECK(Progress::choose(Verbosity::Verbose, false) == Progress::Style::Lines);
}

TEST_CASE("app/progress: off a terminal one line per tenth, with rate and ETA") {
  std::ostringstream os;
  {
    Progress p(os, Progress::Style::Lines, 100);
    for (int k = 1; k <= 100; ++k) p.update(k, 0.5 * k);
  }
  const std::string text = os.str();
  CHECK(count_of(text, "\n") == 10);
  CHECK(text.find("softgrad: step 10/100 (10%), 2 steps/s, ETA 45.0 s\n") != std::string::npos);
  CHECK(text.find("step 100/100 (100%)") != std::string::npos);
  CHECK(text.find('\r') == std::string::npos);
}

TEST_CASE("app/progress: off a terminal a short run reports every step") {
  std::ostringstream os;
  Progress p(os, Progress::Style::Lines, 3);
  for (int k = 1; k <= 3; ++k) p.update(k, k);
  CHECK(count_of(os.str(), "\n") == 3);
}

TEST_CASE("app/progress: on a terminal a throttled bar is redrawn in place and ended") {
  std::ostringstream os;
  Progress p(os, Progress::Style::Bar, 10);
  p.update(1, 0.01);
  p.update(2, 0.02);  // within 0.1 s of the last drawing: skipped
  p.update(5, 0.5);
  const std::string mid = os.str();
  CHECK(count_of(mid, "\r\033[K[") == 2);
  CHECK(mid.find(" 5/10  50% | 10 steps/s | ETA 0.5 s") != std::string::npos);
  CHECK(mid.find("[###############---------------]") != std::string::npos);
  p.clear();
  CHECK(os.str().substr(mid.size()) == "\r\033[K");
  p.update(10, 0.51);  // the last step is always drawn
  p.finish();
  CHECK(os.str().find(" 10/10 100%") != std::string::npos);
  CHECK(os.str().back() == '\n');
}

TEST_CASE("app/progress: style None, or a run of zero steps, prints nothing") {
  std::ostringstream os;
  {
    Progress none(os, Progress::Style::None, 10);
    none.update(5, 1.0);
    Progress empty(os, Progress::Style::Bar, 0);
    empty.update(0, 1.0);
  }
  CHECK(os.str().empty());
}
