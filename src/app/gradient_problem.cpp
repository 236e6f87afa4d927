#include "app/gradient_problem.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>

#include "core/elapsed.hpp"
#include "softgrad/config.hpp"
#include "softgrad/errors.hpp"

namespace softgrad::app {
namespace {

using json = nlohmann::ordered_json;

// The parameter names: --params, else the scene's.
std::vector<std::string> selected_names(const GradientArgs& args, const Scene& scene) {
  if (!args.params.empty()) return args.params;
  if (scene.parameters.empty()) {
    throw InputError(scene.file.string() +
                     ": no parameters to differentiate by: give --params a,b,... or a "
                     "\"parameters\" list in the scene ('softgrad params " +
                     scene.file.string() + "' lists the names)");
  }
  return scene.parameters;
}

std::string number(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// One summary row for a block of many entries.
std::vector<std::string> summary_row(const ParameterSet& params, const ParameterSet::Block& b,
                                     const Eigen::VectorXd& theta, const Eigen::VectorXd& g) {
  const auto values = theta.segment(b.offset, b.size);
  const auto grad = g.segment(b.offset, b.size);
  Eigen::Index at = 0;
  const double max = grad.cwiseAbs().maxCoeff(&at);
  std::string name = b.name;
  if (name.ends_with("[]")) name.resize(name.size() - 2);
  return {name + " (" + std::to_string(b.size) + " values)",
          "norm " + number("%.6g", values.norm()),
          "norm " + number("%.6e", grad.norm()) + ", max |entry| " + number("%.6e", max) + " at " +
              params.label(b.offset + static_cast<int>(at))};
}

}  // namespace

std::string aligned_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()), 0);
    for (size_t c = 0; c + 1 < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = "  ";
    for (size_t c = 0; c < row.size(); ++c) {
      line += (c ? "  " : "") + row[c];
      if (c + 1 < row.size()) line += std::string(width[c] - row[c].size(), ' ');
    }
    out += line + "\n";
  }
  return out;
}

void add_gradient_options(CLI::App& cmd, GradientArgs& args) {
  cmd.add_option("SCENE", args.scene, "Scene file (.json) with a \"loss\"")
      ->type_name("FILE")
      ->required();
  cmd.add_option("-p,--params", args.params,
                 "Parameters, comma-separated (default: the scene's \"parameters\"; "
                 "'softgrad params SCENE' lists them)")
      ->delimiter(',')
      ->type_name("NAMES");
  cmd.add_option("-n,--steps", args.overrides.steps,
                 "Number of steps (default: the scene's duration / dt)")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--solver", args.overrides.solver,
                 "Forward linear solver (default: the scene's solver.linear)")
      ->check(CLI::IsMember({"cholmod", "pcg", "amg", "matfree", "cuda"}));
  cmd.add_option("--adjoint-solver", args.adjoint_solver,
                 "Adjoint linear solver (default: the forward solver)")
      ->check(CLI::IsMember({"cholmod", "pcg", "amg", "matfree"}));
  cmd.add_option("--checkpoint", args.checkpoint,
                 "Store every K-th state and recompute the others in the backward pass (1: all; "
                 "0: K = sqrt(steps))")
      ->type_name("K")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("-j,--threads", args.overrides.threads,
                 "OpenMP threads (default: OMP_NUM_THREADS)")
      ->check(CLI::Range(1, 4096));
  CLI::Option* quiet = cmd.add_flag("-q,--quiet", args.overrides.quiet,
                                    "Only errors on stderr: no progress, no warnings");
  CLI::Option* verbose =
      cmd.add_flag("-v,--verbose", args.overrides.verbose, "Also informational messages");
  quiet->excludes(verbose);
}

GradientProblem load_gradient_problem(const GradientArgs& args) {
  GradientProblem p;
  p.scene = load_scene(args.scene);
  apply_overrides(args.overrides, p.scene);
  p.scene_newton_tolerance = p.scene.options.newton.tolerance;
  double& tolerance = p.scene.options.newton.tolerance;
  if (args.newton_tolerance > 0) {
    tolerance = args.newton_tolerance;
  } else if (args.max_newton_tolerance > 0) {
    tolerance = std::min(tolerance, args.max_newton_tolerance);
  }
  if (!p.scene.loss) {
    throw InputError(args.scene +
                     ": the scene declares no loss; add a \"loss\" list (see 'softgrad "
                     "scene-help', section /loss/*)");
  }
  if (!p.scene.static_solve && p.scene.steps < p.scene.loss_min_steps) {
    throw InputError("--steps " + std::to_string(p.scene.steps) + ": the scene's loss needs " +
                     std::to_string(p.scene.loss_min_steps) +
                     " steps (an entry of /loss applies from step " +
                     std::to_string(p.scene.loss_min_steps) + " on)");
  }
  p.sim = std::make_unique<Simulator>(p.scene.model, p.scene.options);
  p.rollout = p.scene.rollout(*p.sim);
  const std::vector<std::string> names = selected_names(args, p.scene);
  try {
    p.params = ParameterSet(*p.sim, p.rollout, names);
  } catch (const InputError& e) {
    throw InputError((args.params.empty() ? args.scene + ": /parameters: " : "--params: ") +
                     std::string(e.what()));
  }
  p.theta = p.params.get(*p.sim, p.rollout);
  return p;
}

