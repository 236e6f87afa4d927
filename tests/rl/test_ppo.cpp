// PPO: GAE against a hand computation, the clipped surrogate's and value loss's gradients
// against central differences, and learning a task with a known answer.
#include <doctest/doctest.h>

#include <cmath>

#include "rl/toy_env.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/rl/ppo.hpp"
#include "support/finite_difference.hpp"
#include "support/random.hpp"

namespace softgrad::test {

TEST_CASE("rl/ppo: GAE matches a hand computation, and its lambda = 0 and 1 limits") {
  const Eigen::Vector3d r(1.0, 0.0, 2.0), v(0.5, 1.0, 1.5);
  // gamma = 0.9, lambda = 0.8, V(o_3) = 2:
  //   delta = (1 + 0.9 * 1 - 0.5, 0 + 0.9 * 1.5 - 1, 2 + 0.9 * 2 - 1.5) = (1.4, 0.35, 2.3)
  //   A_2 = 2.3, A_1 = 0.35 + 0.72 * 2.3 = 2.006, A_0 = 1.4 + 0.72 * 2.006 = 2.84432
  CHECK(close(rl::gae(r, v, 2.0, 0.9, 0.8), Eigen::Vector3d(2.84432, 2.006, 2.3), 1e-14));
  // lambda = 0: the one-step TD errors.
  CHECK(close(rl::gae(r, v, 2.0, 0.9, 0.0), Eigen::Vector3d(1.4, 0.35, 2.3), 1e-14));
  // lambda = 1: discounted returns-to-go (bootstrapped) minus values: G = (4.078, 3.42, 3.8).
  CHECK(close(rl::gae(r, v, 2.0, 0.9, 1.0), Eigen::Vector3d(3.578, 2.42, 2.3), 1e-14));
  // After a terminal state the last value is 0: A_2 = 2 - 1.5.
  CHECK(rl::gae(r, v, 0.0, 0.9, 0.8)[2] == doctest::Approx(0.5));
  CHECK_THROWS_AS(rl::gae(r, Eigen::Vector2d(1.0, 2.0), 0.0, 0.9, 0.8), InputError);
}

TEST_CASE("rl/ppo: the clipped surrogate and value gradients match central differences") {
  rl::GaussianPolicy policy(Mlp({3, 5, 2}, 11, 1.0), -0.2);
  rl::GaussianPolicy old = policy;
  // The old policy is a perturbed one, so that the ratios spread over both clip kinks.
  old.set_parameters(policy.parameters() + 0.3 * random_matrix(policy.n_parameters(), 1));
  std::mt19937_64 rng(5);
  std::vector<rl::PpoSample> batch(24);
  int clipped = 0;
  for (rl::PpoSample& s : batch) {
    s.observation = random_matrix(3, 1);
    s.action = old.sample(s.observation, rng);
    s.log_prob_old = old.log_prob(s.observation, s.action);
    s.advantage = uniform(-1.0, 1.0);
    s.value_target = uniform(-1.0, 1.0);
    const double rho = std::exp(policy.log_prob(s.observation, s.action) - s.log_prob_old);
    clipped += (s.advantage > 0 && rho > 1.2) || (s.advantage < 0 && rho < 0.8);
  }
  INFO("clipped samples: " << clipped);
  CHECK(clipped >= 3);
  CHECK(clipped <= 21);
  Eigen::VectorXd grad;
  const double loss = rl::ppo_policy_loss(policy, batch, 0.2, 0.01, &grad);
  const auto f = [&](const Eigen::VectorXd& theta) {
    rl::GaussianPolicy other = policy;
    other.set_parameters(theta);
    return rl::ppo_policy_loss(other, batch, 0.2, 0.01, nullptr);
  };
  CHECK(loss == doctest::Approx(f(policy.parameters())).epsilon(1e-15));
  CHECK(grad.norm() > 0.01);
  CHECK(close(grad, fd_gradient(f, policy.parameters()), 1e-7, 1e-10));
  // The value loss 1/(2B) sum (V(o) - R)^2.
  const Mlp value({3, 4, 1}, 2, 1.0);
  Eigen::VectorXd vgrad;
  rl::ppo_value_loss(value, batch, &vgrad);
  const auto fv = [&](const Eigen::VectorXd& phi) {
    Mlp other = value;
    other.set_parameters(phi);
    return rl::ppo_value_loss(other, batch, nullptr);
  };
  CHECK(vgrad.norm() > 0.01);
  CHECK(close(vgrad, fd_gradient(fv, value.parameters()), 1e-7, 1e-10));
}

TEST_CASE("rl/ppo: learns to reach the origin (the best return is |p_0|)") {
  ReachOrigin env(3);
  const Mlp initial({1, 16, 1}, 1);
  rl::PpoOptions o;
  o.iterations = 30;
  o.episodes_per_iteration = 8;
  o.minibatch_size = 40;
  o.policy_adam.learning_rate = 3e-3;
  o.value_adam.learning_rate = 3e-3;
  o.evaluation_episodes = 4;
  o.seed = 2;
  const rl::TrainingResult result = rl::train_ppo(env, initial, o);
  REQUIRE(result.curve.size() == 30);
  // Steps: 8 training episodes of 20 steps per iteration; evaluations counted apart.
  CHECK(result.curve.back().steps == 30 * 8 * 20);
  CHECK(result.training_steps == 30 * 8 * 20);
  CHECK(result.evaluation_steps == 31 * 4 * 20);
  CHECK(env.simulated_steps() == result.training_steps + result.evaluation_steps);
  // Judged on fixed starts: the best return is sum |p_0| = 4.7.
  ReachOrigin judge(0, judging_starts());
  const auto judged = [&](const Eigen::VectorXd& params) {
    Mlp policy = initial;
    policy.set_parameters(params);
    return rl::episode_return(judge, policy, 8) * 8.0;
  };
  const double before = judged(initial.parameters()), after = judged(result.best_parameters);
  MESSAGE("PPO: sum of returns " << before << " -> " << after << " of 4.7");
  CHECK(before < 0.5 * 4.7);
  CHECK(after > 0.9 * 4.7);
}

TEST_CASE("rl/ppo: invalid options are input errors") {
  ReachOrigin env(1);
  const Mlp initial({1, 4, 1}, 1);
  rl::PpoOptions o;
  o.clip = 0.0;
  CHECK_THROWS_WITH_AS(rl::train_ppo(env, initial, o), "PPO: clip must lie in (0, 1)", InputError);
  o.clip = 0.2;
  o.reward_scale = -1.0;
  CHECK_THROWS_WITH_AS(rl::train_ppo(env, initial, o),
                       "PPO: reward_scale must be positive and finite", InputError);
  CHECK_THROWS_AS(rl::train_ppo(env, Mlp({2, 4, 1}, 1), {}), InputError);
}

}  // namespace softgrad::test
