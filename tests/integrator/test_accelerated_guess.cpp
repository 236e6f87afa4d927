// The accelerated guess (NewtonOptions::accelerated_guess): Newton starts from
// x_n + h v_n + h^2 M^-1 f(x_n), where that lowers the incremental potential. It is exact for
// uniform acceleration, leaves the solution where the inertial guess leaves it, and is refused
// where the last acceleration would overshoot. After the first step M^-1 f(x_n) is the last
// step's acceleration, kept in the state (State::a).
#include <doctest/doctest.h>

#include "softgrad/errors.hpp"
#include "support/swinging_beam.hpp"
#include "support/tiny_models.hpp"

using namespace softgrad;
using namespace softgrad::test;

namespace {

SimulationOptions with_guess(bool accelerated, const std::string& linear = "cholmod") {
  SimulationOptions options;
  options.linear.kind = linear;
  options.newton.accelerated_guess = accelerated;
  return options;
}

}  // namespace

TEST_CASE("integrator/accelerated guess: in free fall the guess solves every step") {
  // A free body under gravity moves rigidly with acceleration g: backward Euler's step is
  // x + h v + h^2 g exactly, which is the guess (the elastic force vanishes at the rest shape).
  auto model = box_model("stable_neo_hookean", 1e5, 0.3, 1000.0, {3, 2, 2}, {0.3, 0.2, 0.2});
  const Eigen::Vector3d gravity(0.0, -9.81, 0.0);
  add_gravity(*model, gravity);
  for (const bool accelerated : {true, false}) {
    CAPTURE(accelerated);
    Simulator sim(model, with_guess(accelerated));
    State s = sim.rest_state();
    int iterations = 0;
    constexpr int kSteps = 5;
    for (int k = 0; k < kSteps; ++k) {
      const NewtonReport r = sim.step(s);
      REQUIRE_MESSAGE(r.converged(), r.message);
      iterations += r.iterations;
    }
    // Analytic: v_n = n h g, x_n = X + h^2 g n (n + 1) / 2.
    const double h = 0.01, n = kSteps;
    for (int v = 0; v < model->n_verts; ++v) {
      const Eigen::Vector3d expected_x =
          rest_position(*model, v) + h * h * gravity * n * (n + 1) / 2;
      CHECK((s.x.segment<3>(3 * v) - expected_x).lpNorm<Eigen::Infinity>() <= 1e-12);
      CHECK((s.v.segment<3>(3 * v) - n * h * gravity).lpNorm<Eigen::Infinity>() <= 1e-10);
    }
    // The guess is the solution: one Newton iteration per step finds a step below tolerance.
    // From x + h v the first step is h^2 g (1 mm), and a second iteration has to follow.
    if (accelerated) {
      CHECK(iterations == kSteps);
    } else {
      CHECK(iterations >= 2 * kSteps);
    }
  }
}

TEST_CASE("integrator/accelerated guess: the same solution as from x + h v, to the tolerance") {
  constexpr int kSteps = 8;
  const double step_tolerance = 1e-9 * swinging_beam_diagonal() * 0.01;
  SimulationOptions tight = with_guess(false);
  tight.newton.tolerance = 1e-13;
  const BeamSwing reference = swing_beam(tight, kSteps);
  for (const std::string linear : {"cholmod", "pcg"}) {
    CAPTURE(linear);
    const BeamSwing inertial = swing_beam(with_guess(false, linear), kSteps);
    const BeamSwing accelerated = swing_beam(with_guess(true, linear), kSteps);
    // Chord steps end within tol / (1 - chord_contraction) of each step's minimiser; the errors
    // of kSteps steps add.
    const double bound = kSteps * step_tolerance / (1.0 - 0.3);
    const double e_inertial = (inertial.x - reference.x).lpNorm<Eigen::Infinity>();
    const double e_accelerated = (accelerated.x - reference.x).lpNorm<Eigen::Infinity>();
    MESSAGE(linear << ": Newton iterations " << inertial.newton_iterations << " -> "
                   << accelerated.newton_iterations << ", errors " << e_inertial << ", "
                   << e_accelerated << " m (bound " << bound << " m)");
    CHECK(e_inertial <= bound);
    CHECK(e_accelerated <= bound);
    // The beam swings smoothly: the last acceleration predicts the next step well.
    CHECK(accelerated.newton_iterations < inertial.newton_iterations);
  }
}