GradientRun run_gradient(GradientProblem& p, int checkpoint, const std::string& adjoint_solver,
                         const std::function<bool()>& stop) {
  GradientRun run;
  const auto start = std::chrono::steady_clock::now();
  RolloutRun forward(*p.sim, p.rollout, {.checkpoint_every = checkpoint});
  for (int n = 0; !forward.done(); ++n) {
    if (stop && stop()) {
      run.interrupted_after_forward_steps = n;
      run.forward_seconds = seconds_since(start);
      return run;
    }
    forward.step();
  }
  const Trajectory traj = std::move(forward).take();
  run.forward_seconds = seconds_since(start);
  run.checkpoint_every = traj.checkpoint_every();
  AdjointOptions options;
  options.linear.kind = adjoint_solver;
  options.stop = stop;
  run.result = gradient(*p.sim, traj, *p.scene.loss, p.params, options);
  return run;
}

std::string rollout_text(const GradientProblem& p) {
  if (p.rollout.static_solve) return "at the static equilibrium";
  std::ostringstream os;
  os << "after " << p.rollout.steps << (p.rollout.steps == 1 ? " step" : " steps") << " of "
     << p.scene.options.dt << " s";
  return os.str();
}

std::string gradient_table(const GradientProblem& p, const Eigen::VectorXd& g, int max_rows) {
  std::vector<std::vector<std::string>> rows{{"parameter", "value", "dL/dtheta"}};
  for (const ParameterSet::Block& b : p.params.blocks()) {
    if (b.size > max_rows) {
      rows.push_back(summary_row(p.params, b, p.theta, g));
      continue;
    }
    for (int i = b.offset; i < b.offset + b.size; ++i)
      rows.push_back({p.params.label(i), number("%.6g", p.theta[i]), number("%.6e", g[i])});
  }
  return aligned_table(rows);
}

std::string format_bytes(std::size_t bytes) {
  if (bytes < 1000) return std::to_string(bytes) + " B";
  if (bytes < 1000 * 1000) return number("%.3g kB", bytes / 1e3);
  if (bytes < 1000ull * 1000 * 1000) return number("%.3g MB", bytes / 1e6);
  return number("%.3g GB", bytes / 1e9);
}

std::string adjoint_report_text(const GradientRun& run) {
  const AdjointReport& r = run.result.report;
  std::ostringstream os;
  os << "adjoint: " << r.backend << ", " << r.steps << (r.steps == 1 ? " step" : " steps");
  if (r.linear_iterations > 0) os << ", " << r.linear_iterations << " CG iterations";
  if (r.factorizations > 0 && r.factorizations < r.steps)
    os << ", " << r.factorizations << " factorisations (kept across steps)";
  if (!r.direct_fallback_steps.empty())
    os << ", " << r.direct_fallback_steps.size()
       << " steps solved by CHOLMOD where CG could not converge";
  os << "\n  time:   backward " << number("%.3g", r.backward_seconds) << " s";
  if (r.recomputed_steps > 0) {
    os << " (recomputing " << r.recomputed_steps
       << " steps: " << number("%.3g", r.recompute_seconds) << " s)";
  }
  os << ", forward " << number("%.3g", run.forward_seconds) << " s, ratio "
     << number("%.2f", r.backward_seconds / std::max(run.forward_seconds, 1e-12)) << "\n";
  os << "  memory: peak " << format_bytes(r.peak_rss_bytes) << ", stored states "
     << format_bytes(r.trajectory_bytes) << " (every " << run.checkpoint_every
     << (run.checkpoint_every == 1 ? " step" : " steps") << ")";
  if (r.segment_bytes > 0) os << ", recomputed segment " << format_bytes(r.segment_bytes);
  os << "\n";
  for (const std::string& w : r.warnings) os << "  warning: " << w << "\n";
  if (r.trustworthy() && r.warnings.empty())
    os << "  every forward step converged; every step's Hessian was positive definite\n";
  return os.str();
}

nlohmann::ordered_json gradient_json(const GradientProblem& p, const GradientRun& run) {
  const GradientResult& g = run.result;
  const AdjointReport& r = g.report;
  json params = json::array();
  for (const ParameterSet::Block& b : p.params.blocks()) {
    const auto values = p.theta.segment(b.offset, b.size);
    const auto grad = g.gradient.segment(b.offset, b.size);
    params.push_back({{"name", b.name},
                      {"offset", b.offset},
                      {"size", b.size},
                      {"value", std::vector<double>(values.begin(), values.end())},
                      {"gradient", std::vector<double>(grad.begin(), grad.end())}});
  }
  return {{"command", "grad"},
          {"softgrad_version", SOFTGRAD_VERSION},
          {"scene", p.scene.name},
          {"scene_file", p.scene.file.string()},
          {"steps", p.rollout.static_solve ? 1 : p.rollout.steps},
          {"dt", p.scene.options.dt},
          {"loss", g.loss},
          {"n_parameters", p.params.size()},
          {"parameters", std::move(params)},
          {"adjoint",
           {{"backend", r.backend},
            {"steps", r.steps},
            {"linear_iterations", r.linear_iterations},
            {"factorizations", r.factorizations},
            {"direct_fallback_steps", r.direct_fallback_steps},
            {"checkpoint_every", run.checkpoint_every},
            {"forward_seconds", run.forward_seconds},
            {"backward_seconds", r.backward_seconds},
            {"recompute_seconds", r.recompute_seconds},
            {"ratio", r.backward_seconds / std::max(run.forward_seconds, 1e-12)},
            {"trajectory_bytes", r.trajectory_bytes},
            {"segment_bytes", r.segment_bytes},
            {"peak_rss_bytes", r.peak_rss_bytes},
            {"indefinite_steps", r.indefinite_steps},
            {"unconverged_steps", r.unconverged_steps},
            {"unsolved_adjoint_steps", r.unsolved_steps},
            {"worst_adjoint_relative_residual", r.worst_relative_residual},
            {"warnings", r.warnings}}}};
}

}  // namespace softgrad::app
