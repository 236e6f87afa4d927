// Rollouts are per-rollout data over a fixed Model: two of them with different parameters,
// controls and controllers, interleaved step by step on one Simulator, give exactly the states
// and gradients of running each alone, and both gradients match central differences.
#include <doctest/doctest.h>

#include "adjoint/gradient_check.hpp"
#include "softgrad/controller.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/muscles.hpp"

namespace softgrad::test {
namespace {

constexpr int kSteps = 12;

/// The 2D cantilever of gradient_check.hpp (tip forces per step, mass damping) with two muscles
/// along its top and bottom edges.
Problem cantilever_with_muscles() {
  Problem p = cantilever_problem(2, kSteps);
  Model& m = *p.model;
  std::vector<MuscleEdge> edges;
  for (int side = 0; side < 2; ++side) {
    std::vector<int> row = vertices_at(m, 1, side == 0 ? 0.0 : 0.1);
    std::sort(row.begin(), row.end(), [&](int a, int b) { return m.X[2 * a] < m.X[2 * b]; });
    for (size_t i = 0; i + 1 < row.size(); ++i) edges.push_back({row[i], row[i + 1], side});
  }
  add_muscle_edges(m, "muscles", edges, 2e3, 2, kSteps);
  p.sim = std::make_unique<Simulator>(p.model, p.sim->options());  // the pattern analysed anew
  p.rollout = rest_rollout(*p.sim, kSteps);
  return p;
}

const std::vector<std::string> kNames = {"youngs", "damping.alpha", "tip_force.force", "v0",
                                         "controller"};

/// Rollout `which` (0 or 1): its own Young's modulus, damping, tip forces, initial velocity and
/// gait.
Rollout make_rollout(const Problem& p, int which) {
  Rollout r = p.rollout;
  r.controller = std::make_shared<SineController>(2, p.sim->options().dt, 0.3, 3.0 + which);
  r.controlled_term = "muscles";
  const ParameterSet params(*p.sim, r, kNames);
  Eigen::VectorXd theta = params.get(*p.sim, r);
  for (int i = 0; i < params.size(); ++i) {
    const std::string label = params.label(i);
    const double wave = std::sin(0.9 * i + 2.0 * which);
    if (label == "youngs") theta[i] = which == 0 ? 4e4 : 7e4;
    if (label == "damping.alpha") theta[i] = which == 0 ? 0.3 : 1.2;
    if (label.starts_with("tip_force.force")) theta[i] = 0.08 * wave;
    if (label.starts_with("v0")) theta[i] = 0.05 * wave;
    if (label.starts_with("controller") && i + 1 < params.size())
      theta[i] = 0.6 * wave;  // A, phi, b
  }
  params.set(*p.sim, r, theta);
  return r;
}

}  // namespace

TEST_CASE(
    "integrator/rollout: interleaved rollouts of one Model equal separate runs, and their "
    "gradients match central differences") {
  Problem p = cantilever_with_muscles();
  const auto loss = mixed_loss(p);
  const Rollout rollouts[2] = {make_rollout(p, 0), make_rollout(p, 1)};
  const ParameterSet params(*p.sim, rollouts[0], kNames);

  // Interleaved: one step of each in turn, on one shared Simulator.
  RolloutRun a(*p.sim, rollouts[0]), b(*p.sim, rollouts[1]);
  while (!a.done() || !b.done()) {
    if (!a.done()) REQUIRE(a.step().converged());
    if (!b.done()) REQUIRE(b.step().converged());
  }
  const Trajectory interleaved[2] = {std::move(a).take(), std::move(b).take()};
  const GradientResult g[2] = {gradient(*p.sim, interleaved[0], *loss, params),
                               gradient(*p.sim, interleaved[1], *loss, params)};
  for (int k = 0; k < 2; ++k) {
    INFO("rollout " << k);
    // Alone, on a Simulator of its own: the same states and gradient, bit for bit.
    Simulator alone(p.model, p.sim->options());
    const Trajectory traj = simulate(alone, rollouts[k]);
    for (int n = 0; n <= kSteps; ++n) {
      CHECK(traj.state(n).x == interleaved[k].state(n).x);
      CHECK(traj.state(n).v == interleaved[k].state(n).v);
    }
    const GradientResult single = gradient(alone, traj, *loss, params);
    CHECK(single.loss == g[k].loss);
    CHECK(single.gradient == g[k].gradient);
    // The activations the controller wrote are the trajectory's, not the model's.
    const int muscles = p.model->find_term("muscles");
    CHECK(p.model->terms[muscles]->default_parameters().isZero());
    CHECK(!interleaved[k].parameters()[muscles].isZero());
  }
  // The two rollouts differ, and each gradient matches central differences along a direction.
  CHECK((interleaved[0].final_state().x - interleaved[1].final_state().x).norm() > 1e-4);
  for (int k = 0; k < 2; ++k) {
    INFO("rollout " << k);
    const Eigen::VectorXd theta = params.get(*p.sim, rollouts[k]);
    const Eigen::VectorXd d = scaled_direction(theta, 11 + k);
    const auto loss_at = [&](const Eigen::VectorXd& t) {
      Rollout r = rollouts[k];
      params.set(*p.sim, r, t);
      return evaluate_loss(*p.sim, simulate(*p.sim, r), *loss);
    };
    const double h = 1e-5;
    const double fd = (loss_at(theta + h * d) - loss_at(theta - h * d)) / (2 * h);
    CHECK(std::abs(fd) > 1e-8);
    CHECK(g[k].gradient.dot(d) == doctest::Approx(fd).epsilon(1e-6));
  }
}

TEST_CASE("integrator/rollout: a finished run refuses more steps, an unfinished one its result") {
  Problem p = cantilever_problem(2, 2);
  RolloutRun run(*p.sim, p.rollout);
  CHECK_THROWS_WITH_AS(std::move(run).take(), doctest::Contains("not finished"), InputError);
  run.step();
  run.step();
  CHECK(run.done());
  CHECK_THROWS_WITH_AS(run.step(), doctest::Contains("every step is taken"), InputError);
  CHECK(std::move(run).take().final_state().step == 2);
}

}  // namespace softgrad::test
