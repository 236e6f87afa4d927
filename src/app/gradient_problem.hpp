/// @file gradient_problem.hpp
/// What `softgrad grad` and `softgrad gradcheck` share: a scene with its loss, a simulator, the
/// rollout and the selected parameters; the adjoint gradient with timings; and the text and JSON
/// that report it.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/scene_overrides.hpp"
#include "softgrad/adjoint.hpp"
#include "softgrad/scene.hpp"

namespace CLI {
class App;
}

namespace softgrad::app {

/// The command-line settings of grad and gradcheck.
struct GradientArgs {
  std::string scene;
  std::vector<std::string> params;    ///< --params (empty: the scene's "parameters")
  SceneOverrides overrides;           ///< --steps, --solver, --threads, --quiet/--verbose
  int checkpoint = 1;                 ///< --checkpoint K: store every K-th state (0: sqrt(T))
  std::string adjoint_solver;         ///< --adjoint-solver ("": the forward solver)
  double newton_tolerance = 0.0;      ///< > 0: replaces the scene's solver.newton_tolerance
  double max_newton_tolerance = 0.0;  ///< > 0: caps it (when newton_tolerance is not set)
};

/// Adds SCENE, --params, --steps, --solver, --threads, --checkpoint, --adjoint-solver and
/// --quiet/--verbose to `command`, bound to `args`.
void add_gradient_options(CLI::App& command, GradientArgs& args);

/// A scene ready to differentiate.
struct GradientProblem {
  Scene scene;
  std::unique_ptr<Simulator> sim;
  Rollout rollout;
  ParameterSet params;
  Eigen::VectorXd theta;                ///< the parameters' values
  double scene_newton_tolerance = 0.0;  ///< the scene file's (before GradientArgs replaced it)
};

/// Loads the scene, applies the overrides and resolves the parameters.
/// @throws InputError if the scene has no loss, no parameters are selected (neither --params nor
///         "parameters"), a name is unknown, or --steps cuts off a loss entry.
GradientProblem load_gradient_problem(const GradientArgs& args);

/// A gradient and what it cost.
struct GradientRun {
  GradientResult result;
  double forward_seconds = 0.0;  ///< simulate()
  int checkpoint_every = 1;      ///< as resolved by the trajectory
  /// `stop` ended the run: after this many forward steps (-1: the forward pass was whole, and
  /// result.report says how far the backward sweep got). No gradient then.
  int interrupted_after_forward_steps = -1;
  bool interrupted() const {
    return interrupted_after_forward_steps >= 0 || result.report.interrupted;
  }
};

/// Simulates the rollout and computes the gradient by the adjoint. `stop` (may be empty) is
/// asked before every forward and backward step; true ends the run there, without a gradient.
/// @throws ConvergenceError if a forward step fails under FailurePolicy::Stop.
GradientRun run_gradient(GradientProblem& p, int checkpoint, const std::string& adjoint_solver,
                         const std::function<bool()>& stop = {});

/// "after 30 steps of 0.01 s", "after 1 step of 0.01 s" or "at the static equilibrium".
std::string rollout_text(const GradientProblem& p);

/// The parameter table: label, value and gradient per entry; blocks of more than `max_rows`
/// entries as one summary row (norm of the values; norm of the gradient, max |entry| and where).
std::string gradient_table(const GradientProblem& p, const Eigen::VectorXd& gradient,
                           int max_rows = 6);

/// The adjoint report: backend, steps, seconds (backward, forward, ratio), memory, warnings.
std::string adjoint_report_text(const GradientRun& run);

/// The JSON written by `grad --out`:
///   {"command": "grad", "softgrad_version", "scene", "scene_file", "steps", "dt", "loss",
///    "n_parameters", "parameters": [{"name", "offset", "size", "value", "gradient"}],
///    "adjoint": {"backend", "steps", "linear_iterations", "checkpoint_every",
///                "forward_seconds", "backward_seconds", "recompute_seconds", "ratio",
///                "trajectory_bytes", "segment_bytes", "peak_rss_bytes", "indefinite_steps",
///                "unconverged_steps", "warnings"}}
nlohmann::ordered_json gradient_json(const GradientProblem& p, const GradientRun& run);

/// Rows of cells as aligned columns, each line indented by two spaces; the last column is free.
std::string aligned_table(const std::vector<std::vector<std::string>>& rows);

/// "12.3 MB", "456 kB", "789 B".
std::string format_bytes(std::size_t bytes);

}  // namespace softgrad::app
