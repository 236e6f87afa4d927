/// @file simulator_impl.hpp
/// The Simulator's internals (the adjoint sees only simulator_workspace.hpp).
#pragma once

#include <memory>

#include "incremental_potential.hpp"
#include "newton.hpp"
#include "softgrad/simulator.hpp"

namespace softgrad {

struct Simulator::Impl {
  std::unique_ptr<IncrementalPotential> phi;
  std::unique_ptr<LinearSolver> linear;
  std::unique_ptr<MatrixFreeCgSolver> matrix_free;
  /// Scratch of the accelerated guess: the guess and Phi's gradient at it.
  Eigen::VectorXd guess, guess_gradient;

  std::unique_ptr<LinearSolver> direct_fallback;  ///< CHOLMOD, for directions CG gives up on

  NewtonLinearSolver solver() { return {linear.get(), matrix_free.get(), &direct_fallback}; }
};

}  // namespace softgrad
