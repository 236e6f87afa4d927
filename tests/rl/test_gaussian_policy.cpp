// The Gaussian policy: its log-density against the textbook density, its exact gradient against
// central differences, and the moments of its samples.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

#include "softgrad/detail/rl/gaussian_policy.hpp"
#include "softgrad/errors.hpp"
#include "support/finite_difference.hpp"
#include "support/random.hpp"

namespace softgrad::test {
namespace {

rl::GaussianPolicy random_policy() {
  rl::GaussianPolicy policy(Mlp({4, 6, 5, 3}, 7, 1.0), -0.3);
  Eigen::VectorXd theta = policy.parameters();
  theta.tail(3) = random_matrix(3, 1, -0.8, 0.4);
  policy.set_parameters(theta);
  return policy;
}

}  // namespace

TEST_CASE("rl/gaussian_policy: log pi equals the log of the product of normal densities") {
  const rl::GaussianPolicy policy = random_policy();
  const Eigen::VectorXd o = random_matrix(4, 1), a = random_matrix(3, 1, -2.0, 2.0);
  const Eigen::VectorXd mu = policy.mean(o);
  double density = 1.0;
  for (int i = 0; i < 3; ++i) {
    const double sigma = std::exp(policy.log_std()[i]);
    density *= std::exp(-0.5 * std::pow((a[i] - mu[i]) / sigma, 2)) /
               (std::sqrt(2.0 * std::numbers::pi) * sigma);
  }
  CHECK(policy.log_prob(o, a) == doctest::Approx(std::log(density)).epsilon(1e-13));
  // Differential entropy of a diagonal Gaussian: sum_i log(sigma_i sqrt(2 pi e)).
  double entropy = 0.0;
  for (int i = 0; i < 3; ++i)
    entropy += std::log(std::exp(policy.log_std()[i]) *
                        std::sqrt(2.0 * std::numbers::pi * std::numbers::e));
  CHECK(policy.entropy() == doctest::Approx(entropy).epsilon(1e-13));
  CHECK_THROWS_AS(policy.log_prob(o, Eigen::VectorXd::Zero(2)), InputError);
}

TEST_CASE("rl/gaussian_policy: the log pi gradient matches central differences") {
  const rl::GaussianPolicy policy = random_policy();
  const Eigen::VectorXd o = random_matrix(4, 1), a = random_matrix(3, 1, -2.0, 2.0);
  const double w = 0.7;
  Eigen::VectorXd grad;
  const double lp = policy.add_log_prob_gradient(o, a, w, grad);
  CHECK(lp == doctest::Approx(policy.log_prob(o, a)).epsilon(1e-14));
  const auto f = [&](const Eigen::VectorXd& theta) {
    rl::GaussianPolicy other = policy;
    other.set_parameters(theta);
    return w * other.log_prob(o, a);
  };
  const Eigen::VectorXd fd = fd_gradient(f, policy.parameters());
  CHECK(grad.norm() > 0.1);
  CHECK(close(grad, fd, 1e-7, 1e-10));
  // It accumulates.
  policy.add_log_prob_gradient(o, a, w, grad);
  CHECK(close(grad, 2.0 * fd, 1e-7, 1e-10));
}

TEST_CASE("rl/gaussian_policy: samples have the policy's mean and standard deviations") {
  const rl::GaussianPolicy policy = random_policy();
  const Eigen::VectorXd o = random_matrix(4, 1);
  std::mt19937_64 rng(3);
  const int n = 20000;
  Eigen::VectorXd sum = Eigen::VectorXd::Zero(3), sq = Eigen::VectorXd::Zero(3);
  const Eigen::VectorXd mu = policy.mean(o);
  for (int k = 0; k < n; ++k) {
    const Eigen::VectorXd d = policy.sample(o, rng) - mu;
    sum += d;
    sq += d.cwiseAbs2();
  }
  // Four standard errors: sigma / sqrt(n) for the mean, sigma^2 sqrt(2 / n) for the variance.
  for (int i = 0; i < 3; ++i) {
    const double var = std::exp(2.0 * policy.log_std()[i]);
    CHECK(std::abs(sum[i] / n) < 4.0 * std::sqrt(var / n));
    CHECK(std::abs(sq[i] / n - var) < 4.0 * var * std::sqrt(2.0 / n));
  }
}

TEST_CASE("rl/gaussian_policy: parameters are the MLP's then the log standard deviations") {
  const Mlp mean({2, 3, 2}, 5);
  rl::GaussianPolicy policy(mean, -1.0);
  CHECK(policy.n_parameters() == mean.n_parameters() + 2);
  CHECK(policy.parameters().head(mean.n_parameters()) == mean.parameters());
  CHECK(policy.parameters().tail(2) == Eigen::Vector2d(-1.0, -1.0));
  CHECK_THROWS_AS(policy.set_parameters(Eigen::VectorXd::Zero(3)), InputError);
  CHECK_THROWS_AS(rl::GaussianPolicy(mean, std::nan("")), InputError);
}

}  // namespace softgrad::test
