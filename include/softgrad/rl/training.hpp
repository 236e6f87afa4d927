/// @file training.hpp
/// What the RL baselines return (a learning curve against simulated steps and the best
/// parameters), and helpers shared by them and by comparisons with gradient-based training.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "softgrad/detail/rl/env_pool.hpp"
#include "softgrad/mlp.hpp"
#include "softgrad/rl/env.hpp"

namespace softgrad::rl {

/// One iteration of a training run.
struct CurvePoint {
  /// Simulated steps of training episodes so far (evaluation episodes are not counted).
  long steps = 0;
  /// The mean return of this iteration's training episodes (PPO: sampled actions; ES: the
  /// perturbed deterministic policies).
  double mean_return = 0.0;
  /// The mean return of the deterministic policy a = MLP(o) after this iteration's update,
  /// over evaluation_episodes episodes; NaN when evaluation is off.
  double policy_return = std::numeric_limits<double>::quiet_NaN();
};

struct TrainingResult {
  std::vector<CurvePoint> curve;  ///< one point per iteration
  /// The deterministic policy's return before training (NaN when evaluation is off).
  double initial_return = std::numeric_limits<double>::quiet_NaN();
  /// The MLP parameters (MlpController::set_parameters takes them) with the highest
  /// policy_return seen, the initial ones included; when evaluation is off, those that
  /// collected the iteration with the highest mean_return.
  Eigen::VectorXd best_parameters;
  double best_return = -std::numeric_limits<double>::infinity();
  Eigen::VectorXd final_parameters;  ///< the MLP parameters after the last iteration
  long training_steps = 0;           ///< simulated steps of training episodes
  long evaluation_steps = 0;         ///< simulated steps of evaluation episodes
};

/// Called after each iteration with its index and curve point (progress reports, logging).
using IterationCallback = std::function<void(int iteration, const CurvePoint& point)>;

/// @throws InputError (naming `who`) if the policy MLP's input or output size does not match
///         the env's observation or action size.
void check_policy(const Env& env, const Mlp& policy, const std::string& who);
/// The same for the environments of a pool.
void check_policy(EnvPool& envs, const Mlp& policy, const std::string& who);

/// Runs `episodes` episodes of env with the deterministic policy a = policy(o) and returns
/// their mean return.
/// @throws InputError if the policy does not match the env or episodes < 1.
double episode_return(Env& env, const Mlp& policy, int episodes = 1);

/// The steps of the first curve point whose return reaches `threshold` (policy_return when it
/// is not NaN, else mean_return); -1 if none does. For "steps to reach 90% of the best final
/// return": threshold = 0.9 * best final return.
long steps_to_reach(const std::vector<CurvePoint>& curve, double threshold);

}  // namespace softgrad::rl
