// cantilever_solvers' parent: one child process per configuration, the table, the agreement
// between the solvers and the JSON file.
#include "cantilever_solvers_parent.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cantilever_beam.hpp"
#include "child_process.hpp"
#include "command_line.hpp"
#include "softgrad/openmp_waiting.hpp"

namespace softgrad::bench {

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

namespace {

using Clock = std::chrono::steady_clock;
using Options = SolverBenchOptions;

/// The argument list a child gets: --one SIZE SOLVER plus every option that shapes the run.
std::vector<std::string> child_args(const Options& o, const std::string& size,
                                    const std::string& solver) {
  std::vector<std::string> args = {self_exe(), "--one", size, solver};
  for (std::string& a : beam_run_arguments(o, o.steps, o.max_seconds)) args.push_back(std::move(a));
  return args;
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

/// r[key] if it is a number, else fallback.
double get_or(const json& r, const char* key, double fallback) {
  return r.contains(key) && r[key].is_number() ? r[key].get<double>() : fallback;
}

/// The table's column names.
void print_header() {
  std::printf("%-6s %7s %7s %-11s %7s %9s %9s %7s %9s %8s %10s %5s  %s\n", "size", "tets", "dofs",
              "solver", "steps", "mean[s]", "max[s]", "newton", "linear", "RSS[MB]", "tip[mm]",
              "conv", "note");
}

/// A configuration's row: its figures, or its status and error if it has none.
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

}  // namespace

int run_all(const SolverBenchOptions& o) {
  const unsigned cores = std::thread::hardware_concurrency();
  const std::vector<double> load0 = load_average();
  // A scale for the dynamic deflections (backward Euler at t = steps * dt is not the static
  // answer).
  const double static_tip = static_tip_deflection(o.beam);

  std::printf(
      "cantilever_solvers: %g x %g x %g m beam clamped at x = 0, gravity -9.81 y, %s E = %g Pa "
      "nu = %g rho = %g\n"
      "  %d steps of dt = %g s, Newton tol %g, CG rel tol %g, %d OpenMP threads, budget %s per "
      "configuration\n"
      "  %u cores, load average at start %.2f %.2f %.2f; static Euler-Bernoulli tip deflection "
      "%.1f mm\n\n",
      kLength, kWidth, kWidth, o.beam.model.c_str(), o.beam.youngs, o.beam.poisson, o.beam.density,
      o.steps, o.dt, o.newton_tol, o.cg_tol, o.threads,
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
  j["machine"] = machine_info();
  j["machine"]["cores"] = cores;
  j["machine"]["load_average_at_start"] = load0;
  j["machine"]["load_average_at_end"] = load1;
  j["threads"] = o.threads;
  j["omp_wait_policy"] = softgrad::openmp_wait_policy();
  j["steps"] = o.steps;
  j["dt"] = o.dt;
  j["max_seconds_per_configuration"] = o.max_seconds;
  j["problem"] = {{"beam_m", {kLength, kWidth, kWidth}},
                  {"clamp", "x = 0 vertices, fixed"},
                  {"gravity", {0.0, -9.81, 0.0}},
                  {"material", o.beam.model},
                  {"youngs", o.beam.youngs},
                  {"poisson", o.beam.poisson},
                  {"density", o.beam.density},
                  {"newton_tolerance", o.newton_tol},
                  {"cg_rel_tol", o.cg_tol},
                  {"static_euler_bernoulli_tip_m", -static_tip}};
  j["total_s"] = total_s;
  j["results"] = std::move(results);
  j["agreement"] = std::move(agreement);
  std::ofstream out(o.out);
  if (!out) throw std::runtime_error("cannot write " + o.out);
  out << j.dump(2) << "\n";
  std::printf("wrote %s\n", o.out.c_str());
  return 0;
}

}  // namespace softgrad::bench
