#include "app/progress.hpp"

#include <cmath>
#include <cstdio>
#include <ostream>
#include <utility>

namespace softgrad::app {
namespace {

constexpr int kBarWidth = 30;
constexpr double kRedrawInterval = 0.1;  // [s]

}  // namespace

std::string format_duration(double seconds) {
  if (!(seconds >= 0.0) || !std::isfinite(seconds)) return "?";
  char buf[48];
  if (seconds < 60.0) {
    std::snprintf(buf, sizeof buf, "%.1f s", seconds);
    return buf;
  }
  const long long s = std::llround(seconds);
  if (s < 3600) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", s / 3600, (s / 60) % 60, s % 60);
  }
  return buf;
}

Progress::Style Progress::choose(Verbosity verbosity, bool is_terminal) {
  if (verbosity == Verbosity::Quiet) return Style::None;
  return is_terminal ? Style::Bar : Style::Lines;
}

Progress::Progress(std::ostream& os, Style style, int total_steps, std::string unit)
    : os_(os),
      style_(total_steps > 0 ? style : Style::None),
      total_(total_steps),
      unit_(std::move(unit)) {}

Progress::~Progress() { finish(); }

std::string Progress::rate_and_eta(int done, double elapsed_s, const char* separator) const {
  const double rate = elapsed_s > 0.0 ? done / elapsed_s : 0.0;
  const double eta = rate > 0.0 ? (total_ - done) / rate : -1.0;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g %ss/s", rate, unit_.c_str());
  return std::string(buf) + separator + "ETA " + format_duration(eta);
}

void Progress::update(int done, double elapsed_s) {
  if (style_ == Style::None) return;
  const int percent = static_cast<int>(100LL * done / total_);
  if (style_ == Style::Lines) {
    // One line each time a new tenth of the run is reached.
    const int tenth = static_cast<int>(10LL * done / total_);
    if (tenth <= last_tenth_) return;
    last_tenth_ = tenth;
    os_ << "softgrad: " << unit_ << " " << done << "/" << total_ << " (" << percent << "%), "
        << rate_and_eta(done, elapsed_s, ", ") << std::endl;
    return;
  }
  // Bar: redraw in place, throttled, always at the last step.
  if (done < total_ && last_draw_s_ >= 0.0 && elapsed_s - last_draw_s_ < kRedrawInterval) return;
  last_draw_s_ = elapsed_s;
  const int filled = static_cast<int>(static_cast<long long>(kBarWidth) * done / total_);
  char counts[64];
  std::snprintf(counts, sizeof counts, "] %*d/%d %3d%% | ",
                static_cast<int>(std::to_string(total_).size()), done, total_, percent);
  os_ << "\r\033[K[" << std::string(filled, '#') << std::string(kBarWidth - filled, '-') << counts
      << rate_and_eta(done, elapsed_s, " | ") << std::flush;
  drawn_ = true;
}

void Progress::clear() {
  if (style_ != Style::Bar || !drawn_) return;
  os_ << "\r\033[K" << std::flush;
  drawn_ = false;
  last_draw_s_ = -1.0;  // the next update redraws
}

void Progress::finish() {
  if (style_ != Style::Bar || !drawn_) return;
  os_ << "\n" << std::flush;
  drawn_ = false;
  last_draw_s_ = -1.0;
}

}  // namespace softgrad::app
