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
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cantilever_beam.hpp"
#include "child_process.hpp"
#include "softgrad/log.hpp"
#include "softgrad/simulator.hpp"

namespace softgrad::bench {
namespace {

using Clock = std::chrono::steady_clock;
using json = nlohmann::ordered_json;

struct Options {
  std::vector<std::string> sizes = {"1k", "10k", "50k"};
  std::vector<std::string> solvers = {"cholmod", "pcg-jacobi", "pcg-ichol", "matfree"};
  int steps = 50;
  double dt = 0.01;
  int threads = 0;  ///< 0: omp_get_max_threads()
  double max_seconds = 120.0;
  std::string out = "cantilever_solvers.json";
  std::string material = "stable_neo_hookean";
  double youngs = 1e7;
  double poisson = 0.4;
  double density = 1000.0;
  double newton_tol = 1e-6;
  double cg_tol = 1e-10;
  // --one SIZE SOLVER: run one configuration, print one JSON line (internal).
  bool one = false;
  std::string one_size, one_solver;
};

constexpr const char* kUsage =
    "usage: cantilever_solvers [--sizes 1k,10k,50k] "
    "[--solvers cholmod,pcg-jacobi,pcg-ichol,matfree] [--steps 50] [--dt 0.01] [--threads N] "
    "[--max-seconds 120] [--out FILE] [--material stable_neo_hookean] [--youngs 1e7] "
    "[--poisson 0.4] [--density 1000] [--newton-tol 1e-6] [--cg-tol 1e-10]";

[[noreturn]] void fail(const std::string& msg) {
  std::fprintf(stderr, "cantilever_solvers: %s\n", msg.c_str());
  std::exit(1);
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
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

/// Cells (nx, ny, nz) of a size name: 1k / 10k / 50k or NXxNYxNZ.
Cells parse_size(const std::string& s) {
  if (const auto c = parse_cells(s)) return *c;
  fail("unknown size '" + s + "': use 1k, 10k, 50k or cells NXxNYxNZ (e.g. 40x4x4)");
}

/// Linear solver options of a solver name.
LinearSolverOptions linear_options(const std::string& solver, double cg_tol) {
  LinearSolverOptions o;
  o.rel_tol = cg_tol;
  if (solver == "cholmod") {
    o.kind = "cholmod";
  } else if (solver == "pcg-jacobi") {
    o.kind = "pcg";
    o.preconditioner = "jacobi";
  } else if (solver == "pcg-ichol") {
    o.kind = "pcg";
    o.preconditioner = "ichol";
  } else if (solver == "matfree") {
    o.kind = "matfree";  // Jacobi-preconditioned CG on element Hessian-vector products
  } else {
    fail("unknown solver '" + solver + "': use cholmod, pcg-jacobi, pcg-ichol or matfree");
  }
  return o;
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
    } else if (a == "--solvers") {
      o.solvers = split_list(next());
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
    } else if (a == "--material") {
      o.material = next();
    } else if (a == "--youngs") {
      o.youngs = parse_number(a, next());
    } else if (a == "--poisson") {
      o.poisson = parse_number(a, next());
    } else if (a == "--density") {
      o.density = parse_number(a, next());
    } else if (a == "--newton-tol") {
      o.newton_tol = parse_number(a, next());
    } else if (a == "--cg-tol") {
      o.cg_tol = parse_number(a, next());
    } else if (a == "--one") {
      o.one = true;
      o.one_size = next();
      o.one_solver = next();
    } else if (a == "--help" || a == "-h") {
      std::printf("%s\n", kUsage);
      std::exit(0);
    } else {
      fail("unknown option " + a + "\n" + kUsage);
    }
  }
  if (o.sizes.empty() || o.solvers.empty()) fail("--sizes and --solvers must not be empty");
  if (o.steps < 1) fail("--steps must be positive");
  if (!(o.dt > 0.0)) fail("--dt must be positive");
  if (o.threads < 0) fail("--threads must be positive");
  if (!(o.max_seconds >= 0.0)) fail("--max-seconds must be >= 0 (0: no budget)");
  if (o.threads == 0) o.threads = omp_get_max_threads();
  for (const auto& s : o.sizes) parse_size(s);  // validate before running anything
  for (const auto& s : o.solvers) linear_options(s, o.cg_tol);
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
  const Cantilever beam =
      make_cantilever(cells, BeamMaterial{o.material, o.youngs, o.poisson, o.density});
  const std::shared_ptr<Model>& model = beam.model;

