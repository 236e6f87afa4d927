// adjoint_cantilever's parent: one child process per configuration, the table and the JSON file.
#include "adjoint_parent.hpp"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cantilever_beam.hpp"
#include "child_process.hpp"
#include "command_line.hpp"

namespace softgrad::bench {
namespace {

using Clock = std::chrono::steady_clock;
using Options = AdjointBenchOptions;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// The argument list of a child: --one SIZE BACKEND CHECKPOINTS plus the options of the run;
/// budget_s 0 makes the child run all `steps`.
std::vector<std::string> child_args(const Options& o, const std::string& size,
                                    const std::string& backend, const std::string& ckpt, int steps,
                                    double budget_s) {
  std::vector<std::string> args = {self_exe(), "--one", size, backend, ckpt};
  for (std::string& a : beam_run_arguments(o, steps, budget_s)) args.push_back(std::move(a));
  args.push_back("--adjoint-tol");
  args.push_back(exact_number(o.adjoint_tol));
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
    r["error"] =
        c.killed ? "ran past the hard limit of " + exact_number(hard_limit) + " s" : c.failure();
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

}  // namespace

int run_all(const AdjointBenchOptions& o) {
  const std::vector<double> load0 = load_average();
  std::printf(
      "adjoint_cantilever: %g x %g x %g m beam clamped at x = 0, gravity -9.81 y, %s E = %g Pa "
      "nu = %g rho = %g\n  dt = %g s, Newton tol %g, forward CG rel tol %g, adjoint CG rel tol "
      "%g, %d OpenMP threads, budget %s per configuration\n  %u cores, load average at start "
      "%.2f %.2f %.2f\n\n",
      kLength, kWidth, kWidth, o.beam.model.c_str(), o.beam.youngs, o.beam.poisson, o.beam.density,
      o.dt, o.newton_tol, o.cg_tol, o.adjoint_tol, o.threads,
      o.max_seconds > 0 ? (exact_number(o.max_seconds) + " s").c_str() : "none",
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
  if (!out) throw std::runtime_error("cannot write " + o.out);
  out << j.dump(2) << "\n";
  std::printf("wrote %s\n", o.out.c_str());
  return 0;
}

}  // namespace softgrad::bench
