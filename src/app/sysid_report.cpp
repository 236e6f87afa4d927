#include "app/sysid_report.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "softgrad/config.hpp"
#include "softgrad/detail/plot.hpp"

namespace softgrad::app {
namespace {

using json = nlohmann::ordered_json;

json finite_or_null(double v) { return std::isfinite(v) ? json(v) : json(); }

/// Where experiment k's observations start in the report's stacked order.
size_t first_observation(const std::vector<MarkerExperiment>& experiments, size_t k) {
  size_t first = 0;
  for (size_t i = 0; i < k; ++i) first += experiments[i].recording.observations.size();
  return first;
}

}  // namespace

json sysid_report_json(const std::vector<MarkerExperiment>& experiments, const SysIdReport& r) {
  const MarkerScene& p = experiments.front().scene;
  json params = json::array();
  for (size_t i = 0; i < r.labels.size(); ++i) {
    const int k = static_cast<int>(i);
    params.push_back({{"name", r.labels[i]},
                      {"initial", r.initial[k]},
                      {"estimate", r.estimate[k]},
                      {"stddev", r.stddev.size() > k ? finite_or_null(r.stddev[k]) : json()}});
  }
  json data = json::array(), per_experiment = json::array();
  size_t frames = 0, observations = 0;
  for (size_t k = 0; k < experiments.size(); ++k) {
    const MarkerExperiment& e = experiments[k];
    const SysIdExperimentFit& fit = r.experiments.at(k);
    data.push_back(e.data);
    frames += e.recording.times.size();
    observations += e.recording.observations.size();
    per_experiment.push_back({{"data", e.data},
                              {"frames", e.recording.times.size()},
                              {"observations", fit.observations},
                              {"residuals", fit.residuals},
                              {"rms_before", fit.rms_before},
                              {"rms_after", fit.rms_after},
                              {"cost_before", fit.cost_before},
                              {"cost_after", fit.cost_after}});
  }
  const int P = static_cast<int>(r.labels.size());
  json covariance = json::array(), correlation = json::array();
  if (r.covariance.rows() == P && r.covariance.cols() == P)
    for (int i = 0; i < P; ++i) {
      json crow = json::array(), rrow = json::array();
      for (int j = 0; j < P; ++j) {
        const double c = r.covariance(i, j);
        crow.push_back(finite_or_null(c));
        rrow.push_back(finite_or_null(c / std::sqrt(r.covariance(i, i) * r.covariance(j, j))));
      }
      covariance.push_back(crow);
      correlation.push_back(rrow);
    }
  json progress = json::array();
  for (const SysIdReport::Progress& q : r.progress)
    progress.push_back({{"iteration", q.iteration},
                        {"rms", finite_or_null(q.rms)},
                        {"validation_rms", finite_or_null(q.validation_rms)}});
  return {{"command", "sysid"},
          {"softgrad_version", SOFTGRAD_VERSION},
          {"scene", p.scene.name},
          {"scene_file", p.scene.file.string()},
          {"data", experiments.size() == 1 ? data[0] : data},
          {"method", to_string(r.method)},
          {"parameters", params},
          {"frames", frames},
          {"observations", observations},
          {"residuals", r.residuals},
          {"rms_before", r.rms_before},
          {"rms_after", r.rms_after},
          {"cost_before", r.cost_before},
          {"cost_after", r.cost_after},
          {"iterations", r.iterations},
          {"simulations", r.simulations},
          {"sensitivity_simulations", r.sensitivity_simulations},
          {"gradient_simulations", r.gradient_simulations},
          {"seconds", r.seconds},
          {"converged", r.converged},
          {"interrupted", r.interrupted},
          {"termination", r.termination},
          {"warnings", identifiability_warnings(r)},
          {"covariance", covariance},
          {"correlation", correlation},
          {"condition_number", finite_or_null(r.condition_number)},
          {"starts", r.start_costs.empty() ? json::array({r.cost_after}) : json(r.start_costs)},
          {"best_start", r.best_start},
          {"experiments", per_experiment},
          {"progress", progress},
          {"best_iteration", r.best_iteration},
          {"stopped_early", r.stopped_early}};
}

LinePlot progress_plot(const SysIdReport& r) {
  LinePlot plot;
  plot.title = "marker error per iteration";
  plot.x_label = "iteration";
  plot.y_label = "rms [m]";
  plot.log_y = true;
  PlotSeries fitted{"fitted recordings", {}, {}, false, false, ""};
  PlotSeries held{"held-out recordings", {}, {}, false, true, ""};
  for (const SysIdReport::Progress& q : r.progress) {
    fitted.x.push_back(q.iteration);
    fitted.y.push_back(q.rms);
    held.x.push_back(q.iteration);
    held.y.push_back(q.validation_rms);
  }
  plot.series = {fitted, held};
  return plot;
}

void write_fit_plot(const std::string& path, const std::vector<MarkerExperiment>& experiments,
                    const SysIdReport& r, const std::vector<LinePlot>& more) {
  static const char* const kAxis[] = {"x", "y", "z"};
  std::vector<LinePlot> plots;
  for (size_t e = 0; e < experiments.size(); ++e) {
    const MarkerSet& markers = experiments[e].scene.markers;
    const Recording& rec = experiments[e].recording;
    const size_t first = first_observation(experiments, e);
    const std::string prefix =
        experiments.size() == 1 ? "" : "experiment " + std::to_string(e) + ": ";
    for (int m = 0; m < markers.size(); ++m)
      for (int k = 0; k < markers.dim(); ++k) {
        // Recorded samples as dots alone: lines between noisy samples suggest a motion.
        PlotSeries recorded{"recorded", {}, {}, true, true, ""};
        PlotSeries fitted{"fitted", {}, {}, false, false, ""};
        PlotSeries initial{"initial guess", {}, {}, true, false, ""};
        for (size_t i = 0; i < rec.observations.size(); ++i) {
          const auto& o = rec.observations[i];
          if (o.marker != m) continue;
          recorded.x.push_back(rec.times[o.frame]);
          recorded.y.push_back(o.position[k]);
          fitted.x.push_back(rec.times[o.frame]);
          fitted.y.push_back(r.fitted[first + i][k]);
          if (first + i < r.initial_fit.size()) {
            initial.x.push_back(rec.times[o.frame]);
            initial.y.push_back(r.initial_fit[first + i][k]);
          }
        }
        if (recorded.x.empty()) continue;
        LinePlot plot;
        plot.title = prefix + "marker " + markers[m].name + ", " + kAxis[k];
        plot.x_label = "t [s]";
        plot.y_label = std::string(kAxis[k]) + " [m]";
        plot.series = {recorded, initial, fitted};
        plots.push_back(std::move(plot));
      }
  }
  plots.insert(plots.end(), more.begin(), more.end());
  write_svg_plots(path, plots);
}

std::string sysid_summary(const std::vector<MarkerExperiment>& experiments, const SysIdReport& r) {
  const MarkerScene& p = experiments.front().scene;
  std::ostringstream os;
  char line[512];
  std::snprintf(line, sizeof line, "%s: %s, %d iterations, %d simulations, %.2f s, %s\n",
                p.scene.name.c_str(), to_string(r.method), r.iterations, r.simulations, r.seconds,
                r.interrupted ? "interrupted"
                : r.converged ? "converged"
                              : "not converged");
  os << line;
  const int shown = std::min<int>(static_cast<int>(r.labels.size()), 8);
  for (int i = 0; i < shown; ++i) {
    char sd[64] = "";
    if (r.stddev.size() > i && std::isfinite(r.stddev[i]))
      std::snprintf(sd, sizeof sd, " +- %.3g", r.stddev[i]);
    std::snprintf(line, sizeof line, "  %-24s %.8g%s (from %.6g)\n", r.labels[i].c_str(),
                  r.estimate[i], sd, r.initial[i]);
    os << line;
  }
  if (shown < static_cast<int>(r.labels.size()))
    os << "  ... " << r.labels.size() - shown << " more in report.json\n";
  std::snprintf(line, sizeof line, "  marker rms error %.4g m -> %.4g m (%d residuals)\n",
                r.rms_before, r.rms_after, r.residuals);
  os << line;
  if (experiments.size() > 1)
    for (size_t k = 0; k < experiments.size(); ++k) {
      const SysIdExperimentFit& fit = r.experiments.at(k);
      std::snprintf(line, sizeof line, "    experiment %zu (%s): %.4g m -> %.4g m (%d residuals)\n",
                    k, experiments[k].data.c_str(), fit.rms_before, fit.rms_after, fit.residuals);
      os << line;
    }
  if (!r.progress.empty()) {
    double best = r.progress.front().validation_rms;
    for (const SysIdReport::Progress& q : r.progress)
      if (q.iteration == r.best_iteration) best = q.validation_rms;
    std::snprintf(line, sizeof line,
                  "  held-out rms error %.4g m -> %.4g m (the estimate: iteration %d of %d%s)\n",
                  r.progress.front().validation_rms, best, r.best_iteration,
                  r.progress.back().iteration,
                  r.stopped_early ? "; stopped: no better for `patience` iterations" : "");
    os << line;
  }
  os << "  " << r.termination << "\n";
  for (const std::string& w : identifiability_warnings(r)) os << "  warning: " << w << "\n";
  if (r.start_costs.size() > 1) {
    std::snprintf(line, sizeof line, "  best of %d starting points: start %d (cost %.4g)\n",
                  static_cast<int>(r.start_costs.size()), r.best_start, r.cost_after);
    os << line;
  }
  return os.str();
}

}  // namespace softgrad::app
