/// @file ppo.hpp
/// Proximal policy optimisation (Schulman et al. 2017) using the environment forward only:
/// a GaussianPolicy, a value MLP, generalised advantage estimation (Schulman et al. 2016),
///
///   delta_n = r_n + gamma V(o_{n+1}) - V(o_n),   A_n = delta_n + gamma lambda A_{n+1},
///
/// and the clipped surrogate on minibatches with Adam,
///
///   L_pi = -1/B sum_b min(rho_b A_b, clip(rho_b, 1 - eps, 1 + eps) A_b) - c_H H(pi),
///   rho_b = pi(a_b | o_b) / pi_old(a_b | o_b),     L_V = 1/(2B) sum_b (V(o_b) - R_b)^2,
///
/// with value targets R_n = A_n + V(o_n). After a terminal state V = 0; at the time limit the
/// last value bootstraps from V(o_T).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "softgrad/adam.hpp"
#include "softgrad/detail/rl/env_pool.hpp"
#include "softgrad/detail/rl/gaussian_policy.hpp"
#include "softgrad/mlp.hpp"
#include "softgrad/rl/env.hpp"
#include "softgrad/rl/training.hpp"

namespace softgrad::rl {

struct PpoOptions {
  int iterations = 100;
  int episodes_per_iteration = 8;  ///< whole episodes collected per iteration
  int epochs = 10;                 ///< passes over each iteration's samples
  int minibatch_size = 64;
  double gamma = 0.99;   ///< discount
  double lambda = 0.95;  ///< GAE's lambda
  double clip = 0.2;     ///< eps of the clipped ratio
  double entropy_coefficient = 0.0;
  /// Rewards are multiplied by it for GAE and the value MLP (the curve reports them unscaled).
  /// Choose it so that returns are of order 1: the value MLP then fits them to a useful
  /// relative accuracy (locomotion returns in metres may be 1e-3).
  double reward_scale = 1.0;
  double initial_log_std = 0.0;  ///< s of the initial policy (all outputs)
  /// Hidden sizes of the value MLP; empty: the policy's.
  std::vector<int> value_hidden;
  AdamOptions policy_adam{.learning_rate = 3e-4};
  AdamOptions value_adam{.learning_rate = 1e-3};
  /// Minibatch gradients longer than this (Euclidean norm) are scaled down to it; 0: never.
  double max_gradient_norm = 0.5;
  bool normalize_advantages = true;  ///< to zero mean and unit variance per iteration
  int evaluation_episodes = 1;       ///< deterministic episodes per iteration; 0: none
  std::uint64_t seed = 1;            ///< action noise, shuffling and the value MLP
  /// Asked before every iteration (empty: never): true ends the training there.
  std::function<bool()> stop;
};

/// One sample of an iteration's batch.
struct PpoSample {
  Eigen::VectorXd observation, action;
  double log_prob_old = 0.0;  ///< log pi_old(a | o) when it was sampled
  double advantage = 0.0;     ///< A (normalised if asked)
  double value_target = 0.0;  ///< R = A + V_old(o), before normalisation (scaled rewards)
};

/// Generalised advantage estimates of one episode: rewards r_0..r_{T-1}, values V(o_0) ..
/// V(o_{T-1}), and last_value = V(o_T) (0 after a terminal state).
/// @throws InputError if rewards and values differ in size.
Eigen::VectorXd gae(const Eigen::VectorXd& rewards, const Eigen::VectorXd& values,
                    double last_value, double gamma, double lambda);

/// The clipped surrogate L_pi of a minibatch; adds dL_pi/dtheta to *grad when grad is not null
/// (resized and zeroed if it is not policy.n_parameters() long). The gradient is that of the
/// branch min() takes (zero where the clipped branch is smaller), which is exact everywhere
/// except on the kinks rho = 1 +- eps.
double ppo_policy_loss(const GaussianPolicy& policy, std::span<const PpoSample> batch, double clip,
                       double entropy_coefficient, Eigen::VectorXd* grad);

/// L_V of a minibatch for a value MLP with one output; adds dL_V/dparams to *grad when grad is
/// not null (resized and zeroed if it is not value.n_parameters() long).
double ppo_value_loss(const Mlp& value, std::span<const PpoSample> batch, Eigen::VectorXd* grad);

/// Trains a GaussianPolicy whose mean starts as `initial_policy` on env; the result's
/// parameters are the mean MLP's. Each iteration collects episodes_per_iteration episodes,
/// then runs `epochs` passes of shuffled minibatch updates.
/// @throws InputError for invalid options or an initial_policy whose sizes do not match env.
TrainingResult train_ppo(Env& env, const Mlp& initial_policy, const PpoOptions& options,
                         const IterationCallback& on_iteration = {});
/// The same with each iteration's episodes side by side on a pool of environments (threads,
/// MPI processes). Episode e of iteration i samples its actions from its own seeded stream, so
/// the result does not depend on the pool's size.
TrainingResult train_ppo(EnvPool& envs, const Mlp& initial_policy, const PpoOptions& options,
                         const IterationCallback& on_iteration = {});

}  // namespace softgrad::rl
