/// @file compare_report.hpp
/// What `softgrad compare` reports of its methods' runs: the verdict (the best reward and its
/// 90%), the printed table, compare.json, and the files compare.csv and compare.svg.
#pragma once

#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/locomotion_problem.hpp"

namespace softgrad::app {

/// One method's run.
struct MethodRun {
  std::string name, policy;
  std::vector<CurveSample> curve;
  long steps_used = 0;
  double seconds = 0.0;
  double best = -std::numeric_limits<double>::infinity();
};

/// `v` printed with the printf format `format` (one double).
std::string fmt(const char* format, double v);

/// The steps of the first curve point with reward >= threshold; -1 if none, or if the
/// threshold is not finite.
long steps_to(const MethodRun& m, double threshold);

/// The best reward of all methods and its 90%.
struct Verdict {
  double best = -std::numeric_limits<double>::infinity();
  double threshold = 0.0;
};

Verdict judge(const std::vector<MethodRun>& runs);

/// The printed report: the headline, one row per method, each baseline's best against the
/// gradients.
std::string report_text(const LocomotionProblem& p, long budget, const std::vector<MethodRun>& runs,
                        const Verdict& v);

/// compare.json: the settings, the verdict, each baseline against the gradients, the curves.
nlohmann::ordered_json summary_json(const LocomotionProblem& p, const std::vector<MethodRun>& runs,
                                    const Verdict& v, long budget, long gradient_budget,
                                    bool interrupted);

/// compare.csv, compare.json (`summary`) and compare.svg in `dir`.
void write_files(const std::filesystem::path& dir, const std::vector<MethodRun>& runs,
                 const nlohmann::ordered_json& summary, const std::string& name,
                 const std::string& label);

}  // namespace softgrad::app
