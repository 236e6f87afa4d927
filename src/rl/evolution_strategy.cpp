#include "softgrad/rl/evolution_strategy.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "softgrad/detail/rl/env_pool.hpp"
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
  EnvPool pool(env);
  return train_es(pool, initial_policy, options, on_iteration);
}

TrainingResult train_es(EnvPool& envs, const Mlp& initial_policy, const EsOptions& options,
                        const IterationCallback& on_iteration) {
  check_options(options);
  check_policy(envs, initial_policy, "ES");
  Eigen::VectorXd theta = initial_policy.parameters();
  const int n = initial_policy.n_parameters(), pairs = options.population / 2;
  Adam adam(n, options.adam);
  std::mt19937_64 rng(options.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  TrainingResult result;
  // Mean returns of policies (one task each), in parallel on the pool.
  const auto returns_of = [&](const std::vector<Eigen::VectorXd>& params, int episodes) {
    const std::vector<std::vector<double>> r =
        envs.map(static_cast<int>(params.size()), [&](Env& env, int k) {
          Mlp policy = initial_policy;
          policy.set_parameters(params[k]);
          return std::vector<double>{episode_return(env, policy, episodes)};
        });
    Eigen::VectorXd out(r.size());
    for (size_t k = 0; k < r.size(); ++k) out[k] = r[k][0];
    return out;
  };
  // The deterministic policy's mean return, its steps counted apart from training.
  const auto evaluate = [&]() {
    const long before = envs.simulated_steps();
    const double ret = returns_of({theta}, options.evaluation_episodes)[0];
    result.evaluation_steps += envs.simulated_steps() - before;
    if (ret > result.best_return) {
      result.best_return = ret;
      result.best_parameters = theta;
    }
    return ret;
  };
  if (options.evaluation_episodes > 0) result.initial_return = evaluate();
  Eigen::MatrixXd eps(n, pairs);
  std::vector<Eigen::VectorXd> candidates(options.population);
  for (int it = 0; it < options.iterations; ++it) {
    if (options.stop && options.stop()) break;
    // The antithetic candidates theta + sigma eps_j (2j) and theta - sigma eps_j (2j + 1).
    for (int j = 0; j < pairs; ++j) {
      for (int i = 0; i < n; ++i) eps(i, j) = normal(rng);
      candidates[2 * j] = theta + options.sigma * eps.col(j);
      candidates[2 * j + 1] = theta - options.sigma * eps.col(j);
    }
    const long before = envs.simulated_steps();
    const Eigen::VectorXd returns = returns_of(candidates, options.episodes_per_candidate);
    result.training_steps += envs.simulated_steps() - before;
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
    if (options.evaluation_episodes > 0) point.policy_return = evaluate();
    result.curve.push_back(point);
    if (on_iteration) on_iteration(it, point);
  }
  result.final_parameters = theta;
  if (result.best_parameters.size() == 0) result.best_parameters = theta;
  return result;
}

}  // namespace softgrad::rl
