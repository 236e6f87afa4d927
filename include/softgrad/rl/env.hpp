/// @file env.hpp
/// The episodic task interface the model-free baselines (PPO, ES) train on: reset() starts an
/// episode, step() applies an action and returns the next observation, the reward and whether
/// the episode is over. Every step taken counts as one simulated step, the cost axis of the
/// learning curves.
#pragma once

#include <Eigen/Core>

namespace softgrad::rl {

/// What one step returns.
struct StepResult {
  Eigen::VectorXd observation;  ///< o_{n+1}
  double reward = 0.0;          ///< r_n
  bool done = false;            ///< the episode is over: call reset() before the next step
  /// The episode ended in a terminal state (a failed simulation step): the value after it is 0.
  /// done without terminal is the time limit, after which the algorithms bootstrap from
  /// o_{n+1}.
  bool terminal = false;
};

/// An episodic task. Implementations own their randomness (seeded), so runs repeat exactly.
class Env {
 public:
  virtual ~Env() = default;
  virtual int observation_size() const = 0;
  virtual int action_size() const = 0;
  /// Starts an episode and returns its first observation o_0.
  virtual Eigen::VectorXd reset() = 0;
  /// Applies action a_n (action_size() values) and advances one step.
  /// @pre reset() was called and the episode is not done. @throws InputError otherwise, or for
  ///      an action of the wrong size or with non-finite values.
  virtual StepResult step(const Eigen::VectorXd& action) = 0;
  /// Steps taken since construction, over all episodes.
  virtual long simulated_steps() const = 0;
};

}  // namespace softgrad::rl
