/// @file batch.hpp
/// Many rollouts of one Model side by side, and their gradients: a TaskPool's threads, one
/// Simulator (workspace) each, the element loops of each rollout on one thread. The results
/// equal simulate() and gradient() run one by one with one thread, bit for bit, whatever the
/// number of threads.
#pragma once

#include <memory>
#include <vector>

#include "softgrad/adjoint.hpp"
#include "softgrad/trajectory.hpp"

namespace softgrad {

/// The trajectories of `rollouts` (each with its own parameters, controls, controller and
/// initial state), in order. `threads`: 0 for one per hardware thread.
/// @throws the error of the lowest-numbered failing rollout (InputError or ConvergenceError),
/// its message prefixed by "rollout <k>: ".
std::vector<Trajectory> simulate_batch(const std::shared_ptr<const Model>& model,
                                       const SimulationOptions& options,
                                       const std::vector<Rollout>& rollouts,
                                       const TrajectoryOptions& trajectory = {}, int threads = 0);

/// gradient() of each trajectory (all of one model and options) for the same loss and
/// parameters, in order. The loss is shared by the threads: its evaluate() must be safe to call
/// concurrently (every built-in loss is).
/// @throws as gradient() does, the message prefixed by "rollout <k>: ".
std::vector<GradientResult> gradient_batch(const std::vector<Trajectory>& trajectories,
                                           const Loss& loss, const ParameterSet& params,
                                           const AdjointOptions& options = {}, int threads = 0);

}  // namespace softgrad
