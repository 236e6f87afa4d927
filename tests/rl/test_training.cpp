// Shared pieces of the RL baselines: deterministic episodes and steps-to-threshold.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "rl/toy_env.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/rl/training.hpp"

namespace softgrad::test {

TEST_CASE("rl/training: episode_return runs the deterministic policy to the end") {
  // A linear MLP a = -10 p: from 0.5, five steps of 0.1 tanh(5), ... towards 0.
  Mlp policy({1, 1}, 1);
  policy.set_parameters(Eigen::Vector2d(-10.0, 0.0));
  ReachOrigin env(1, {0.5, -0.25});
  double p = 0.5;
  for (int n = 0; n < ReachOrigin::kSteps; ++n) p += 0.1 * std::tanh(-10.0 * p);
  const double first = 0.5 - std::abs(p);
  CHECK(rl::episode_return(env, policy) == doctest::Approx(first).epsilon(1e-12));
  CHECK(env.simulated_steps() == ReachOrigin::kSteps);
  // Two more episodes (from -0.25, then 0.5): the mean of their returns.
  p = -0.25;
  for (int n = 0; n < ReachOrigin::kSteps; ++n) p += 0.1 * std::tanh(-10.0 * p);
  const double second = 0.25 - std::abs(p);
  CHECK(rl::episode_return(env, policy, 2) == doctest::Approx(0.5 * (first + second)));
  CHECK(env.simulated_steps() == 3 * ReachOrigin::kSteps);
  CHECK_THROWS_AS(rl::episode_return(env, Mlp({2, 1}, 1)), InputError);
  CHECK_THROWS_AS(rl::episode_return(env, policy, 0), InputError);
}

TEST_CASE("rl/training: steps_to_reach finds the first point at the threshold") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<rl::CurvePoint> training_only = {
      {100, 0.1, nan}, {200, 0.5, nan}, {300, 0.4, nan}, {400, 0.9, nan}};
  CHECK(rl::steps_to_reach(training_only, 0.45) == 200);
  CHECK(rl::steps_to_reach(training_only, 0.9) == 400);
  CHECK(rl::steps_to_reach(training_only, 1.0) == -1);
  // The deterministic policy's return takes precedence when it was evaluated.
  const std::vector<rl::CurvePoint> evaluated = {{100, 0.9, 0.2}, {200, 0.1, 0.6}};
  CHECK(rl::steps_to_reach(evaluated, 0.5) == 200);
}

}  // namespace softgrad::test
