// adjoint_cantilever: forward and backward (adjoint) pass of the dynamic cantilever, with and
// without checkpointing, for each linear-solver backend.
//
// The beam of cantilever_solvers (cantilever_beam.hpp: 1 x 0.1 x 0.1 m, clamped at x = 0,
// gravity -9.81 y) is released from rest and simulated for --steps steps of --dt (backward
// Euler, Newton with a PSD-projected Hessian). The loss is
//     L = sum_tip 1/(2 n_tip) |x_tip(T) - (X_tip - 0.1 m e_y)|^2 + 1/2 |c'(T)|^2
// (the tip vertices at the last state near a point 10 cm below their rest position, plus the
// squared centre-of-mass velocity at the last state), differentiated with respect to
// theta = (youngs, poisson, v0): Young's modulus and Poisson's ratio tied over all elements
// and the initial velocity of every dof.
//
//   adjoint_cantilever [--sizes 1k,10k,50k] [--backends cholmod,pcg,matfree]
//                      [--checkpoints 1,sqrt] [--steps 100] [--dt 0.01] [--threads N]
//                      [--max-seconds 300] [--out benchmarks/results/adjoint_cantilever.json]
//                      [--merge] [--material stable_neo_hookean] [--youngs 1e7]
//                      [--poisson 0.4] [--density 1000] [--newton-tol 1e-6] [--cg-tol 1e-10]
//                      [--adjoint-tol 1e-12] [--project 10k:10000]
//
// Sizes as in cantilever_solvers (1k, 10k, 50k or cells NXxNYxNZ). Backends: cholmod,
// pcg (= pcg-jacobi), pcg-jacobi, pcg-ichol, matfree; the adjoint uses the forward solver's
// kind (cholmod reuses the forward pass's symbolic analysis) with CG tolerance --adjoint-tol
// (1e-12 by default here, as in the recorded runs; AdjointOptions' default is now 1e-10; a record
// with another tolerance is labelled "pcg,tol=1e-10"). Checkpoints: 1 (every state stored), sqrt
// (every ceil(sqrt(T))-th state; the backward pass recomputes the others segment by segment) or an
// integer k.
//
// Each configuration (size, backend, checkpointing) runs in a fresh child process (this program
// re-executed with --one), because the peak resident set size VmHWM only grows during a
// process's life. A child builds the model, runs a probe (one step forward and backward: it
// warms up the solvers and estimates the cost), records its VmHWM as the baseline, then times
// simulate() and gradient() and records VmHWM again. Reported: the peak RSS of the child, its
// rise above the baseline, and the bytes of stored states (AdjointReport::trajectory_bytes) and
// of the largest recomputed segment (segment_bytes).
//
// Time budget: with --max-seconds S > 0 the first checkpoint mode of a (size, backend) runs
// min(--steps, the steps its probe says fit in S) steps, marked "truncated" if fewer; "skipped"
// if fewer than 2 fit (the record then holds only the probe). The other modes run the same
// number of steps, so that they compare (their recomputation may take them past S). The parent
// kills a child that runs longer than 4 S + 300 s ("killed").
//
// Threads: --threads N (default omp_get_max_threads()) sets OMP_NUM_THREADS and
// OMP_THREAD_LIMIT of each child: the limit also caps CHOLMOD's supernodal factorisation, which
// asks for a team of 4 threads whatever OMP_NUM_THREADS says. Times are wall-clock and process
// CPU seconds (the CPU figures suffer less from other jobs on a shared machine).
//
// --merge keeps the results of an existing --out file whose (size, backend, checkpoints) are
// not run now (the problem must be the same), so that sizes can be run with different --steps.
// --project SIZE:N prints and records the memory that N steps of SIZE would need with and
// without checkpointing, COMPUTED from the measured bytes per state (not measured).
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "adjoint_summary.hpp"
#include "cantilever_beam.hpp"
#include "child_process.hpp"
#include "softgrad/adjoint.hpp"

namespace softgrad::bench {
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

[[noreturn]] void fail(const std::string& msg) {
  std::fprintf(stderr, "adjoint_cantilever: %s\n", msg.c_str());
  std::exit(1);
}

std::vector<std::string> split_list(const std::string& s, char sep = ',') {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
}

double parse_number(const std::string& opt, const std::string& v) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !std::isfinite(x))
    fail("option " + opt + " needs a number, got '" + v + "'");
  return x;
}

int parse_int(const std::string& opt, const std::string& v) {
  const double x = parse_number(opt, v);
  if (x != std::floor(x) || std::abs(x) > 1e9)
    fail("option " + opt + " needs an integer, got '" + v + "'");
  return static_cast<int>(x);
}

Cells parse_size(const std::string& s) {
  if (const auto c = parse_cells(s)) return *c;
  fail("unknown size '" + s + "': use 1k, 10k, 50k or cells NXxNYxNZ (e.g. 40x4x4)");
}

