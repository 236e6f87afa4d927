/// @file cantilever_solvers_options.hpp
/// cantilever_solvers' command-line options, shared by its child and parent sides.
#pragma once

#include <string>
#include <vector>

namespace softgrad::bench {

/// What cantilever_solvers runs: the sizes and solvers compared, the problem and the budget.
struct SolverBenchOptions {
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

}  // namespace softgrad::bench
