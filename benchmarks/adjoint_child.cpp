// adjoint_cantilever's child: builds one configuration, probes it, times its forward and
// backward passes and records their memory.
#include "adjoint_child.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cantilever_beam.hpp"
#include "child_process.hpp"
#include "command_line.hpp"
#include "softgrad/adjoint.hpp"

namespace softgrad::bench {

LinearSolverOptions backend_options(const std::string& backend, double cg_tol) {
  return linear_options(backend, cg_tol, "backend",
                        {"cholmod", "pcg", "pcg-jacobi", "pcg-ichol", "matfree"});
}

int checkpoint_every(const std::string& mode) {
  if (mode == "sqrt") return 0;
  const int k = parse_int("--checkpoints", mode);
  if (k < 1)
    throw std::invalid_argument("--checkpoints: a mode is 'sqrt' or an integer >= 1, got '" + mode +
                                "'");
  return k;
}

namespace {

using Clock = std::chrono::steady_clock;
using Options = AdjointBenchOptions;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// CPU time of the whole process (all its threads) [s]: less sensitive than wall time to other
/// jobs on a shared machine.
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

/// The benchmark loss (see the top of adjoint_cantilever.cpp).
std::shared_ptr<const Loss> make_loss(const Cantilever& beam) {
  const Model& m = *beam.model;
  std::vector<PositionTarget> targets;
  for (int v : beam.tip) {
    Eigen::VectorXd target = m.X.segment(3 * v, 3);
    target[1] -= 0.1;
    targets.push_back({kFinalStep, v, target, 1.0 / static_cast<double>(beam.tip.size())});
  }
  CenterOfMassTarget com;
  com.velocity = Eigen::VectorXd::Zero(3);
  std::vector<std::shared_ptr<const Loss>> terms{
      std::make_shared<PositionLoss>(m, targets),
      std::make_shared<CenterOfMassLoss>(m, std::vector<int>{}, std::vector{com})};
  return std::make_shared<SumLoss>(terms);
}

const std::vector<std::string> kParameters = {"youngs", "poisson", "v0"};

/// Newton and linear iterations per step of a trajectory, and whether every step converged.
void add_forward_counts(const Trajectory& traj, json& r) {
  long newton = 0, linear = 0;
  for (const NewtonReport& nr : traj.reports()) {
    newton += nr.iterations;
    linear += nr.linear_iterations;
  }
  const double n = std::max(1, traj.steps());
  r["newton_per_step"] = newton / n;
  r["forward_linear_per_step"] = linear / n;
  r["forward_converged"] = traj.converged();
}

/// A configuration set up: the beam, its simulator (pattern analysed), loss, adjoint options.
struct Setup {
  Cantilever beam;
  std::unique_ptr<Simulator> sim;
  std::shared_ptr<const Loss> loss;
  AdjointOptions adjoint;
  int checkpoint_every = 1;  ///< TrajectoryOptions::checkpoint_every
};

Setup make_setup(const Options& o, const Cells& cells) {
  Setup s;
  s.beam = make_cantilever(cells, o.beam);
  SimulationOptions so;
  so.dt = o.dt;
  so.newton.tolerance = o.newton_tol;
  so.linear = backend_options(o.one_backend, o.cg_tol);
  so.on_failure = FailurePolicy::Continue;  // unconverged steps make the gradient untrustworthy
  s.sim = std::make_unique<Simulator>(s.beam.model, so);
  s.loss = make_loss(s.beam);
  s.adjoint.linear.kind = "";  // the simulator's solver (and preconditioner)
  s.adjoint.linear.rel_tol = o.adjoint_tol;
  s.checkpoint_every = checkpoint_every(o.one_checkpoint);
  return s;
}

/// One step forward and back: warms up the solvers and estimates the cost per step. Records
/// the probe in r and returns the steps that fit in --max-seconds (all of them without one).
int probe_steps(const Options& o, Setup& s, json& r) {
  Simulator& sim = *s.sim;
  const Rollout probe = rest_rollout(sim, 1);
  auto t0 = Clock::now();
  const Trajectory traj = simulate(sim, probe);
  const double f = seconds_since(t0);
  t0 = Clock::now();
  gradient(sim, traj, *s.loss, ParameterSet(sim, probe, kParameters), s.adjoint);
  const double b = seconds_since(t0);
  r["probe"] = {{"steps", 1}, {"forward_s", f}, {"backward_s", b}};
  // Per step: forward + backward (+ recomputation, about one forward, when checkpointing).
  const double per_step = 1.2 * (f + b + (s.checkpoint_every != 1 ? f : 0.0));
  r["probe"]["estimated_s_per_step"] = per_step;
  if (o.max_seconds > 0.0 && per_step * o.steps > o.max_seconds)
    return static_cast<int>(o.max_seconds / per_step);
  return o.steps;
}

/// Adds the adjoint's report, the memory figures and the gradient to r.
void add_adjoint_figures(const Setup& s, const Trajectory& traj, const GradientResult& g, json& r) {
  const AdjointReport& a = g.report;
  const int T = traj.steps();
  int stored = 0;
  for (int n = 0; n <= T; ++n) stored += traj.stored(n) ? 1 : 0;
  const double state_bytes = 2.0 * s.beam.model->n_dofs() * sizeof(double);
  r["recompute_s"] = a.recompute_seconds;
  r["recomputed_steps"] = a.recomputed_steps;
  r["adjoint_backend"] = a.backend;
  r["adjoint_linear_per_step"] = static_cast<double>(a.linear_iterations) / T;
  r["trustworthy"] = a.trustworthy();
  r["indefinite_steps"] = a.indefinite_steps.size();
  // AdjointReport::trustworthy() does not look at the adjoint's own CG solves: count them.
  int unconverged_solves = 0;
  for (const std::string& w : a.warnings)
    unconverged_solves += w.find("adjoint linear solve did not converge") != std::string::npos;
  r["adjoint_solves_unconverged"] = unconverged_solves;
  r["warnings_count"] = a.warnings.size();
  r["first_warnings"] = std::vector<std::string>(
      a.warnings.begin(), a.warnings.begin() + std::min<size_t>(3, a.warnings.size()));
  r["checkpoint_every"] = traj.checkpoint_every();
  r["state_bytes"] = state_bytes;
  r["stored_states"] = stored;
  r["segment_states"] = static_cast<double>(a.segment_bytes) / state_bytes;
  r["trajectory_bytes"] = a.trajectory_bytes;
  r["segment_bytes"] = a.segment_bytes;
  r["loss"] = g.loss;
  r["dl_dyoungs"] = g.gradient[0];
  r["dl_dpoisson"] = g.gradient[1];
  r["dl_dv0_norm"] = g.gradient.tail(g.gradient.size() - 2).norm();
  r["t_final"] = traj.final_state().t;
  r["tip_deflection_m"] = tip_deflection(s.beam, traj.final_state().x);
}

/// Times simulate() and gradient() over T steps and records them in r.
void measure(Setup& s, int T, json& r) {
  Simulator& sim = *s.sim;
  const double baseline_mb = proc_status_mb("VmHWM");
  const Rollout rollout = rest_rollout(sim, T);
  const ParameterSet params(sim, rollout, kParameters);
  // Forward pass.
  auto t0 = Clock::now();
  double c0 = cpu_seconds();
  const Trajectory traj = simulate(sim, rollout, TrajectoryOptions{s.checkpoint_every});
  const double forward_s = seconds_since(t0), forward_cpu = cpu_seconds() - c0;
  const double after_forward_mb = proc_status_mb("VmHWM");
  // Backward pass.
  t0 = Clock::now();
  c0 = cpu_seconds();
  const GradientResult g = gradient(sim, traj, *s.loss, params, s.adjoint);
  const double backward_s = seconds_since(t0), backward_cpu = cpu_seconds() - c0;
  const double peak_mb = proc_status_mb("VmHWM");

  r["forward_s"] = forward_s;
  r["forward_s_per_step"] = forward_s / T;
  add_forward_counts(traj, r);
  r["backward_s"] = backward_s;
  r["backward_s_per_step"] = backward_s / T;
  r["backward_excl_recompute_s"] = backward_s - g.report.recompute_seconds;
  r["ratio"] = backward_s / forward_s;
  r["ratio_excl_recompute"] = (backward_s - g.report.recompute_seconds) / forward_s;
  r["forward_cpu_s"] = forward_cpu;
  r["backward_cpu_s"] = backward_cpu;
  r["ratio_cpu"] = backward_cpu / forward_cpu;
  r["rss_baseline_mb"] = baseline_mb;
  r["rss_after_forward_mb"] = after_forward_mb;
  r["peak_rss_mb"] = peak_mb;
  r["peak_rss_delta_mb"] = peak_mb - baseline_mb;
  add_adjoint_figures(s, traj, g, r);
}

}  // namespace

json run_one(const AdjointBenchOptions& o) {
  const Cells cells = parse_size(o.one_size);
  json r = config_record(o.one_size, cells, o.one_backend, o.one_checkpoint);
  r["steps_requested"] = o.steps;
  r["adjoint_cg_rel_tol"] = o.adjoint_tol;
  r["load_average_at_start"] = load_average()[0];
  const char* limit = std::getenv("OMP_THREAD_LIMIT");
  r["omp_thread_limit"] = limit ? limit : "(unset)";

  const auto t_setup = Clock::now();
  Setup s = make_setup(o, cells);
  r["n_tets"] = s.beam.model->bodies[0].n_elems();
  r["n_dofs"] = s.beam.model->n_dofs();
  r["setup_s"] = seconds_since(t_setup);
  r["rss_after_setup_mb"] = proc_status_mb("VmHWM");

  const int T = probe_steps(o, s, r);
  r["steps_run"] = T < 2 ? 0 : T;
  if (T < 2) {
    r["status"] = "skipped";
    r["note"] = "the probe's cost per step leaves fewer than 2 steps in --max-seconds";
    return r;
  }
  r["status"] = T < o.steps ? "truncated" : "ok";
  measure(s, T, r);
  r["load_average_at_end"] = load_average()[0];
  return r;
}

}  // namespace softgrad::bench