/// Linear solver options of a backend name.
LinearSolverOptions linear_options(const std::string& backend, double cg_tol) {
  LinearSolverOptions o;
  o.rel_tol = cg_tol;
  if (backend == "cholmod" || backend == "matfree") {
    o.kind = backend;
  } else if (backend == "pcg" || backend == "pcg-jacobi" || backend == "pcg-ichol") {
    o.kind = "pcg";
    o.preconditioner = backend == "pcg-ichol" ? "ichol" : "jacobi";
  } else {
    fail("unknown backend '" + backend + "': use cholmod, pcg, pcg-jacobi, pcg-ichol or matfree");
  }
  return o;
}

/// TrajectoryOptions::checkpoint_every of a checkpoint mode: "1", "sqrt" (0) or an integer.
int checkpoint_every(const std::string& mode) {
  if (mode == "sqrt") return 0;
  const int k = parse_int("--checkpoints", mode);
  if (k < 1) fail("--checkpoints: a mode is 'sqrt' or an integer >= 1, got '" + mode + "'");
  return k;
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&]() -> std::string {
      if (i + 1 >= argc) fail("option " + a + " needs a value");
      return argv[++i];
    };
    if (a == "--sizes") {
      o.sizes = split_list(next());
    } else if (a == "--backends") {
      o.backends = split_list(next());
    } else if (a == "--checkpoints") {
      o.checkpoints = split_list(next());
    } else if (a == "--steps") {
      o.steps = parse_int(a, next());
    } else if (a == "--dt") {
      o.dt = parse_number(a, next());
    } else if (a == "--threads") {
      o.threads = parse_int(a, next());
    } else if (a == "--max-seconds") {
      o.max_seconds = parse_number(a, next());
    } else if (a == "--out") {
      o.out = next();
    } else if (a == "--merge") {
      o.merge = true;
    } else if (a == "--material") {
      o.beam.model = next();
    } else if (a == "--youngs") {
      o.beam.youngs = parse_number(a, next());
    } else if (a == "--poisson") {
      o.beam.poisson = parse_number(a, next());
    } else if (a == "--density") {
      o.beam.density = parse_number(a, next());
    } else if (a == "--newton-tol") {
      o.newton_tol = parse_number(a, next());
    } else if (a == "--cg-tol") {
      o.cg_tol = parse_number(a, next());
    } else if (a == "--adjoint-tol") {
      o.adjoint_tol = parse_number(a, next());
    } else if (a == "--project") {
      const auto parts = split_list(next(), ':');
      if (parts.size() != 2) fail("--project needs SIZE:STEPS, e.g. 10k:10000");
      o.project_size = parts[0];
      o.project_steps = parse_int(a, parts[1]);
    } else if (a == "--one") {
      o.one = true;
      o.one_size = next();
      o.one_backend = next();
      o.one_checkpoint = next();
    } else if (a == "--help" || a == "-h") {
      std::printf("%s\n", kAdjointUsage);
      std::exit(0);
    } else {
      fail("unknown option " + a + "\n" + kAdjointUsage);
    }
  }
  if (o.sizes.empty() || o.backends.empty() || o.checkpoints.empty())
    fail("--sizes, --backends and --checkpoints must not be empty");
  if (o.steps < 1) fail("--steps must be positive");
  if (!(o.dt > 0.0)) fail("--dt must be positive");
  if (o.threads < 0) fail("--threads must be positive");
  if (!(o.max_seconds >= 0.0)) fail("--max-seconds must be >= 0 (0: no budget)");
  if (o.project_steps < 1) fail("--project needs a positive step count");
  if (o.threads == 0) o.threads = omp_get_max_threads();
  for (const auto& s : o.sizes) parse_size(s);  // validate before running anything
  parse_size(o.project_size);
  for (const auto& b : o.backends) linear_options(b, o.cg_tol);
  if (o.one) linear_options(o.one_backend, o.cg_tol);
  for (const auto& c : o.checkpoints) checkpoint_every(c);
  return o;
}

// ---------------------------------------------------------------------------------------------
// Child: one configuration.

/// The benchmark loss (see the top of this file).
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
  so.linear = linear_options(o.one_backend, o.cg_tol);
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

/// Runs one (size, backend, checkpoints) configuration and returns its JSON result.
json run_one(const Options& o) {
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

// ---------------------------------------------------------------------------------------------
// Parent: one child per configuration.

std::string num(double x) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", x);
  return buf;
}

/// The argument list of a child: --one SIZE BACKEND CHECKPOINTS plus the options of the run;
/// budget_s 0 makes the child run all `steps`.
std::vector<std::string> child_args(const Options& o, const std::string& size,
                                    const std::string& backend, const std::string& ckpt, int steps,
                                    double budget_s) {
  std::vector<std::string> args = {self_exe(), "--one", size, backend, ckpt};
  const std::pair<const char*, std::string> options[] = {{"--steps", std::to_string(steps)},
                                                         {"--dt", num(o.dt)},
                                                         {"--threads", std::to_string(o.threads)},
                                                         {"--max-seconds", num(budget_s)},
                                                         {"--material", o.beam.model},
                                                         {"--youngs", num(o.beam.youngs)},
                                                         {"--poisson", num(o.beam.poisson)},
                                                         {"--density", num(o.beam.density)},
                                                         {"--newton-tol", num(o.newton_tol)},
                                                         {"--cg-tol", num(o.cg_tol)},
                                                         {"--adjoint-tol", num(o.adjoint_tol)}};
  for (const auto& [key, value] : options) {
    args.push_back(key);
    args.push_back(value);
  }
  return args;
}

