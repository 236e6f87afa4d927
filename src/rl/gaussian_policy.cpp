#include "softgrad/detail/rl/gaussian_policy.hpp"

#include <cmath>
#include <numbers>
#include <string>

#include "softgrad/errors.hpp"

namespace softgrad::rl {
namespace {

const double kHalfLog2Pi = 0.5 * std::log(2.0 * std::numbers::pi);

void check_action(const Eigen::VectorXd& a, int m) {
  if (a.size() != m)
    throw InputError("Gaussian policy: expected an action of " + std::to_string(m) +
                     " values, got " + std::to_string(a.size()));
}

}  // namespace

GaussianPolicy::GaussianPolicy(Mlp mean, double log_std) : mean_(std::move(mean)) {
  if (!std::isfinite(log_std)) throw InputError("Gaussian policy: log_std must be finite");
  log_std_.setConstant(mean_.outputs(), log_std);
}

Eigen::VectorXd GaussianPolicy::parameters() const {
  Eigen::VectorXd theta(n_parameters());
  theta << mean_.parameters(), log_std_;
  return theta;
}

void GaussianPolicy::set_parameters(const Eigen::VectorXd& theta) {
  if (theta.size() != n_parameters())
    throw InputError("Gaussian policy: expected " + std::to_string(n_parameters()) +
                     " parameters, got " + std::to_string(theta.size()));
  if (!theta.allFinite()) throw InputError("Gaussian policy: parameters must be finite");
  mean_.set_parameters(theta.head(mean_.n_parameters()));
  log_std_ = theta.tail(action_size());
}

Eigen::VectorXd GaussianPolicy::sample(const Eigen::VectorXd& o, std::mt19937_64& rng) const {
  Eigen::VectorXd a = mean(o);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (int i = 0; i < a.size(); ++i) a[i] += std::exp(log_std_[i]) * normal(rng);
  return a;
}

double GaussianPolicy::log_prob(const Eigen::VectorXd& o, const Eigen::VectorXd& a) const {
  check_action(a, action_size());
  const Eigen::VectorXd mu = mean(o);
  double lp = 0.0;
  for (int i = 0; i < a.size(); ++i) {
    const double z = (a[i] - mu[i]) * std::exp(-log_std_[i]);
    lp += -0.5 * z * z - log_std_[i] - kHalfLog2Pi;
  }
  return lp;
}

double GaussianPolicy::add_log_prob_gradient(const Eigen::VectorXd& o, const Eigen::VectorXd& a,
                                             double w, Eigen::VectorXd& grad) const {
  check_action(a, action_size());
  if (grad.size() != n_parameters()) grad.setZero(n_parameters());
  const Eigen::VectorXd mu = mean(o);
  const int n_mean = mean_.n_parameters();
  // d log pi / d mu and d log pi / d s, per output.
  Eigen::VectorXd mu_bar(a.size());
  double lp = 0.0;
  for (int i = 0; i < a.size(); ++i) {
    const double inv_sigma = std::exp(-log_std_[i]);
    const double z = (a[i] - mu[i]) * inv_sigma;
    lp += -0.5 * z * z - log_std_[i] - kHalfLog2Pi;
    mu_bar[i] = w * z * inv_sigma;
    grad[n_mean + i] += w * (z * z - 1.0);
  }
  // Pull mu_bar back through the MLP into its parameters (the head of grad).
  Eigen::VectorXd mean_bar = grad.head(n_mean);
  mean_.backward(o, mu_bar, mean_bar);
  grad.head(n_mean) = mean_bar;
  return lp;
}

double GaussianPolicy::entropy() const {
  return log_std_.sum() + action_size() * (0.5 + kHalfLog2Pi);
}

}  // namespace softgrad::rl