  SimulationOptions so;
  so.dt = o.dt;
  so.newton.tolerance = o.newton_tol;
  so.linear = linear_options(o.one_solver, o.cg_tol);
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

// ---------------------------------------------------------------------------------------------
// Parent: one child per configuration.

/// The argument list a child gets: --one SIZE SOLVER plus every option that shapes the run.
std::vector<std::string> child_args(const Options& o, const std::string& size,
                                    const std::string& solver) {
  const auto num = [](double x) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.17g", x);
    return std::string(buf);
  };
  return {self_exe(),
          "--one",
          size,
          solver,
          "--steps",
          std::to_string(o.steps),
          "--dt",
          num(o.dt),
          "--threads",
          std::to_string(o.threads),
          "--max-seconds",
          num(o.max_seconds),
          "--material",
          o.material,
          "--youngs",
          num(o.youngs),
          "--poisson",
          num(o.poisson),
          "--density",
          num(o.density),
          "--newton-tol",
          num(o.newton_tol),
          "--cg-tol",
          num(o.cg_tol)};
}

/// A result for a configuration whose child produced none.
json failed_result(const std::string& size, const std::string& solver, const std::string& status,
                   const std::string& message, double wall_s) {
  const Cells c = parse_size(size);
  json r;
  r["size"] = size;
  r["cells"] = {c.nx, c.ny, c.nz};
  r["solver"] = solver;
  r["n_tets"] = c.n_tets();
  r["n_dofs"] = c.n_dofs();
  r["status"] = status;
  r["all_converged"] = false;
  r["error"] = message;
  r["wall_s"] = wall_s;
  return r;
}

/// Runs one configuration in a child process and returns its result (or a failure record).
json run_child(const Options& o, const std::string& size, const std::string& solver) {
  const double hard_limit = o.max_seconds > 0.0 ? 3.0 * o.max_seconds + 300.0 : 0.0;
  const ChildOutput c = bench::run_child(child_args(o, size, solver), o.threads, hard_limit);
  if (c.killed)
    return failed_result(
        size, solver, "killed",
        "the child ran past the hard limit of " + std::to_string(hard_limit) + " s and was killed",
        c.wall_s);
  json result = c.result();
  if (!result.is_object()) return failed_result(size, solver, "crashed", c.failure(), c.wall_s);
  result["wall_s"] = c.wall_s;
  return result;
}

// ---------------------------------------------------------------------------------------------
// Output.

double get_or(const json& r, const char* key, double fallback) {
  return r.contains(key) && r[key].is_number() ? r[key].get<double>() : fallback;
}

void print_header() {
  std::printf("%-6s %7s %7s %-11s %7s %9s %9s %7s %9s %8s %10s %5s  %s\n", "size", "tets", "dofs",
              "solver", "steps", "mean[s]", "max[s]", "newton", "linear", "RSS[MB]", "tip[mm]",
              "conv", "note");
}

void print_row(const json& r) {
  const std::string status = r.value("status", "?");
  const int n_steps = r.value("steps_run", 0);
  std::printf("%-6s %7d %7d %-11s", r.value("size", "?").c_str(), r.value("n_tets", 0),
              r.value("n_dofs", 0), r.value("solver", "?").c_str());
  if (status == "ok" || status == "truncated") {
    std::printf(" %7d %9.4f %9.4f %7.2f %9.1f %8.1f %10.4f %5s  %s", n_steps,
                get_or(r, "mean_step_s", NAN), get_or(r, "max_step_s", NAN),
                get_or(r, "newton_per_step", NAN), get_or(r, "linear_per_step", NAN),
                get_or(r, "peak_rss_mb", NAN), 1e3 * get_or(r, "tip_deflection_m", NAN),
                r.value("all_converged", false) ? "yes" : "NO",
                status == "truncated" ? "truncated (budget), t_final below" : "");
    if (status == "truncated") std::printf(" t=%.2f s", get_or(r, "t_final", NAN));
    if (r.value("failed_steps", 0) > 0) std::printf(" %d failed steps", r.value("failed_steps", 0));
  } else {
    std::printf(" %7s %9s %9s %7s %9s %8s %10s %5s  %s: %s", "-", "-", "-", "-", "-", "-", "-",
                "NO", status.c_str(), r.value("error", "").c_str());
  }
  std::printf("\n");
  std::fflush(stdout);
}

int run_all(const Options& o) {
  const unsigned cores = std::thread::hardware_concurrency();
  const std::vector<double> load0 = load_average();
  // A scale for the dynamic deflections (backward Euler at t = steps * dt is not the static
  // answer).
  const double static_tip =
      static_tip_deflection(BeamMaterial{o.material, o.youngs, o.poisson, o.density});

  std::printf(
      "cantilever_solvers: %g x %g x %g m beam clamped at x = 0, gravity -9.81 y, %s E = %g Pa "
      "nu = %g rho = %g\n"
      "  %d steps of dt = %g s, Newton tol %g, CG rel tol %g, %d OpenMP threads, budget %s per "
      "configuration\n"
      "  %u cores, load average at start %.2f %.2f %.2f; static Euler-Bernoulli tip deflection "
      "%.1f mm\n\n",
      kLength, kWidth, kWidth, o.material.c_str(), o.youngs, o.poisson, o.density, o.steps, o.dt,
      o.newton_tol, o.cg_tol, o.threads,
      o.max_seconds > 0 ? (std::to_string(static_cast<int>(o.max_seconds)) + " s").c_str() : "none",
      cores, load0[0], load0[1], load0[2], -1e3 * static_tip);
  print_header();

  const auto t0 = Clock::now();
  json results = json::array();
  for (const auto& size : o.sizes)
    for (const auto& solver : o.solvers) {
      json r = run_child(o, size, solver);
      print_row(r);
      results.push_back(std::move(r));
    }
  const double total_s = std::chrono::duration<double>(Clock::now() - t0).count();
  const std::vector<double> load1 = load_average();

  // Did the solvers compute the same thing? Per size, the tip deflection of every solver that
  // ran at the last step all of them reached (truncated runs stop at different steps).
  std::printf("\nagreement: tip deflection at the last step every solver of a size reached\n");
  json agreement = json::array();
  for (const auto& size : o.sizes) {
    int common = o.steps;
    std::vector<const json*> runs;
    for (const auto& r : results)
      if (r.value("size", "") == size && r.contains("tip_deflection_per_step_m")) {
        runs.push_back(&r);
        common = std::min(common, static_cast<int>(r["tip_deflection_per_step_m"].size()));
      }
    if (runs.empty() || common < 1) continue;
    double lo = INFINITY, hi = -INFINITY;
    json solvers = json::array();
    for (const json* r : runs) {
      const double d = (*r)["tip_deflection_per_step_m"][common - 1].get<double>();
      lo = std::min(lo, d);
      hi = std::max(hi, d);
      solvers.push_back((*r)["solver"]);
    }
    std::printf("  %-6s step %3d (t = %.2f s), %zu solvers: tip %.6f .. %.6f mm, spread %.2e m\n",
                size.c_str(), common, common * o.dt, runs.size(), 1e3 * lo, 1e3 * hi, hi - lo);
    agreement.push_back({{"size", size},
                         {"step", common},
                         {"t", common * o.dt},
                         {"solvers", solvers},
                         {"tip_min_m", lo},
                         {"tip_max_m", hi},
                         {"spread_m", hi - lo}});
  }

  std::printf(
      "\nmean/max: wall time per step [s]; newton, linear: iterations per step (linear is 0 for "
      "cholmod, summed CG iterations otherwise); RSS: peak resident set (VmHWM) of the "
      "configuration's own process; tip: mean y displacement of the x = L vertices at the last "
      "step run. 'truncated': the configuration stopped after the step during which its "
      "stepping time passed --max-seconds %g s, so its averages are over the steps run and its "
      "tip deflection is at an earlier time t.\n",
      o.max_seconds);
  std::printf("total %.1f s; load average at end %.2f %.2f %.2f\n", total_s, load1[0], load1[1],
              load1[2]);

  json j;
  j["benchmark"] = "cantilever_solvers";
  j["machine"] = {{"cores", cores},
                  {"cpu", cpu_model()},
                  {"load_average_at_start", load0},
                  {"load_average_at_end", load1}};
  const char* wait_policy = std::getenv("OMP_WAIT_POLICY");
  j["threads"] = o.threads;
  j["omp_wait_policy"] = wait_policy ? wait_policy : "(unset: libgomp default, spins)";
  j["steps"] = o.steps;
  j["dt"] = o.dt;
  j["max_seconds_per_configuration"] = o.max_seconds;
  j["problem"] = {{"beam_m", {kLength, kWidth, kWidth}},
                  {"clamp", "x = 0 vertices, fixed"},
                  {"gravity", {0.0, -9.81, 0.0}},
                  {"material", o.material},
                  {"youngs", o.youngs},
                  {"poisson", o.poisson},
                  {"density", o.density},
                  {"newton_tolerance", o.newton_tol},
                  {"cg_rel_tol", o.cg_tol},
                  {"static_euler_bernoulli_tip_m", -static_tip}};
  j["total_s"] = total_s;
  j["results"] = std::move(results);
  j["agreement"] = std::move(agreement);
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
      std::fprintf(stderr, "cantilever_solvers: %s\n", e.what());
      return 1;
    }
  }
  omp_set_num_threads(o.threads);
  try {
    const json r = run_one(o);
    std::printf("%s\n", r.dump().c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cantilever_solvers --one %s %s: %s\n", o.one_size.c_str(),
                 o.one_solver.c_str(), e.what());
    std::printf("%s\n",
                failed_result(o.one_size, o.one_solver, "error", e.what(), 0.0).dump().c_str());
    return 1;
  }
}
