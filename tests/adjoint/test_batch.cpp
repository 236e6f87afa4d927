// Batches of rollouts and gradients on threads equal the same rollouts run one by one, bit for
// bit, for any number of threads; a failing rollout is named.
#include <doctest/doctest.h>

#include "adjoint/gradient_check.hpp"
#include "softgrad/batch.hpp"
#include "softgrad/errors.hpp"
#include "solvers/cpu/amg_preconditioner.hpp"

namespace softgrad::test {

TEST_CASE("adjoint/batch: rollouts and gradients on threads equal serial runs bit for bit") {
  Problem p = cantilever_problem(2, 10);
  const auto loss = mixed_loss(p);
  const ParameterSet params(*p.sim, p.rollout, {"youngs", "tip_force.force", "v0"});
  // Five rollouts of one model: their own stiffness, tip forces and initial velocities.
  std::vector<Rollout> rollouts;
  for (int k = 0; k < 5; ++k) {
    Rollout r = p.rollout;
    Eigen::VectorXd theta = params.get(*p.sim, r);
    for (int i = 0; i < theta.size(); ++i) theta[i] += 0.02 * std::sin(1.3 * i + k);
    theta[0] = 3e4 + 1e4 * k;
    params.set(*p.sim, r, theta);
    rollouts.push_back(r);
  }
  std::vector<Trajectory> serial;
  std::vector<GradientResult> serial_gradients;
  for (const Rollout& r : rollouts) {
    serial.push_back(simulate(*p.sim, r));
    serial_gradients.push_back(gradient(*p.sim, serial.back(), *loss, params));
  }
  for (int threads : {1, 2, 3}) {
    INFO(threads << " threads");
    const std::vector<Trajectory> batch =
        simulate_batch(p.model, p.sim->options(), rollouts, {}, threads);
    REQUIRE(batch.size() == rollouts.size());
    for (size_t k = 0; k < batch.size(); ++k)
      for (int n = 0; n <= batch[k].steps(); ++n) {
        CHECK(batch[k].state(n).x == serial[k].state(n).x);
        CHECK(batch[k].state(n).v == serial[k].state(n).v);
      }
    const std::vector<GradientResult> g = gradient_batch(batch, *loss, params, {}, threads);
    for (size_t k = 0; k < g.size(); ++k) {
      CHECK(g[k].loss == serial_gradients[k].loss);
      CHECK(g[k].gradient == serial_gradients[k].gradient);
    }
  }
  // The rollouts differ from each other.
  CHECK((serial[0].final_state().x - serial[4].final_state().x).norm() > 1e-4);
}

TEST_CASE("adjoint/batch: each rollout's own loss and parameters equal serial gradients") {
  Problem p = cantilever_problem(2, 6);
  const ParameterSet params(*p.sim, p.rollout, {"youngs", "v0"});
  const Model& m = *p.model;
  std::vector<Rollout> rollouts(3, p.rollout);
  std::vector<std::shared_ptr<const Loss>> losses;
  for (int k = 0; k < 3; ++k) {
    rollouts[k].initial.v.setConstant(0.01 * k);
    // Rollout k's loss weighs the final positions by k + 1: a cotangent of its own.
    std::vector<Eigen::VectorXd> dx(p.rollout.steps + 1, Eigen::VectorXd::Zero(m.n_dofs()));
    dx.back().setConstant(k + 1.0);
    losses.push_back(std::make_shared<LinearLoss>(m, dx, std::vector<Eigen::VectorXd>{}));
  }
  std::vector<Trajectory> serial;
  for (const Rollout& r : rollouts) serial.push_back(simulate(*p.sim, r));
  RolloutBatch batch(p.model, p.sim->options(), 2);
  std::vector<const Trajectory*> t;
  std::vector<const Loss*> l;
  std::vector<const ParameterSet*> ps;
  for (int k = 0; k < 3; ++k) {
    t.push_back(&serial[k]);
    l.push_back(losses[k].get());
    ps.push_back(&params);
  }
  const std::vector<GradientResult> g = batch.gradient(t, l, ps);
  REQUIRE(g.size() == 3);
  for (int k = 0; k < 3; ++k) {
    const GradientResult one = gradient(*p.sim, serial[k], *losses[k], params);
    CHECK(g[k].loss == one.loss);
    CHECK(g[k].gradient == one.gradient);
  }
  CHECK((g[0].gradient - g[2].gradient).norm() > 1e-12);  // the losses differ
  l.pop_back();
  CHECK_THROWS_AS(batch.gradient(t, l, ps), InputError);
}

TEST_CASE("adjoint/batch: multigrid rollouts side by side equal serial runs bit for bit" *
          doctest::skip(!amg_available())) {
  // hypre is shared by the threads (they take turns inside it), and each step sets its own
  // hierarchy up, so neither the other rollouts nor what ran before change a result.
  Problem p = cantilever_problem(3, 6, "amg");
  const auto loss = mixed_loss(p);
  const ParameterSet params(*p.sim, p.rollout, {"youngs"});
  std::vector<Rollout> rollouts;
  for (int k = 0; k < 3; ++k) {
    Rollout r = p.rollout;
    params.set(*p.sim, r, Eigen::VectorXd::Constant(1, 3e4 + 2e4 * k));
    rollouts.push_back(r);
  }
  std::vector<Trajectory> serial;
  for (const Rollout& r : rollouts) serial.push_back(simulate(*p.sim, r));
  // Run again in reverse order on the same simulator: the same bits.
  for (int k = 2; k >= 0; --k) {
    const Trajectory again = simulate(*p.sim, rollouts[k]);
    CHECK(again.final_state().x == serial[k].final_state().x);
  }
  const std::vector<Trajectory> batch = simulate_batch(p.model, p.sim->options(), rollouts, {}, 2);
  REQUIRE(batch.size() == rollouts.size());
  for (size_t k = 0; k < batch.size(); ++k)
    for (int n = 0; n <= batch[k].steps(); ++n) CHECK(batch[k].state(n).x == serial[k].state(n).x);
  const std::vector<GradientResult> g = gradient_batch(batch, *loss, params, {}, 2);
  for (size_t k = 0; k < g.size(); ++k) {
    const GradientResult one = gradient(*p.sim, serial[k], *loss, params);
    CHECK(g[k].report.backend == "amg");
    CHECK(g[k].gradient == one.gradient);
  }
  CHECK((serial[0].final_state().x - serial[2].final_state().x).norm() > 1e-4);
}

TEST_CASE("adjoint/batch: the first failing rollout is named") {
  Problem p = cantilever_problem(2, 3);
  std::vector<Rollout> rollouts(3, p.rollout);
  rollouts[1].initial.v[0] = std::nan("");
  rollouts[2].steps = -1;
  CHECK_THROWS_WITH_AS(simulate_batch(p.model, p.sim->options(), rollouts, {}, 2),
                       doctest::Contains("rollout 1: rollout: the initial state contains NaN"),
                       InputError);
  const std::vector<Trajectory> two =
      simulate_batch(p.model, p.sim->options(), {p.rollout, p.rollout}, {}, 2);
  Problem other = cantilever_problem(2, 3);
  const std::vector<Trajectory> mixed = {two[0], simulate(*other.sim, other.rollout)};
  const ParameterSet params(*p.sim, p.rollout, {"youngs"});
  CHECK_THROWS_WITH_AS(gradient_batch(mixed, *mixed_loss(p), params),
                       doctest::Contains("trajectory 1 has another model"), InputError);
}

TEST_CASE("adjoint/batch: a batch kept across calls gives the same results each time") {
  Problem p = cantilever_problem(2, 6);
  const auto loss = mixed_loss(p);
  const ParameterSet params(*p.sim, p.rollout, {"youngs", "v0"});
  std::vector<Rollout> rollouts(4, p.rollout);
  for (int k = 0; k < 4; ++k) rollouts[k].initial.v *= 1.0 + 0.5 * k;
  RolloutBatch batch(p.model, p.sim->options(), 2);
  CHECK(batch.threads() == 2);
  const std::vector<Trajectory> first = batch.simulate(rollouts);
  const std::vector<GradientResult> first_gradients = batch.gradient(first, *loss, params);
  // A failing batch in between leaves the runner usable.
  std::vector<Rollout> bad = rollouts;
  bad[2].initial.x[1] = std::nan("");
  CHECK_THROWS_WITH_AS(batch.simulate(bad), doctest::Contains("rollout 2:"), InputError);
  const std::vector<Trajectory> second = batch.simulate(rollouts);
  const std::vector<GradientResult> second_gradients = batch.gradient(second, *loss, params);
  for (size_t k = 0; k < rollouts.size(); ++k) {
    CHECK(second[k].final_state().x == first[k].final_state().x);
    CHECK(second_gradients[k].gradient == first_gradients[k].gradient);
    CHECK(first[k].final_state().x == simulate(*p.sim, rollouts[k]).final_state().x);
  }
  CHECK((first[0].final_state().x - first[3].final_state().x).norm() > 1e-6);
  // Trajectories of another simulator's model are refused.
  Problem other = cantilever_problem(2, 6);
  CHECK_THROWS_WITH_AS(batch.gradient({simulate(*other.sim, other.rollout)}, *loss, params),
                       doctest::Contains("trajectory 0 has another model"), InputError);
}

}  // namespace softgrad::test
