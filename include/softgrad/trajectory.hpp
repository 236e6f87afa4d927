/// @file trajectory.hpp
/// A rollout (initial state, step count, optional prescribed kinematics) and its Trajectory: the
/// stored states the adjoint walks back through, all of them or every k-th (checkpointing).
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "softgrad/controller.hpp"
#include "softgrad/simulator.hpp"
#include "softgrad/state.hpp"

namespace softgrad {

/// Everything a simulation run depends on besides the Model and the SimulationOptions.
struct Rollout {
  State initial;  ///< x_0, v_0 (its step counter is ignored: the rollout starts at step 0)
  int steps = 0;  ///< T, the number of steps
  /// Positions of Model::kinematic_dofs() at the end of each step (T entries), overriding the
  /// scripted motion; empty: the scripted motion. Differentiable as the "kinematic" parameter.
  std::vector<Eigen::VectorXd> kinematic_path;
  /// One static equilibrium (Simulator::solve_static from `initial`) instead of T steps; the
  /// trajectory then has two states: the start (0) and the equilibrium (1).
  bool static_solve = false;
  /// A controller that writes, before step n, the values of step n of the per-step parameter
  /// group of the term named `controlled_term` (e.g. a muscle term's activations). Copies of a
  /// Rollout share it until ParameterSet::set changes its parameters (copy on write).
  std::shared_ptr<Controller> controller;
  std::string controlled_term;
};

struct TrajectoryOptions {
  /// Store every k-th state (1: all of them). The adjoint recomputes the states between two
  /// checkpoints, so memory holds about T/k + k states for the price of one more forward pass.
  /// 0 chooses k = ceil(sqrt(T)), the minimum of T/k + k.
  int checkpoint_every = 1;
};

/// The result of simulate(): stored states and per-step Newton reports.
class Trajectory {
 public:
  const Rollout& rollout() const { return rollout_; }
  int steps() const { return rollout_.static_solve ? 1 : rollout_.steps; }
  /// The k of TrajectoryOptions (resolved when 0 was asked for).
  int checkpoint_every() const { return every_; }
  /// True if state n (0..steps()) is stored: n a multiple of k, or the last state.
  bool stored(int n) const;
  /// State n. @throws InputError if it is not stored (recompute it from a checkpoint).
  const State& state(int n) const;
  const State& final_state() const { return final_; }
  /// One report per step taken (fewer than steps() if a step failed with FailurePolicy::Stop).
  const std::vector<NewtonReport>& reports() const { return reports_; }
  /// True if every step converged.
  bool converged() const;
  /// Bytes held by the stored states.
  std::size_t stored_bytes() const;

 private:
  friend Trajectory simulate(Simulator&, const Rollout&, const TrajectoryOptions&);
  Rollout rollout_;
  int every_ = 1;
  std::vector<State> checkpoints_;  ///< states 0, k, 2k, ...
  State final_;
  std::vector<NewtonReport> reports_;
};

/// Runs a rollout, storing states as `options` asks.
/// @throws ConvergenceError if a step fails and the policy is FailurePolicy::Stop (the message
///         names the step); InputError for an inconsistent rollout (state sizes, path lengths).
Trajectory simulate(Simulator& sim, const Rollout& rollout, const TrajectoryOptions& options = {});

/// Advances s by one step of `rollout` (with its prescribed kinematics, if any): the same step
/// simulate() takes, so that recomputed states equal stored ones bit for bit.
NewtonReport advance(Simulator& sim, const Rollout& rollout, State& s);

/// The index in Model::terms of the rollout's controlled term.
/// @throws InputError if there is none or its per-step group is too short.
int controlled_term(const Simulator& sim, const Rollout& rollout);

/// Writes the controller's outputs for the step starting at s into the controlled term (no-op
/// without a controller).
void apply_controller(Simulator& sim, const Rollout& rollout, const State& s);

/// A rollout of `steps` steps from the simulator's rest state.
Rollout rest_rollout(const Simulator& sim, int steps);

}  // namespace softgrad
