// cantilever_solvers: the linear solvers compared on one dynamic problem at three sizes.
//
// A 1 m x 0.1 m x 0.1 m beam (aspect 10:1:1) of tetrahedra, clamped at x = 0 (a Fixed
// KinematicGroup of the x = 0 vertices), sags under gravity -9.81 m/s^2 in y. Backward Euler,
// --steps steps of --dt, Newton with a PSD-projected Hessian. Each size is run with each linear
// solver (cholmod; pcg with a Jacobi or an incomplete-Cholesky preconditioner; matrix-free CG).
//
//   cantilever_solvers [--sizes 1k,10k,50k] [--solvers cholmod,pcg-jacobi,pcg-ichol,matfree]
//                      [--steps 50] [--dt 0.01] [--threads N] [--max-seconds 120]
//                      [--out cantilever_solvers.json] [--material stable_neo_hookean]
//                      [--youngs 1e7] [--poisson 0.4] [--density 1000]
//                      [--newton-tol 1e-6] [--cg-tol 1e-10]
//
// A size is 1k, 10k, 50k (19x3x3, 46x6x6, 83x10x10 cells of 6 tets: 1026, 9936 and 49800
// tets, cells within 1.6:1:1 of cubes) or explicit cells NXxNYxNZ, e.g. 40x4x4.
//
// Every configuration (size, solver) runs in a fresh child process (this program re-executed
// with --one SIZE SOLVER and the same options): the peak resident set size VmHWM is monotone
// over a process's life, so only a fresh process measures one configuration's peak. The child
// prints one JSON line on stdout; the parent collects them, prints a table and writes the JSON.
//
// Time budget: a configuration stops after the step during which its stepping time passed
// --max-seconds (0: no budget) and reports the steps it ran ("truncated"). A step is never
// interrupted; as a safety net the parent kills a child that runs for more than
// 3 * max-seconds + 300 s ("killed").
//
// Threads: --threads N (default: omp_get_max_threads(), i.e. OMP_NUM_THREADS) is passed to each
// child, which sets OMP_NUM_THREADS and calls omp_set_num_threads(N). libgomp spin-waits, so a
// machine with fewer free cores than N makes the OpenMP parts very slow: the load average at
// the start of the program and of each configuration is recorded.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cantilever_beam.hpp"
#include "cantilever_solvers_options.hpp"
#include "cantilever_solvers_parent.hpp"
#include "child_process.hpp"
#include "command_line.hpp"
#include "softgrad/openmp_waiting.hpp"
#include "softgrad/simulator.hpp"

