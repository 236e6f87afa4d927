/// @file progress.hpp
/// A run's progress on stderr: a bar redrawn in place with steps/s and the ETA when stderr is a
/// terminal, one line per ~10 % of the steps when it is not (logs, CI), or nothing (--quiet).
#pragma once

#include <iosfwd>
#include <string>

#include "app/console.hpp"

namespace softgrad::app {

/// "12.3 s" under a minute, else "m:ss" or "h:mm:ss"; "?" for a negative or non-finite value.
std::string format_duration(double seconds);

class Progress {
 public:
  enum class Style {
    None,  ///< say nothing
    Bar,   ///< "\r[#####-----]  50/100  50% | 12.3 steps/s | ETA 4.1 s", redrawn in place
    Lines  ///< "softgrad: step 10/100 (10%), 12.3 steps/s, ETA 7.3 s", once per ~10 %
  };

  /// The style for a verbosity and a stream: None when quiet, Bar on a terminal, else Lines.
  static Style choose(Verbosity verbosity, bool is_terminal);

  /// Reports on `os` for a run of `total_steps` steps. @pre total_steps >= 0. `unit` names what
  /// is counted ("step": "step 3/10", "steps/s"; "run": "run 3/10", "runs/s").
  Progress(std::ostream& os, Style style, int total_steps, std::string unit = "step");
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// `done` steps have finished after `elapsed_s` seconds of stepping. The bar redraws at most
  /// ten times per second (and at the last step); lines appear when a new tenth is reached.
  void update(int done, double elapsed_s);
  /// Erases the bar so that other output can start at the beginning of the line; it reappears
  /// with the next update. No effect for the other styles.
  void clear();
  /// Ends the bar's line (a newline after the last drawing). Called by the destructor.
  void finish();

 private:
  std::string rate_and_eta(int done, double elapsed_s, const char* separator) const;

  std::ostream& os_;
  Style style_;
  int total_;
  std::string unit_;
  bool drawn_ = false;         // the bar is on screen
  double last_draw_s_ = -1.0;  // elapsed time of the last drawing
  int last_tenth_ = 0;         // Lines: the last tenth reported
};

}  // namespace softgrad::app