/// Runs one configuration in a child process; a failure record if it produced no result.
json run_child(const Options& o, const std::string& size, const std::string& backend,
               const std::string& ckpt, int steps, bool fixed_steps) {
  const double hard_limit = o.max_seconds > 0.0 ? 4.0 * o.max_seconds + 300.0 : 0.0;
  const ChildOutput c =
      bench::run_child(child_args(o, size, backend, ckpt, steps, fixed_steps ? 0.0 : o.max_seconds),
                       o.threads, hard_limit, /*limit_threads=*/true);
  json r = c.result();
  if (!r.is_object()) {
    r = config_record(size, parse_size(size), backend, ckpt);
    r["steps_requested"] = steps;
    r["adjoint_cg_rel_tol"] = o.adjoint_tol;
    r["status"] = c.killed ? "killed" : "crashed";
    r["error"] = c.killed ? "ran past the hard limit of " + num(hard_limit) + " s" : c.failure();
  }
  r["wall_s"] = c.wall_s;
  return r;
}

/// Runs every configuration of `o`, in order; the later checkpoint modes of a (size, backend)
/// run as many steps as its first one did.
json run_configurations(const Options& o) {
  json results = json::array();
  print_header();
  for (const auto& size : o.sizes)
    for (const auto& backend : o.backends) {
      int steps = o.steps;
      bool fixed = false;
      for (const auto& ckpt : o.checkpoints) {
        json r = run_child(o, size, backend, ckpt, steps, fixed);
        if (fixed && steps < o.steps && r.value("status", "") == "ok") {
          r["status"] = "truncated";  // as its first mode was
          r["steps_requested"] = o.steps;
        }
        print_row(r);
        if (!fixed && r.value("steps_run", 0) >= 2) {
          steps = r["steps_run"].get<int>();
          fixed = true;
        }
        results.push_back(std::move(r));
      }
    }
  return results;
}

int run_all(const Options& o) {
  const std::vector<double> load0 = load_average();
  std::printf(
      "adjoint_cantilever: %g x %g x %g m beam clamped at x = 0, gravity -9.81 y, %s E = %g Pa "
      "nu = %g rho = %g\n  dt = %g s, Newton tol %g, forward CG rel tol %g, adjoint CG rel tol "
      "%g, %d OpenMP threads, budget %s per configuration\n  %u cores, load average at start "
      "%.2f %.2f %.2f\n\n",
      kLength, kWidth, kWidth, o.beam.model.c_str(), o.beam.youngs, o.beam.poisson, o.beam.density,
      o.dt, o.newton_tol, o.cg_tol, o.adjoint_tol, o.threads,
      o.max_seconds > 0 ? (num(o.max_seconds) + " s").c_str() : "none",
      std::thread::hardware_concurrency(), load0[0], load0[1], load0[2]);
  const json previous = o.merge ? read_previous(o) : json();
  const auto t0 = Clock::now();
  json results = run_configurations(o);
  const json invocation = {{"sizes", o.sizes},
                           {"backends", o.backends},
                           {"checkpoints", o.checkpoints},
                           {"steps", o.steps},
                           {"threads", o.threads},
                           {"max_seconds_per_configuration", o.max_seconds},
                           {"total_s", seconds_since(t0)},
                           {"load_average_at_start", load0},
                           {"load_average_at_end", load_average()}};
  json j = merge_and_summarise(o, previous, std::move(results), invocation);
  std::ofstream out(o.out);
  if (!out) fail("cannot write " + o.out);
  out << j.dump(2) << "\n";
  std::printf("wrote %s\n", o.out.c_str());
  return 0;
}

}  // namespace
}  // namespace softgrad::bench

int main(int argc, char** argv) {
  using namespace softgrad::bench;
  const Options o = parse_options(argc, argv);
  if (!o.one) {
    try {
      return run_all(o);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "adjoint_cantilever: %s\n", e.what());
      return 1;
    }
  }
  omp_set_num_threads(o.threads);
  try {
    std::printf("%s\n", run_one(o).dump().c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "adjoint_cantilever --one %s %s %s: %s\n", o.one_size.c_str(),
                 o.one_backend.c_str(), o.one_checkpoint.c_str(), e.what());
    json r = config_record(o.one_size, parse_size(o.one_size), o.one_backend, o.one_checkpoint);
    r["adjoint_cg_rel_tol"] = o.adjoint_tol;
    r["status"] = "error";
    r["error"] = e.what();
    std::printf("%s\n", r.dump().c_str());
    return 1;
  }
}
