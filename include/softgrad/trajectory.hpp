/// @file trajectory.hpp
/// A rollout (initial state, step count, the terms' parameter values, a controller, optional
/// prescribed kinematics) and its Trajectory: every input the rollout used and the stored states
/// the adjoint walks back through, all of them or every k-th (checkpointing).
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

/// Everything a simulation run depends on besides the Model and the SimulationOptions: its
/// per-rollout data. Many rollouts of one Model may differ in all of it.
struct Rollout {
  State initial;  ///< x_0, v_0 (its step counter is ignored: the rollout starts at step 0)
  int steps = 0;  ///< T, the number of steps
  /// Positions of Model::kinematic_dofs() at the end of each step (T entries), overriding the
  /// scripted motion; empty: the scripted motion. Differentiable as the "kinematic" parameter.
  std::vector<Eigen::VectorXd> kinematic_path;
  /// One static equilibrium (Simulator::solve_static from `initial`) instead of T steps; the
  /// trajectory then has two states: the start (0) and the equilibrium (1).
  bool static_solve = false;
  /// The terms' parameter values (Model::default_parameters() layout); empty: the model's
  /// defaults. ParameterSet::set writes here, and the controller writes each step's values of
  /// its term here (in the Trajectory's copy).
  TermParameters parameters;
  /// A controller that writes, before step n, the values of step n of the per-step parameter
  /// group of the term named `controlled_term` (e.g. a muscle term's activations), for the
  /// steps that group holds. Copies of a Rollout share it; ParameterSet::set replaces it.
  std::shared_ptr<const Controller> controller;
  std::string controlled_term;
};

/// A rollout's controller bound to its term (resolved once for a loop of advance()).
struct ControllerBinding {
  int term = -1;  ///< index into Model::terms; -1: no controller
  int steps = 0;  ///< the steps the term's per-step group holds values for
};

struct TrajectoryOptions {
  /// Store every k-th state (1: all of them). The adjoint recomputes the states between two
  /// checkpoints, so memory holds about T/k + k states for the price of one more forward pass.
  /// 0 chooses k = ceil(sqrt(T)), the minimum of T/k + k.
  int checkpoint_every = 1;
};

/// The result of simulate(): the model, the options and every input the rollout used (its
/// parameters, the values its controller wrote, a copy of the controller), the stored states
/// and the per-step Newton reports. Gradients need nothing else.
class Trajectory {
 public:
  const Rollout& rollout() const { return rollout_; }
  const std::shared_ptr<const Model>& model() const { return model_; }
  const SimulationOptions& options() const { return options_; }
  /// The parameter values of every step, the controller's outputs included.
  const TermParameters& parameters() const { return rollout_.parameters; }
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
  friend class RolloutRun;
  std::shared_ptr<const Model> model_;
  SimulationOptions options_;
  Rollout rollout_;
  int every_ = 1;
  std::vector<State> checkpoints_;  ///< states 0, k, 2k, ...
  State final_;
  std::vector<NewtonReport> reports_;
};

/// A rollout taken step by step; simulate() is one whole run of it. Runs of one Model may be
/// interleaved (sharing one Simulator) or run on threads (one Simulator each): everything a run
/// changes lives in the run.
class RolloutRun {
 public:
  /// Checks the rollout (prepare_rollout) and starts at its initial state.
  /// @throws InputError as simulate() does. The simulator must outlive the run.
  RolloutRun(Simulator& sim, const Rollout& rollout, const TrajectoryOptions& options = {});
  /// True when every step of the rollout is taken.
  bool done() const { return n_ == trajectory_.steps(); }
  /// Takes the next step and returns its report.
  /// @throws ConvergenceError if it fails under FailurePolicy::Stop, InputError if done().
  const NewtonReport& step();
  /// The state after the steps taken so far.
  const State& state() const { return state_; }
  /// The trajectory. @throws InputError unless done().
  Trajectory take() &&;

 private:
  Simulator& sim_;
  Trajectory trajectory_;
  ControllerBinding binding_;
  State state_;
  int n_ = 0;
};

/// Runs a rollout, storing states as `options` asks.
/// @throws ConvergenceError if a step fails and the policy is FailurePolicy::Stop (the message
///         names the step); InputError for an inconsistent rollout (state sizes, path lengths,
///         parameters, a controller without a term to drive).
Trajectory simulate(Simulator& sim, const Rollout& rollout, const TrajectoryOptions& options = {});

/// Advances s by one step of `rollout`: the controller (if any) writes its outputs for the step
/// starting at s into rollout.parameters, then the step is taken with those parameters and the
/// rollout's prescribed kinematics. The same step simulate() takes; a static rollout's step is
/// the equilibrium at s.t. @pre rollout.parameters is set (make_parameters).
NewtonReport advance(Simulator& sim, Rollout& rollout, State& s);
/// The same with the controller already bound (bind_controller).
NewtonReport advance(Simulator& sim, Rollout& rollout, State& s, const ControllerBinding& binding);

/// The rollout's controlled term (no term, steps 0, without a controller).
/// @throws InputError if the model has no such term or it has no per-step group.
ControllerBinding bind_controller(const Model& model, const Rollout& rollout);

/// Fills rollout.parameters with the model's defaults if it is empty, and checks the rollout
/// against the model (state sizes, parameters, kinematic path, a controlled term that holds
/// values for every step).
/// @throws InputError naming what does not fit.
ControllerBinding prepare_rollout(const Simulator& sim, Rollout& rollout);

/// A rollout of `steps` steps from the simulator's rest state.
Rollout rest_rollout(const Simulator& sim, int steps);

}  // namespace softgrad
