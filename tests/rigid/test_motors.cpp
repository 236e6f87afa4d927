// Motors against closed forms: a force motor's constant angular acceleration, a position servo
// settling on its target (and off it by gravity's torque / kp), a velocity servo's speed over
// many turns, and a torque limit.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <numbers>

#include "softgrad/errors.hpp"
#include "softgrad/simulator.hpp"
#include "support/rigid_models.hpp"

using namespace softgrad;
using namespace softgrad::test;

namespace {

/// A wheel (a flat box) on a hinge about z through its centre, at the origin; I about the axis.
std::shared_ptr<Model> wheel(const MotorSpec& motor, int steps, double& I) {
  auto model = std::make_shared<Model>();
  add_rigid_body(*model, box_spec("wheel", {0.3, 0.2, 0.05}, 1000.0));
  add_joint(*model, hinge_spec("axle", -1, 0, Eigen::Vector3d::Zero(), {0.0, 0.0, 1.0}, *model));
  finish_rigid_model(*model, false);
  add_motors(*model, {motor}, steps);
  const Eigen::Vector3d S = model->rigid_bodies[0].second_moments;
  I = S[0] + S[1];
  return model;
}

MotorSpec motor(MotorMode mode, double gain, double damping, double target) {
  MotorSpec m;
  m.name = "m";
  m.joint = 0;
  m.mode = mode;
  m.gain = gain;
  m.damping = damping;
  m.target = target;
  return m;
}

}  // namespace

TEST_CASE("rigid/motors: a force motor turns a wheel at tau / I") {
  double I = 0.0;
  const double tau = 0.02, dt = 2e-3;
  auto model = wheel(motor(MotorMode::Force, 0.0, 0.0, tau), 100, I);
  Simulator sim(model, rigid_options(dt));
  State s = sim.rest_state();
  for (int n = 1; n <= 100; ++n) {
    REQUIRE(sim.step(s).converged());
    // Backward Euler under a constant torque: q_n = alpha dt^2 n (n + 1) / 2.
    const double expected = tau / I * dt * dt * n * (n + 1) / 2.0;
    if (n % 25 == 0)
      CHECK(joint_coordinate(*model, 0, s.x) == doctest::Approx(expected).epsilon(1e-6));
  }
}

TEST_CASE("rigid/motors: a position servo settles on its target") {
  double I = 0.0;
  auto model = wheel(motor(MotorMode::Position, 0.5, 0.2, 0.7), 1200, I);
  Simulator sim(model, rigid_options(5e-3));
  State s = sim.rest_state();
  for (int n = 0; n < 1200; ++n) REQUIRE(sim.step(s).converged());
  CHECK(joint_coordinate(*model, 0, s.x) == doctest::Approx(0.7).epsilon(1e-6));
}

TEST_CASE("rigid/motors: a position target a thousand turns away settles on the same angle") {
  double I = 0.0;
  const double turns = 1e3 * 2.0 * std::numbers::pi;
  auto model = wheel(motor(MotorMode::Position, 0.5, 0.2, 0.7 + turns), 1200, I);
  Simulator sim(model, rigid_options(5e-3));
  State s = sim.rest_state();
  for (int n = 0; n < 1200; ++n) REQUIRE(sim.step(s).converged());
  // 0.7 + 2 pi 1e3 is represented to ~1e-12 rad.
  CHECK(joint_coordinate(*model, 0, s.x) == doctest::Approx(0.7).epsilon(1e-6));
}

TEST_CASE("rigid/motors: a target of 1e300 rad ends every step, an infinite one is refused") {
  for (const double target : {1e300, -1e300}) {
    CAPTURE(target);
    double I = 0.0;
    auto model = wheel(motor(MotorMode::Position, 0.5, 0.2, target), 3, I);
    Simulator sim(model, rigid_options(5e-3));
    State s = sim.rest_state();
    // Before, wrapping the angle 2 pi at a time never ended; now each step returns, and the
    // state stays finite (1e300 is some angle within a turn) or the step says it failed.
    for (int n = 0; n < 3; ++n) {
      const bool converged = sim.step(s).converged();
      CHECK((!converged || std::isfinite(joint_coordinate(*model, 0, s.x))));
      if (!converged) break;
    }
  }
  double I = 0.0;
  CHECK_THROWS_AS(
      wheel(motor(MotorMode::Position, 0.5, 0.2, std::numeric_limits<double>::infinity()), 3, I),
      InputError);
}

