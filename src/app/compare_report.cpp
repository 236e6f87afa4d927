#include "app/compare_report.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <utility>

#include "app/gradient_problem.hpp"
#include "io/text_output.hpp"
#include "scene/summary.hpp"
#include "softgrad/config.hpp"
#include "softgrad/detail/plot.hpp"

namespace softgrad::app {
namespace {

using json = nlohmann::ordered_json;

/// A baseline against the gradient method: the steps each needs to reach the baseline's best.
struct Duel {
  long baseline_steps = -1;  ///< the baseline's steps to its own best
  long gradient_steps = -1;  ///< the gradient method's steps to it
  double ratio = std::numeric_limits<double>::quiet_NaN();  ///< the two, when both are known
};

Duel duel(const MethodRun& gradient, const MethodRun& baseline) {
  Duel d;
  d.baseline_steps = steps_to(baseline, baseline.best);
  d.gradient_steps = steps_to(gradient, baseline.best);
  if (d.baseline_steps > 0 && d.gradient_steps > 0)
    d.ratio = static_cast<double>(d.baseline_steps) / static_cast<double>(d.gradient_steps);
  return d;
}

json steps_json(long steps) { return steps < 0 ? json(nullptr) : json(steps); }

/// A reward, or null for a method that did not run (-infinity).
json reward_json(double r) { return std::isfinite(r) ? json(r) : json(nullptr); }

/// The reward's unit ("m"), or null for the dimensionless losses.
json unit_or_none(const Locomotion& loc) {
  const std::string unit = loc.reward_unit();
  return unit.empty() ? json(nullptr) : json(unit);
}

json method_json(const MethodRun& m, const Verdict& v, const MethodRun& gradient) {
  json curve = json::array();
  for (const CurveSample& s : m.curve) curve.push_back({s.steps, s.reward});
  json j{{"method", m.name},
         {"policy", m.policy},
         {"steps_used", m.steps_used},
         {"best_reward_m", reward_json(m.best)},
         {"steps_to_90_percent", steps_json(steps_to(m, v.threshold))}};
  if (&m != &gradient) {
    const Duel d = duel(gradient, m);
    j["steps_to_its_best"] = steps_json(d.baseline_steps);
    j["gradient_steps_to_its_best"] = steps_json(d.gradient_steps);
    j["over_gradient_steps"] = std::isnan(d.ratio) ? json(nullptr) : json(d.ratio);
  }
  j["wall_time_s"] = m.seconds;
  j["curve"] = curve;
  return j;
}

}  // namespace

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

long steps_to(const MethodRun& m, double threshold) {
  if (!std::isfinite(threshold)) return -1;  // a method that did not run
  for (const CurveSample& s : m.curve)
    if (s.reward >= threshold) return s.steps;
  return -1;
}

void write_files(const std::filesystem::path& dir, const std::vector<MethodRun>& runs,
                 const json& summary, const std::string& name, const std::string& label) {
  std::ostringstream csv;
  csv << "method,simulated_steps,reward\n";
  csv.precision(10);
  for (const MethodRun& m : runs)
    for (const CurveSample& s : m.curve) csv << m.name << "," << s.steps << "," << s.reward << "\n";
  detail::write_file_atomically((dir / "compare.csv").string(), csv.str());
  write_json_file(dir / "compare.json", summary);
  LinePlot linear{
      name + ": reward per episode against simulated steps", "simulated steps", label, {}};
  for (const MethodRun& m : runs) {
    PlotSeries s{m.name, {}, {}, false, m.curve.size() < 60, ""};
    for (const CurveSample& q : m.curve) {
      s.x.push_back(static_cast<double>(q.steps));
      s.y.push_back(q.reward);
    }
    linear.series.push_back(std::move(s));
  }
  LinePlot log_x = linear;
  log_x.title = "the same, logarithmic steps";
  log_x.log_x = true;
  write_svg_plots((dir / "compare.svg").string(), {linear, log_x});
}

Verdict judge(const std::vector<MethodRun>& runs) {
  Verdict v;
  for (const MethodRun& m : runs) v.best = std::max(v.best, m.best);
  v.threshold = v.best >= 0.0 ? 0.9 * v.best : 1.1 * v.best;  // 90% of a reward, or 110% of a loss
  return v;
}

std::string report_text(const LocomotionProblem& p, long budget, const std::vector<MethodRun>& runs,
                        const Verdict& v) {
  const std::string unit = p.locomotion().reward_unit();
  const std::string u = unit.empty() ? "" : " " + unit;
  std::vector<std::vector<std::string>> table = {
      {"method", "policy", "steps used", "best reward" + (unit.empty() ? "" : " [" + unit + "]"),
       "steps to 90% of best", "steps to its best", "gradient's steps to it", "wall time"}};
  for (const MethodRun& m : runs) {
    const Duel d = duel(runs[0], m);
    table.push_back({m.name, m.policy, std::to_string(m.steps_used), fmt("%.6g", m.best),
                     steps_text(steps_to(m, v.threshold)), steps_text(d.baseline_steps),
                     &m == &runs[0] ? "" : steps_text(d.gradient_steps), fmt("%.1f s", m.seconds)});
  }
  std::ostringstream os;
  os << p.scene.name << ": " << p.episodes.size() << " x " << p.episode_steps()
     << "-step episodes, budget " << budget << " simulated steps per method; best reward "
     << fmt("%.6g", v.best) << u << ", 90% = " << fmt("%.6g", v.threshold) << u << "\n"
     << aligned_table(table);
  for (size_t k = 1; k < runs.size(); ++k) {
    const MethodRun& m = runs[k];
    if (m.curve.empty()) {
      os << m.name << " did not run: the budget is below one of its iterations\n";
      continue;
    }
    const Duel d = duel(runs[0], m);
    os << m.name << " reaches its best (" << fmt("%.6g", m.best) << u << ") after "
       << steps_text(d.baseline_steps) << " steps; the gradient method "
       << (d.gradient_steps < 0 ? "does not reach it"
                                : "after " + steps_text(d.gradient_steps) + " steps")
       << (std::isnan(d.ratio) ? std::string() : " (" + fmt("%.3g", d.ratio) + "x fewer)") << "\n";
  }
  return os.str();
}

json summary_json(const LocomotionProblem& p, const std::vector<MethodRun>& runs, const Verdict& v,
                  long budget, long gradient_budget, bool interrupted) {
  const Locomotion& loc = p.locomotion();
  json methods = json::array();
  for (const MethodRun& m : runs) methods.push_back(method_json(m, v, runs[0]));
  json summary{{"command", "compare"},
               {"softgrad_version", SOFTGRAD_VERSION},
               {"scene", p.scene.name},
               {"scene_file", p.scene.file.string()},
               {"creature", loc.generator},
               {"task", to_string(loc.task.type)},
               {"reward_unit", unit_or_none(loc)},
               {"episodes", p.episodes.size()},
               {"episode_steps", p.episode_steps()},
               {"dt", p.scene.options.dt},
               {"budget_steps", budget},
               {"gradient_budget_steps", gradient_budget},
               {"seed", loc.train.seed},
               {"best_reward_m", v.best},
               {"threshold_90_percent_m", v.threshold}};
  // The seed papers' comparisons, spelled out: PPO's and CMA-ES's best against the gradients.
  for (const MethodRun& m : runs) {
    const std::string key = m.name == "PPO" ? "ppo" : m.name == "CMA-ES" ? "cmaes" : "";
    if (key.empty()) continue;
    const Duel d = duel(runs[0], m);
    summary[key + "_best_reward_m"] = reward_json(m.best);
    summary[key + "_steps_to_its_best"] = steps_json(d.baseline_steps);
    summary["gradient_steps_to_" + key + "_best"] = steps_json(d.gradient_steps);
    summary[key + "_over_gradient_steps"] = std::isnan(d.ratio) ? json(nullptr) : json(d.ratio);
  }
  summary["interrupted"] = interrupted;
  summary["methods"] = methods;
  return summary;
}

}  // namespace softgrad::app