namespace softgrad::bench {
namespace {

using Clock = std::chrono::steady_clock;
using Options = SolverBenchOptions;

constexpr const char* kUsage =
    "usage: cantilever_solvers [--sizes 1k,10k,50k] "
    "[--solvers cholmod,pcg-jacobi,pcg-ichol,matfree] [--steps 50] [--dt 0.01] [--threads N] "
    "[--max-seconds 120] [--out FILE] [--material stable_neo_hookean] [--youngs 1e7] "
    "[--poisson 0.4] [--density 1000] [--newton-tol 1e-6] [--cg-tol 1e-10]";

/// Linear solver options of a --solvers name.
/// @throws std::invalid_argument for a name other than cholmod, pcg-jacobi, pcg-ichol, matfree.
LinearSolverOptions solver_options(const std::string& solver, double cg_tol) {
  return linear_options(solver, cg_tol, "solver",
                        {"cholmod", "pcg-jacobi", "pcg-ichol", "matfree"});
}

/// The options of the command line.
/// @throws std::invalid_argument for an unknown option or a bad value (--help exits here).
Options parse_options(int argc, char** argv) {
  Options o;
  for (Arguments args(argc, argv); args.next();) {
    if (take_beam_run_option(args, o)) continue;
    const std::string& a = args.option();
    if (a == "--solvers") {
      o.solvers = args.list();
    } else if (a == "--one") {
      o.one = true;
      o.one_size = args.value();
      o.one_solver = args.value();
    } else if (a == "--help" || a == "-h") {
      std::printf("%s\n", kUsage);
      std::exit(0);
    } else {
      throw std::invalid_argument("unknown option " + a + "\n" + kUsage);
    }
  }
  if (o.solvers.empty()) throw std::invalid_argument("--solvers must not be empty");
  check_beam_run_options(o);
  for (const auto& s : o.solvers) solver_options(s, o.cg_tol);
  if (o.one) {  // the child's own configuration, so that its error record can always be built
    parse_size(o.one_size);
    solver_options(o.one_solver, o.cg_tol);
  }
  return o;
}

// ---------------------------------------------------------------------------------------------
// Child: one configuration.

/// Runs one (size, solver) configuration and returns its JSON result.
json run_one(const Options& o) {
  const Cells cells = parse_size(o.one_size);
  json r;
  r["size"] = o.one_size;
  r["cells"] = {cells.nx, cells.ny, cells.nz};
  r["solver"] = o.one_solver;
  r["load_average_at_start"] = load_average()[0];

  const auto t_setup = Clock::now();
  const Cantilever beam = make_cantilever(cells, o.beam);
  const std::shared_ptr<Model>& model = beam.model;

  SimulationOptions so;
  so.dt = o.dt;
  so.newton.tolerance = o.newton_tol;
  so.linear = solver_options(o.one_solver, o.cg_tol);
  so.on_failure = FailurePolicy::Continue;  // keep the timing comparable; failures are counted
  Simulator sim(model, so);
  State s = sim.rest_state();
  const double setup_s = std::chrono::duration<double>(Clock::now() - t_setup).count();

  r["n_tets"] = model->bodies[0].n_elems();
  r["n_dofs"] = model->n_dofs();
  r["n_free_dofs"] = model->n_dofs() - static_cast<int>(model->kinematic_dofs().size());

  std::vector<double> step_s, tip_history;
  long long newton = 0, linear = 0;
  int failed = 0;
  std::string first_failure;
  double stepping_s = 0.0;
  bool truncated = false;
  for (int k = 0; k < o.steps; ++k) {
    const auto t0 = Clock::now();
    const NewtonReport nr = sim.step(s);
    const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
    step_s.push_back(dt);
    tip_history.push_back(tip_deflection(beam, s.x));
    stepping_s += dt;
    newton += nr.iterations;
    linear += nr.linear_iterations;
    if (!nr.converged()) {
      if (failed++ == 0)
        first_failure =
            "step " + std::to_string(k + 1) + ": " + to_string(nr.status) + ": " + nr.message;
    }
    std::fprintf(stderr, "  [%s %s] step %d/%d: %.3f s, %d Newton, %d linear%s\n",
                 o.one_size.c_str(), o.one_solver.c_str(), k + 1, o.steps, dt, nr.iterations,
                 nr.linear_iterations, nr.converged() ? "" : " (NOT CONVERGED)");
    if (o.max_seconds > 0.0 && stepping_s >= o.max_seconds && k + 1 < o.steps) {
      truncated = true;
      break;
    }
  }

  const int n = static_cast<int>(step_s.size());
  r["steps_run"] = n;
  r["truncated"] = truncated;
  r["status"] = truncated ? "truncated" : "ok";
  r["t_final"] = s.t;
  r["setup_s"] = setup_s;
  r["stepping_s"] = stepping_s;
  r["mean_step_s"] = stepping_s / n;
  r["max_step_s"] = *std::max_element(step_s.begin(), step_s.end());
  r["first_step_s"] = step_s.front();
  r["newton_per_step"] = static_cast<double>(newton) / n;
  r["linear_per_step"] = static_cast<double>(linear) / n;
  r["linear_per_newton"] = newton > 0 ? static_cast<double>(linear) / newton : 0.0;
  r["peak_rss_mb"] = proc_status_mb("VmHWM");
  r["tip_deflection_m"] = tip_history.back();
  r["tip_deflection_per_step_m"] = tip_history;
  r["step_s"] = step_s;
  r["failed_steps"] = failed;
  r["all_converged"] = failed == 0;
  if (failed > 0) r["first_failure"] = first_failure;
  return r;
}

}  // namespace
}  // namespace softgrad::bench

int main(int argc, char** argv) {
  softgrad::restart_with_bounded_openmp_waiting(argv);
  using namespace softgrad::bench;
  return parent_or_child_main<Options>(
      argc, argv, "cantilever_solvers", parse_options, run_all, run_one,
      [](const Options& o, const std::string& error) {
        std::fprintf(stderr, "cantilever_solvers --one %s %s: %s\n", o.one_size.c_str(),
                     o.one_solver.c_str(), error.c_str());
        return failed_result(o.one_size, o.one_solver, "error", error, 0.0);
      });
}
