/// @file batch.hpp
/// Many rollouts of one Model side by side, and their gradients: a TaskPool's threads, one
/// Simulator (workspace) each, the element loops of each rollout on one thread. The results
/// equal simulate() and gradient() run one by one with one thread, bit for bit, whatever the
/// number of threads.
#pragma once

#include <memory>
#include <vector>

#include "softgrad/adjoint.hpp"
#include "softgrad/detail/task_pool.hpp"
#include "softgrad/trajectory.hpp"

namespace softgrad {

/// A batch runner for one model and options: it keeps a Simulator per worker (made when first
/// needed), so that repeated batches (training iterations) analyse their patterns once.
class RolloutBatch {
 public:
  /// `threads`: 0 for one per hardware thread.
  RolloutBatch(std::shared_ptr<const Model> model, SimulationOptions options, int threads = 0);
  ~RolloutBatch();

  int threads() const { return pool_.workers(); }
  /// The trajectories of `rollouts` (each with its own parameters, controls, controller and
  /// initial state), in order.
  /// @throws the error of the lowest-numbered failing rollout (InputError or ConvergenceError),
  /// its message prefixed by "rollout <k>: ".
  std::vector<Trajectory> simulate(const std::vector<Rollout>& rollouts,
                                   const TrajectoryOptions& trajectory = {});
  /// gradient() of each trajectory (all of this batch's model and options) for the same loss
  /// and parameters, in order. The loss is shared by the threads: its evaluate() must be safe
  /// to call concurrently (every built-in loss is).
  /// @throws as gradient() does, the message prefixed by "rollout <k>: "; InputError for a
  /// trajectory of another model or options.
  std::vector<GradientResult> gradient(const std::vector<Trajectory>& trajectories,
                                       const Loss& loss, const ParameterSet& params,
                                       const AdjointOptions& options = {});
  /// One adjoint per trajectory, each with its own loss and parameters (losses[k] and
  /// params[k] for trajectories[k]; all three the same length, pointers valid for the call):
  /// a batch of rollouts, each with its own cotangents, as a layer's backward needs.
  /// @throws as gradient() above.
  std::vector<GradientResult> gradient(const std::vector<const Trajectory*>& trajectories,
                                       const std::vector<const Loss*>& losses,
                                       const std::vector<const ParameterSet*>& params,
                                       const AdjointOptions& options = {});

 private:
  template <class Fn>
  void for_each(int n, const Fn& fn);

  std::shared_ptr<const Model> model_;
  SimulationOptions options_;
  TaskPool pool_;
  std::vector<std::unique_ptr<Simulator>> workspaces_;
};

/// RolloutBatch(model, options, threads).simulate(rollouts, trajectory).
std::vector<Trajectory> simulate_batch(const std::shared_ptr<const Model>& model,
                                       const SimulationOptions& options,
                                       const std::vector<Rollout>& rollouts,
                                       const TrajectoryOptions& trajectory = {}, int threads = 0);

/// RolloutBatch over the trajectories' model and options, its gradient().
std::vector<GradientResult> gradient_batch(const std::vector<Trajectory>& trajectories,
                                           const Loss& loss, const ParameterSet& params,
                                           const AdjointOptions& options = {}, int threads = 0);

}  // namespace softgrad