TEST_CASE("rigid/motors: gravity pulls a servo-held arm off its target by its torque / kp") {
  const double l = 0.4, kp = 20.0;
  auto model = std::make_shared<Model>();
  RigidBodySpec rod = box_spec("arm", {l, 0.04, 0.04}, 1000.0);
  rod.position = {l / 2, 0.0, 0.0};
  add_rigid_body(*model, rod);
  add_joint(*model, hinge_spec("shoulder", -1, 0, Eigen::Vector3d::Zero(), {0, 0, 1}, *model));
  finish_rigid_model(*model, true);
  add_motors(*model, {motor(MotorMode::Position, kp, 1.0, 0.3)}, 600);
  Simulator sim(model, rigid_options(5e-3));
  State s = sim.rest_state();
  for (int n = 0; n < 600; ++n) REQUIRE(sim.step(s).converged());
  const double q = joint_coordinate(*model, 0, s.x);
  const double torque = model->rigid_bodies[0].mass * 9.81 * (l / 2) * std::cos(q);
  MESSAGE("arm at " << q << " rad for a target of 0.3");
  CHECK(0.3 - q == doctest::Approx(torque / kp).epsilon(1e-4));
}

TEST_CASE("rigid/motors: a velocity servo holds its speed through many turns") {
  // Backward Euler damps a free rotation at a rate of order omega^2 dt (its straight-line
  // predictions leave the rotations, and the orthogonality energy pulls them back), so the servo
  // settles a little below its target, by an error that halves with the step.
  const double omega = 12.0;
  double error[2];
  for (int k = 0; k < 2; ++k) {
    const double dt = k == 0 ? 2e-3 : 1e-3;
    const int steps = static_cast<int>(std::lround(1.5 / dt));  // almost 3 turns
    double I = 0.0;
    auto model = wheel(motor(MotorMode::Velocity, 2.0, 0.0, omega), steps, I);
    Simulator sim(model, rigid_options(dt));
    State s = sim.rest_state();
    for (int n = 0; n < steps; ++n) REQUIRE(sim.step(s).converged());
    error[k] = omega - model->rigid_bodies[0].angular_velocity(s.x, s.v).z();
  }
  MESSAGE("speed error " << error[0] << " rad/s (dt 2e-3), " << error[1] << " (dt 1e-3)");
  CHECK(error[0] > 0.0);
  CHECK(error[0] < 0.01 * omega);
  CHECK(error[1] / error[0] == doctest::Approx(0.5).epsilon(0.05));
}

TEST_CASE("rigid/motors: a torque limit caps the servo's acceleration") {
  double I = 0.0;
  MotorSpec m = motor(MotorMode::Position, 1e3, 0.0, 2.0);  // far from its target: saturated
  m.max_force = 0.01;
  const double dt = 1e-3;
  auto model = wheel(m, 100, I);
  Simulator sim(model, rigid_options(dt));
  State s = sim.rest_state();
  for (int n = 1; n <= 100; ++n) REQUIRE(sim.step(s).converged());
  // tau = tau_max tanh(K e / tau_max) = tau_max to 1e-12 here: q = (tau_max / I) t (t + dt) / 2.
  const double expected = m.max_force / I * dt * dt * 100 * 101 / 2.0;
  CHECK(joint_coordinate(*model, 0, s.x) == doctest::Approx(expected).epsilon(1e-6));
}

TEST_CASE("rigid/motors: refused motors name the motor and the problem") {
  auto model = std::make_shared<Model>();
  add_rigid_body(*model, box_spec("a", {0.1, 0.1, 0.1}, 1000.0));
  JointSpec ball = hinge_spec("ball", -1, 0, Eigen::Vector3d::Zero(), {0, 0, 1}, *model);
  ball.type = JointType::Ball;
  add_joint(*model, ball);
  add_rigidity_term(*model);
  CHECK_THROWS_WITH_AS(add_motors(*model, {motor(MotorMode::Position, 1.0, 0.0, 0.0)}, 10),
                       doctest::Contains("motor 'm': joint 'ball' is a ball joint"), InputError);
  auto hinged = std::make_shared<Model>();
  add_rigid_body(*hinged, box_spec("a", {0.1, 0.1, 0.1}, 1000.0));
  add_joint(*hinged, hinge_spec("h", -1, 0, Eigen::Vector3d::Zero(), {0, 0, 1}, *hinged));
  CHECK_THROWS_WITH_AS(add_motors(*hinged, {motor(MotorMode::Velocity, 0.0, 0.0, 0.0)}, 10),
                       doctest::Contains("motor 'm': gain must be positive"), InputError);
  MotorSpec bad = motor(MotorMode::Position, 1.0, 0.0, std::nan(""));
  CHECK_THROWS_WITH_AS(add_motors(*hinged, {bad}, 10),
                       doctest::Contains("motor 'm': the target must be finite"), InputError);
}
