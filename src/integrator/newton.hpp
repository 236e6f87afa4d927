/// @file newton.hpp
/// Newton's method on an IncrementalPotential: projected-Hessian direction, backtracking Armijo
/// line search that also rejects infeasible points (Phi = +infinity), convergence on the step.
#pragma once

#include "incremental_potential.hpp"
#include "softgrad/simulator.hpp"
#include "solvers/cpu/matrix_free_cg.hpp"

namespace softgrad {

/// The linear solver Newton uses: an assembled-matrix backend, or matrix-free CG.
struct NewtonLinearSolver {
  LinearSolver* assembled = nullptr;  ///< cholmod / pcg
  MatrixFreeCgSolver* matrix_free = nullptr;
};

/// Minimises phi from x (in place). `step_tolerance` is the ||dx||_inf at which it stops [m].
NewtonReport newton_solve(IncrementalPotential& phi, NewtonLinearSolver solver,
                          const NewtonOptions& options, double step_tolerance, Eigen::VectorXd& x);

}  // namespace softgrad
