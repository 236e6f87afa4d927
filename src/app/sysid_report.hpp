/// @file sysid_report.hpp
/// What `softgrad sysid` writes and prints: report.json, fit.svg and the summary, for one or
/// several experiments (recordings of variants of a scene fitted together).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/sysid_scene.hpp"
#include "softgrad/detail/plot.hpp"
#include "softgrad/sysid.hpp"

namespace softgrad::app {

/// One experiment of a fit: the scene (with the experiment's changes) and its recording.
struct MarkerExperiment {
  std::string data;  ///< the recording's file
  MarkerScene scene;
  Recording recording;
};

/// report.json: {"command": "sysid", "scene", "scene_file", "data" (the recording's file; a
/// list of them for several experiments), "method", "parameters": [{"name", "initial",
/// "estimate", "stddev"}], "frames", "observations", "residuals", "rms_before", "rms_after",
/// "cost_before", "cost_after", "iterations", "simulations", "sensitivity_simulations",
/// "gradient_simulations", "seconds", "converged", "termination", "warnings" (what says the
/// estimate is not to be trusted: identifiability_warnings), "covariance" and "correlation"
/// (P x P, null where unavailable), "condition_number", "starts", "best_start",
/// "experiments": [{"data", "frames", "observations", "residuals", "rms_before", "rms_after",
/// "cost_before", "cost_after"}], "progress": [{"iteration", "rms", "validation_rms"}] (with
/// held-out recordings; else empty), "best_iteration", "stopped_early"} (the totals count every
/// experiment).
nlohmann::ordered_json sysid_report_json(const std::vector<MarkerExperiment>& experiments,
                                         const SysIdReport& r);

/// The fitted and held-out recordings' marker errors per iteration (SysIdReport::progress).
LinePlot progress_plot(const SysIdReport& r);

/// fit.svg: per experiment and marker coordinate, the recorded positions (dots), those simulated
/// at the initial guess (dashed) and the fitted ones (line) against time; then `more` plots.
void write_fit_plot(const std::string& path, const std::vector<MarkerExperiment>& experiments,
                    const SysIdReport& r, const std::vector<LinePlot>& more = {});

/// The human summary: estimates with standard deviations, residuals (per experiment when there
/// are several), cost.
std::string sysid_summary(const std::vector<MarkerExperiment>& experiments, const SysIdReport& r);

}  // namespace softgrad::app
