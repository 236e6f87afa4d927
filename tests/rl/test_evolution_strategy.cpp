// OpenAI-ES: learning a task with a known answer, its step counts, and its option checks.
#include <doctest/doctest.h>

#include "rl/toy_env.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/rl/evolution_strategy.hpp"

namespace softgrad::test {

TEST_CASE("rl/evolution_strategy: learns to reach the origin (the best return is |p_0|)") {
  ReachOrigin env(3);
  const Mlp initial({1, 16, 1}, 1);
  rl::EsOptions o;
  o.iterations = 40;
  o.population = 16;
  o.sigma = 0.1;
  o.adam.learning_rate = 0.05;
  o.episodes_per_candidate = 4;
  o.evaluation_episodes = 4;
  o.seed = 2;
  int calls = 0;
  const rl::TrainingResult result =
      rl::train_es(env, initial, o, [&](int it, const rl::CurvePoint&) { calls += it == calls; });
  CHECK(calls == 40);
  REQUIRE(result.curve.size() == 40);
  CHECK(result.training_steps == 40 * 16 * 4 * 20);
  CHECK(result.curve.front().steps == 16 * 4 * 20);
  CHECK(result.evaluation_steps == 41 * 4 * 20);
  ReachOrigin judge(0, judging_starts());
  const auto judged = [&](const Eigen::VectorXd& params) {
    Mlp policy = initial;
    policy.set_parameters(params);
    return rl::episode_return(judge, policy, 8) * 8.0;
  };
  const double before = judged(initial.parameters()), after = judged(result.best_parameters);
  MESSAGE("ES: sum of returns " << before << " -> " << after << " of 4.7");
  CHECK(before < 0.5 * 4.7);
  CHECK(after > 0.9 * 4.7);
}

TEST_CASE("rl/evolution_strategy: invalid options are input errors") {
  ReachOrigin env(1);
  const Mlp initial({1, 4, 1}, 1);
  rl::EsOptions o;
  o.population = 5;
  CHECK_THROWS_WITH_AS(rl::train_es(env, initial, o),
                       "ES: population must be even and >= 2 (antithetic pairs), got 5",
                       InputError);
  o.population = 4;
  o.sigma = 0.0;
  CHECK_THROWS_AS(rl::train_es(env, initial, o), InputError);
  CHECK_THROWS_AS(rl::train_es(env, Mlp({1, 4, 2}, 1), {}), InputError);
}

}  // namespace softgrad::test
