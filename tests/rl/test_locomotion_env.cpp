// The locomotion env over the simulator: it reproduces simulate() with the equivalent
// MlpController, its reward telescopes to the centre-of-mass displacement, failed steps end
// episodes, bad input is rejected, and ES makes a soft block crawl.
#include <doctest/doctest.h>

#include <algorithm>

#include "contact/contact_scenes.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/muscles.hpp"
#include "softgrad/rl/evolution_strategy.hpp"
#include "softgrad/rl/locomotion_env.hpp"
#include "softgrad/rl/ppo.hpp"

namespace softgrad::test {
namespace {

/// A soft block (0.1 x 0.05 m, 10 kPa, 4 x 2 cells) 1 mm above a penalty ground with friction
/// 0.8; muscle 0 runs along the bottom and top edges of its rear (left) half, muscle 1 along
/// those of its front half (symmetric muscles would keep the centre of mass in place);
/// activations for 40 steps.
struct Crawler {
  std::shared_ptr<Model> model;
  std::unique_ptr<Simulator> sim;
  rl::LocomotionOptions options;
};

Crawler crawler(int newton_iterations = 100) {
  Crawler c;
  c.model = rectangle_model("neo_hookean", 1e4, 0.3, 1000.0, {4, 2}, {0.1, 0.05}, {0.0, 1e-3});
  Model& m = *c.model;
  add_gravity(m, Eigen::Vector2d(0.0, -9.81));
  ContactOptions contact;
  contact.model = ContactModel::Penalty;
  contact.stiffness = 1e5;
  contact.friction = 0.8;
  contact.obstacles = {ground()};
  add_contact(m, contact);
  std::vector<MuscleEdge> edges;
  for (double y : {1e-3, 0.051}) {
    std::vector<int> row = vertices_at(m, 1, y);  // 5 vertices, sorted by x below
    std::sort(row.begin(), row.end(), [&](int a, int b) { return m.X[2 * a] < m.X[2 * b]; });
    for (int i = 0; i < 4; ++i) edges.push_back({row[i], row[i + 1], i < 2 ? 0 : 1});
  }
  add_muscle_edges(m, "muscles", edges, 3e4, 2, 40);
  SimulationOptions so = contact_options(0.01, 1e-6);
  so.newton.max_iterations = newton_iterations;
  c.sim = std::make_unique<Simulator>(c.model, so);
  c.options.muscle_term = "muscles";
  c.options.n_muscles = 2;
  c.options.controller.hidden = {8};
  c.options.controller.a_max = 0.4;
  c.options.controller.delta = 0.3;
  c.options.controller.period = 0.2;
  c.options.controller.length_scale = 0.05;
  c.options.controller.velocity_scale = 0.1;
  return c;
}

/// Perturbed MLP parameters, so that the policy does something.
Eigen::VectorXd active_parameters(const MlpController& c) {
  Eigen::VectorXd psi = c.parameters();
  for (int i = 0; i < psi.size(); ++i) psi[i] += 0.8 * std::sin(1.3 * i + 0.2);
  return psi;
}

}  // namespace

TEST_CASE("rl/locomotion_env: an episode with y = MLP(o) is simulate() with the MlpController") {
  Crawler c = crawler();
  rl::LocomotionEnv env(*c.sim, rest_rollout(*c.sim, 30), c.options);
  const Eigen::VectorXd psi = active_parameters(env.controller());
  const std::shared_ptr<MlpController> controller = env.make_controller(psi);
  CHECK(env.observation_size() == controller->network().inputs());
  CHECK(env.action_size() == 2);
  // The env's episode, with the returned reward summed.
  Eigen::VectorXd o = env.reset();
  double total = 0.0;
  int steps = 0;
  for (bool done = false; !done; ++steps) {
    CHECK(o == controller->observe(env.state().step, env.state()));
    const rl::StepResult r = env.step(controller->network().forward(o));
    CHECK_FALSE(r.terminal);
    total += r.reward;
    done = r.done;
    o = r.observation;
  }
  CHECK(steps == 30);
  CHECK(env.simulated_steps() == 30);
  // The same rollout through simulate(), with the controller writing the activations.
  Rollout rollout = rest_rollout(*c.sim, 30);
  rollout.controller = controller;
  rollout.controlled_term = "muscles";
  const Trajectory traj = simulate(*c.sim, rollout);
  CHECK(traj.final_state().x == env.state().x);
  CHECK(traj.final_state().v == env.state().v);
  // The return is the centre of mass's displacement along x, and the policy moved the block.
  const CenterOfMassLoss com(*c.model, {}, {});
  const double dx = com.center(env.state().x)[0] - com.center(rollout.initial.x)[0];
  MESSAGE("centre of mass moved " << dx << " m");
  CHECK(total == doctest::Approx(dx).epsilon(1e-12));
  CHECK(std::abs(dx) > 1e-5);
}

TEST_CASE("rl/locomotion_env: a failed Newton step ends the episode with the penalty") {
  Crawler c = crawler(1);  // one Newton iteration cannot converge once the muscles pull
  c.options.failure_reward = -0.5;
  rl::LocomotionEnv env(*c.sim, rest_rollout(*c.sim, 10), c.options);
  env.reset();
  rl::StepResult r;
  int steps = 0;
  do {
    r = env.step(Eigen::Vector2d(5.0, -5.0));
    ++steps;
  } while (!r.done);
  CHECK(r.terminal);
  CHECK(r.reward == -0.5);
  CHECK_FALSE(env.last_report().converged());
  CHECK(env.state().step == steps - 1);  // the state stays before the failed step
  CHECK(env.simulated_steps() == steps);
  CHECK_THROWS_AS(env.step(Eigen::Vector2d::Zero()), InputError);
  env.reset();  // a new episode starts from the initial state
  CHECK(env.state().step == 0);
}

TEST_CASE("rl/locomotion_env: bad input is rejected with the reason") {
  Crawler c = crawler();
  rl::LocomotionEnv env(*c.sim, rest_rollout(*c.sim, 5), c.options);
  CHECK_THROWS_WITH_AS(env.step(Eigen::Vector2d::Zero()),
                       "locomotion env: step() needs reset() first (the episode is over)",
                       InputError);
  env.reset();
  CHECK_THROWS_AS(env.step(Eigen::Vector3d::Zero()), InputError);
  CHECK_THROWS_AS(env.step(Eigen::Vector2d(0.0, std::nan(""))), InputError);
  // 50 steps of 2 muscles need 100 activations; the term holds 40 steps.
  CHECK_THROWS_AS(rl::LocomotionEnv(*c.sim, rest_rollout(*c.sim, 50), c.options), InputError);
  rl::LocomotionOptions wrong = c.options;
  wrong.muscle_term = "legs";
  CHECK_THROWS_WITH_AS(rl::LocomotionEnv(*c.sim, rest_rollout(*c.sim, 5), wrong),
                       "controller 'mlp': no term named 'legs' to control", InputError);
}

TEST_CASE("rl/locomotion_env: ES makes the soft block crawl forward" *
          doctest::test_suite("slow")) {
  Crawler c = crawler();
  rl::LocomotionEnv env(*c.sim, rest_rollout(*c.sim, 30), c.options);
  rl::EsOptions o;
  o.iterations = 6;
  o.population = 8;
  o.sigma = 0.05;
  o.adam.learning_rate = 0.02;
  o.evaluation_episodes = 1;
  const rl::TrainingResult result = rl::train_es(env, env.controller().network(), o);
  MESSAGE("ES on the block: return " << result.initial_return << " -> " << result.best_return
                                     << " m in " << result.training_steps << " steps");
  CHECK(result.training_steps == 6 * 8 * 30);
  // From standing still to crawling at least 1% of its length (1 mm) in 0.3 s.
  CHECK(std::abs(result.initial_return) < 1e-3);
  CHECK(result.best_return > 1e-3);
  // The best parameters drive an MlpController in simulate() to the same displacement.
  Rollout rollout = rest_rollout(*c.sim, 30);
  rollout.controller = env.make_controller(result.best_parameters);
  rollout.controlled_term = "muscles";
  const Trajectory traj = simulate(*c.sim, rollout);
  const CenterOfMassLoss com(*c.model, {}, {});
  CHECK(com.center(traj.final_state().x)[0] - com.center(rollout.initial.x)[0] ==
        doctest::Approx(result.best_return).epsilon(1e-12));
}

TEST_CASE("rl/locomotion_env: PPO makes the soft block crawl forward" *
          doctest::test_suite("slow")) {
  Crawler c = crawler();
  rl::LocomotionEnv env(*c.sim, rest_rollout(*c.sim, 30), c.options);
  rl::PpoOptions o;
  o.iterations = 8;
  o.episodes_per_iteration = 4;
  o.minibatch_size = 30;
  o.policy_adam.learning_rate = 3e-3;
  o.value_adam.learning_rate = 3e-3;
  o.reward_scale = 100.0;  // returns of a few mm become O(0.1)
  const rl::TrainingResult result = rl::train_ppo(env, env.controller().network(), o);
  CHECK(result.curve.size() == 8);
  MESSAGE("PPO on the block: return " << result.initial_return << " -> " << result.best_return
                                      << " m in " << result.training_steps << " steps");
  CHECK(std::abs(result.initial_return) < 1e-3);
  CHECK(result.best_return > 1e-3);
}

}  // namespace softgrad::test
