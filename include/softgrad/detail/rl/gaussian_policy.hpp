/// @file gaussian_policy.hpp
/// PPO's stochastic policy: a diagonal Gaussian whose mean is an MLP (the architecture of
/// MlpController) and whose log standard deviations are state-independent parameters:
///
///   pi(a | o) = N(mu(o), diag(sigma^2)),  sigma_i = exp(s_i)
///   log pi(a | o) = sum_i [ -(a_i - mu_i(o))^2 / (2 sigma_i^2) - s_i - log(2 pi) / 2 ]
///   d log pi / d mu_i = (a_i - mu_i) / sigma_i^2,   d log pi / d s_i = (a_i - mu_i)^2 / sigma_i^2
///   - 1
///
/// The parameter vector theta is the MLP's (the vector MlpController::set_parameters takes)
/// followed by the m log standard deviations s.
#pragma once

#include <Eigen/Core>
#include <random>

#include "softgrad/mlp.hpp"

namespace softgrad::rl {

class GaussianPolicy {
 public:
  /// @throws InputError for a non-finite log_std.
  GaussianPolicy(Mlp mean, double log_std);

  int observation_size() const { return mean_.inputs(); }
  int action_size() const { return mean_.outputs(); }
  int n_parameters() const { return mean_.n_parameters() + action_size(); }
  /// theta = (MLP parameters, log standard deviations).
  Eigen::VectorXd parameters() const;
  /// @throws InputError for a wrong size or non-finite values.
  void set_parameters(const Eigen::VectorXd& theta);
  const Mlp& mean_network() const { return mean_; }
  const Eigen::VectorXd& log_std() const { return log_std_; }

  /// mu(o), the deterministic policy.
  Eigen::VectorXd mean(const Eigen::VectorXd& o) const { return mean_.forward(o); }
  /// a ~ pi(. | o).
  Eigen::VectorXd sample(const Eigen::VectorXd& o, std::mt19937_64& rng) const;
  /// log pi(a | o).
  double log_prob(const Eigen::VectorXd& o, const Eigen::VectorXd& a) const;
  /// Adds w d log pi(a | o) / d theta to grad (resized and zeroed if it is not n_parameters()
  /// long); returns log pi(a | o). Exact: the MLP part by Mlp::backward.
  double add_log_prob_gradient(const Eigen::VectorXd& o, const Eigen::VectorXd& a, double w,
                               Eigen::VectorXd& grad) const;
  /// The entropy sum_i s_i + m (1 + log 2 pi) / 2; its gradient is 1 in each s_i.
  double entropy() const;

 private:
  Mlp mean_;
  Eigen::VectorXd log_std_;
};

}  // namespace softgrad::rl
