#include "softgrad/rl/evolution_strategy.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "softgrad/errors.hpp"

namespace softgrad::rl {
namespace {

void check_options(const EsOptions& o) {
  const auto fail = [](const std::string& what) { throw InputError("ES: " + what); };
  if (o.iterations < 0) fail("iterations must be >= 0");
  if (o.population < 2 || o.population % 2 != 0)
    fail("population must be even and >= 2 (antithetic pairs), got " +
         std::to_string(o.population));
  if (!(o.sigma > 0.0) || !std::isfinite(o.sigma)) fail("sigma must be positive and finite");
  if (!(o.weight_decay >= 0.0) || !std::isfinite(o.weight_decay))
    fail("weight_decay must be finite and >= 0");
  if (o.episodes_per_candidate < 1) fail("episodes_per_candidate must be >= 1");
  if (o.evaluation_episodes < 0) fail("evaluation_episodes must be >= 0");
}

/// Centred ranks: the j-th smallest return gets j / (N - 1) - 1/2 (ties in index order).
Eigen::VectorXd centered_ranks(const Eigen::VectorXd& returns) {
  const int n = static_cast<int>(returns.size());
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return returns[a] < returns[b]; });
  Eigen::VectorXd u(n);
  for (int j = 0; j < n; ++j) u[order[j]] = static_cast<double>(j) / (n - 1) - 0.5;
  return u;
}

}  // namespace

TrainingResult train_es(Env& env, const Mlp& initial_policy, const EsOptions& options,
                        const IterationCallback& on_iteration) {
  check_options(options);
  check_policy(env, initial_policy, "ES");
  Mlp policy = initial_policy, candidate = initial_policy;
  Eigen::VectorXd theta = policy.parameters();
  const int n = policy.n_parameters(), pairs = options.population / 2;
  Adam adam(n, options.adam);
  std::mt19937_64 rng(options.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  TrainingResult result;
  // The deterministic policy's mean return, its steps counted apart from training.
  const auto evaluate = [&]() {
    const long before = env.simulated_steps();
    const double ret = episode_return(env, policy, options.evaluation_episodes);
    result.evaluation_steps += env.simulated_steps() - before;
    if (ret > result.best_return) {
      result.best_return = ret;
      result.best_parameters = theta;
    }
    return ret;
  };
  if (options.evaluation_episodes > 0) result.initial_return = evaluate();
  Eigen::MatrixXd eps(n, pairs);
  Eigen::VectorXd returns(options.population);
  for (int it = 0; it < options.iterations; ++it) {
    // Returns of the antithetic candidates theta + sigma eps_j (2j) and theta - sigma eps_j.
    const long before = env.simulated_steps();
    for (int j = 0; j < pairs; ++j) {
      for (int i = 0; i < n; ++i) eps(i, j) = normal(rng);
      for (int sign : {1, -1}) {
        candidate.set_parameters(theta + sign * options.sigma * eps.col(j));
        returns[2 * j + (sign < 0)] =
            episode_return(env, candidate, options.episodes_per_candidate);
      }
    }
    result.training_steps += env.simulated_steps() - before;
    CurvePoint point{result.training_steps, returns.mean()};
    if (options.evaluation_episodes == 0 && point.mean_return > result.best_return) {
      result.best_return = point.mean_return;
      result.best_parameters = theta;
    }
    // Rank-shaped ascent estimate; Adam descends on its negative plus the weight decay.
    const Eigen::VectorXd u = centered_ranks(returns);
    Eigen::VectorXd g = Eigen::VectorXd::Zero(n);
    for (int j = 0; j < pairs; ++j) g += (u[2 * j] - u[2 * j + 1]) * eps.col(j);
    g /= options.population * options.sigma;
    adam.step(theta, options.weight_decay * theta - g);
    policy.set_parameters(theta);
    if (options.evaluation_episodes > 0) point.policy_return = evaluate();
    result.curve.push_back(point);
    if (on_iteration) on_iteration(it, point);
  }
  result.final_parameters = theta;
  if (result.best_parameters.size() == 0) result.best_parameters = theta;
  return result;
}

}  // namespace softgrad::rl
