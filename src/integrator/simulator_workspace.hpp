/// @file simulator_workspace.hpp
/// What a Simulator lends the adjoint: its incremental potential (the terms' data and the
/// analysed Hessian pattern) and its linear solver (with its symbolic analysis), so that
/// linearising a converged step costs no second analysis. The adjoint's one door into a
/// Simulator (it includes nothing else of the integrator's internals).
#pragma once

#include "incremental_potential.hpp"
#include "softgrad/simulator.hpp"

namespace softgrad {

struct SimulatorWorkspace {
  IncrementalPotential& potential;
  LinearSolver* linear;  ///< the forward solves' solver; null for matrix-free
};

/// The workspace of `sim` (valid while it lives).
SimulatorWorkspace simulator_workspace(Simulator& sim);

}  // namespace softgrad
