/// @file adjoint_child.hpp
/// adjoint_cantilever's child side: one (size, backend, checkpoints) configuration measured in
/// this process, and the backend and checkpoint names it understands.
#pragma once

#include <string>

#include "adjoint_summary.hpp"
#include "softgrad/solvers/linear_solver.hpp"

namespace softgrad::bench {

/// Linear solver options of a --backends name: cholmod, pcg (= pcg-jacobi), pcg-jacobi,
/// pcg-ichol or matfree, with CG tolerance cg_tol.
/// @throws std::invalid_argument for any other name.
LinearSolverOptions backend_options(const std::string& backend, double cg_tol);

/// TrajectoryOptions::checkpoint_every of a --checkpoints mode: "1", "sqrt" (0) or an integer.
/// @throws std::invalid_argument for anything else.
int checkpoint_every(const std::string& mode);

/// Runs the configuration o.one_size, o.one_backend, o.one_checkpoint and returns its record:
/// setup, probe, forward and backward times, peak RSS and the gradient.
/// @throws what the simulation or the adjoint throws.
json run_one(const AdjointBenchOptions& o);

}  // namespace softgrad::bench
