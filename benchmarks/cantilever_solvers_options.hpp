/// @file cantilever_solvers_options.hpp
/// cantilever_solvers' command-line options, shared by its child and parent sides.
#pragma once

#include <string>
#include <vector>

#include "beam_run_options.hpp"

namespace softgrad::bench {

/// What cantilever_solvers runs: the sizes and solvers compared, the problem and the budget.
struct SolverBenchOptions : BeamRunOptions {
  SolverBenchOptions() { out = "cantilever_solvers.json"; }
  std::vector<std::string> solvers = {"cholmod", "pcg-jacobi", "pcg-ichol", "matfree"};
  // --one SIZE SOLVER: run one configuration, print one JSON line (internal).
  bool one = false;
  std::string one_size, one_solver;
};

}  // namespace softgrad::bench
