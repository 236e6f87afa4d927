/// @file locomotion_env.hpp
/// An Env over the simulator for locomotion: the actions drive one muscle term exactly as the
/// closed-loop MlpController does, so a policy trained here (PPO's mean, ES's parameters) runs
/// unchanged as an MlpController in a Rollout, and the other way round.
///
///   observation o_n = MlpController::observe(n, s_n)   (relative positions, velocities, clock)
///   action y_n in R^m, applied as u_n = a_max tanh(atanh(u_{n-1} / a_max) + delta tanh(y_n))
///   reward r_n = c_x(x_{n+1}) - c_x(x_n)   (default: centre-of-mass progress along +x [m])
///
/// so an episode's return is the distance the centre of mass travels in T steps.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "softgrad/controller.hpp"
#include "softgrad/locomotion.hpp"
#include "softgrad/loss.hpp"
#include "softgrad/rl/env.hpp"
#include "softgrad/simulator.hpp"
#include "softgrad/trajectory.hpp"

namespace softgrad::rl {

/// The reward r_n of a step from `prev` (s_n) to `next` (s_{n+1}).
using RewardFunction = std::function<double(const State& prev, const State& next)>;

struct LocomotionOptions {
  std::string muscle_term;  ///< the term whose per-step activations the actions drive
  int n_muscles = 0;        ///< activations per step m (the action size)
  /// Observations (observed vertices, length and velocity scales, clock period), the action
  /// rule's bounds (a_max, delta) and the policy architecture (hidden sizes, seed), exactly as
  /// MlpController uses them.
  MlpController::Options controller;
  /// The reward; empty: centre-of-mass progress along +x over all vertices [m].
  RewardFunction reward;
  /// One episode variant: the goal the policy observes (empty: none), the initial velocities
  /// (empty: the rollout's) and the reward (empty: `reward`).
  struct Episode {
    Eigen::VectorXd goal;
    Eigen::VectorXd velocity;
    RewardFunction reward;
  };
  /// The variants reset() cycles through (empty: the rollout's episode with `reward`).
  std::vector<Episode> episodes;
  /// The reward of a step whose Newton solve fails, or whose state or reward is not finite;
  /// such a step ends the episode as terminal. In reward units (m for the default reward).
  double failure_reward = -0.1;
};

/// A control scene's options: its creature's muscle term (a robot's motors), the baselines'
/// policy (observing all vertices, or a robot's sensors), and its task's episodes and rewards
/// (the progress along the scene's direction, or minus each state's share of the loss).
LocomotionOptions locomotion_options(const Locomotion& locomotion);

class LocomotionEnv final : public Env {
 public:
  /// @param sim the simulator, kept by reference (it must outlive the env); the env writes the
  ///        muscle term's activations step by step, as Rollout controllers do.
  /// @param rollout the template: initial state, steps T = the episode length, and its
  ///        prescribed kinematics if any; its controller is ignored.
  /// @throws InputError for T < 1, a static rollout, n_muscles < 1, a muscle term that is
  ///         missing or whose per-step group has fewer than T * n_muscles values, or options
  ///         that MlpController rejects (observed vertices, a_max).
  LocomotionEnv(Simulator& sim, Rollout rollout, LocomotionOptions options);
  /// The same with a simulator of its own (an EnvPool's environments each have one).
  LocomotionEnv(std::unique_ptr<Simulator> sim, Rollout rollout, LocomotionOptions options);

  int observation_size() const override { return policy_shape_->network().inputs(); }
  int action_size() const override { return options_.n_muscles; }
  Eigen::VectorXd reset() override;
  /// One simulator step (advance(), as simulate() takes it). A failed Newton solve or a
  /// non-finite state or reward does not throw: the step returns failure_reward and ends the
  /// episode (terminal), and the state stays at s_n.
  StepResult step(const Eigen::VectorXd& action) override;
  long simulated_steps() const override { return simulated_steps_; }

  int episode_length() const { return rollout_.steps; }
  /// The current state s_n.
  const State& state() const { return state_; }
  /// The report of the last step taken.
  const NewtonReport& last_report() const { return report_; }
  /// An MlpController with this env's observations, bounds and architecture, holding the
  /// initial (seeded) policy parameters: its network() is the policy the algorithms start from.
  const MlpController& controller() const { return *policy_shape_; }
  /// A copy of controller() with `params` (the MLP parameters a training run returns), for
  /// Rollout::controller with Rollout::controlled_term = the muscle term: simulate() then
  /// reproduces the env's episode with actions y_n = MLP(o_n).
  /// @throws InputError for a wrong size or non-finite values.
  std::shared_ptr<MlpController> make_controller(const Eigen::VectorXd& params) const;

 private:
  std::unique_ptr<Simulator> own_sim_;  ///< null when the simulator is borrowed
  Simulator& sim_;
  Rollout rollout_;  ///< the template, driven by action_
  ControllerBinding binding_;
  LocomotionOptions options_;
  std::shared_ptr<MlpController> policy_shape_;  ///< observations and architecture
  std::shared_ptr<MlpController> action_;        ///< applies the action rule to y (see .cpp)
  CenterOfMassLoss center_;
  State state_;
  NewtonReport report_;
  RewardFunction reward_;  ///< this episode's
  long episodes_started_ = 0;
  bool active_ = false;
  long simulated_steps_ = 0;
};

}  // namespace softgrad::rl