TEST_CASE("integrator/accelerated guess: refused where the last acceleration overshoots") {
  // A stiff bar released from a stretched shape at rest: h^2 M^-1 f(x_0) is far longer than the
  // step (k h^2 / m >> 1, explicit Euler's instability), the guess raises the incremental
  // potential, and Newton starts from x + h v as it would without the option: the same bits.
  auto model = box_model("stable_neo_hookean", 1e9, 0.3, 1000.0, {4, 1, 1}, {0.4, 0.1, 0.1});
  fix_vertices(*model, vertices_at(*model, 0, 0.0), "clamp");
  Eigen::Matrix3d F = Eigen::Matrix3d::Identity();
  F(0, 0) = 1.01;
  State start;
  start.x = affine_positions(*model, F, Eigen::Vector3d::Zero());
  start.v = Eigen::VectorXd::Zero(model->n_dofs());
  State with = start, without = start;
  Simulator guessing(model, with_guess(true)), plain(model, with_guess(false));
  const NewtonReport a = guessing.step(with);
  const NewtonReport b = plain.step(without);
  REQUIRE(a.converged());
  REQUIRE(b.converged());
  CHECK(a.iterations == b.iterations);
  CHECK(with.x == without.x);
}

TEST_CASE("integrator/accelerated guess: the state's acceleration is M^-1 f at its positions") {
  // Backward Euler's equation of motion, M (v_{n+1} - v_n) / h = f(x_{n+1}): the acceleration a
  // step leaves in the state is the force at its end over the mass, which is what the next
  // step's guess needs (no gradient evaluated for it). A tight solve makes the residual small.
  auto model = box_model("stable_neo_hookean", 1e5, 0.3, 1000.0, {4, 1, 1}, {0.4, 0.1, 0.1});
  add_gravity(*model, Eigen::Vector3d(0.0, -9.81, 0.0));
  fix_vertices(*model, vertices_at(*model, 0, 0.0), "clamp");
  SimulationOptions options = with_guess(true);
  options.newton.tolerance = 1e-13;
  Simulator sim(model, options);
  State s = sim.rest_state();
  CHECK(s.a.size() == 0);  // nothing to extrapolate from yet
  std::vector<bool> free(model->n_dofs(), true);
  for (int d : model->kinematic_dofs()) free[d] = false;
  for (int k = 0; k < 4; ++k) {
    const Eigen::VectorXd v_before = s.v;
    REQUIRE(sim.step(s).converged());
    REQUIRE(s.a.size() == model->n_dofs());
    CHECK((s.a - (s.v - v_before) / 0.01).lpNorm<Eigen::Infinity>() <= 1e-9);
    const Eigen::VectorXd force = -potential_gradient(*model, s.x);
    double worst = 0.0, scale = 0.0;
    for (Eigen::Index i = 0; i < force.size(); ++i) {
      if (!free[i]) continue;
      worst = std::max(worst, std::abs(model->mass[i] * s.a[i] - force[i]));
      scale = std::max(scale, std::abs(force[i]));
    }
    CAPTURE(k);
    CHECK(worst <= 1e-6 * scale);
  }
  // A static solve ends at rest: no acceleration to extrapolate.
  sim.solve_static(s);
  CHECK(s.a.size() == 0);
}

TEST_CASE("integrator/accelerated guess: a rollout's initial acceleration is checked") {
  auto model = box_model("stable_neo_hookean", 1e5, 0.3, 1000.0, {2, 1, 1}, {0.2, 0.1, 0.1});
  Simulator sim(model, with_guess(true));
  Rollout r = rest_rollout(sim, 2);
  r.initial.a = Eigen::VectorXd::Zero(5);
  CHECK_THROWS_WITH_AS(simulate(sim, r), doctest::Contains("5 accelerations"), InputError);
  r.initial.a = Eigen::VectorXd::Zero(model->n_dofs());
  r.initial.a[0] = std::nan("");
  CHECK_THROWS_WITH_AS(simulate(sim, r), doctest::Contains("NaN"), InputError);
  r.initial.a[0] = 0.0;  // at rest with no force: the guess is the start, and so is the solution
  const Trajectory t = simulate(sim, r);
  CHECK(t.final_state().x == model->X);
}
