/// @file newton.hpp
/// Newton's method on an IncrementalPotential: projected-Hessian direction, backtracking Armijo
/// line search that also rejects infeasible points (Phi = +infinity), chord steps with a kept
/// matrix, convergence on the step.
#pragma once

#include <memory>

#include "incremental_potential.hpp"
#include "softgrad/simulator.hpp"
#include "solvers/cpu/matrix_free_cg.hpp"

namespace softgrad {

/// The linear solver Newton uses: an assembled-matrix backend, or matrix-free CG.
struct NewtonLinearSolver {
  LinearSolver* assembled = nullptr;  ///< cholmod / pcg
  MatrixFreeCgSolver* matrix_free = nullptr;
  /// Where CG gives up on a direction (it stagnates, or converges too slowly for its limit):
  /// CHOLMOD, made here at the first need. Null: no fallback.
  std::unique_ptr<LinearSolver>* direct_fallback = nullptr;
};

/// Phi and its gradient at the starting point, where the caller has them already.
struct NewtonStart {
  double energy = 0.0;
  const Eigen::VectorXd* gradient = nullptr;  ///< kinematic dofs zeroed, as phi gives it
};

/// Minimises phi from x (in place). `step_tolerance` is the ||dx||_inf at which it stops [m].
/// `start` (optional): Phi and its gradient at x, which are then not evaluated again.
NewtonReport newton_solve(IncrementalPotential& phi, NewtonLinearSolver solver,
                          const NewtonOptions& options, double step_tolerance, Eigen::VectorXd& x,
                          const NewtonStart* start = nullptr);

}  // namespace softgrad
