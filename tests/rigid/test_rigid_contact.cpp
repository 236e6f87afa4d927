// Rigid bodies on obstacles against closed forms: a ball on a slope rolls without slipping
// (a = 5/7 g sin) when mu >= 2/7 tan, a cylinder on its side at 2/3 g sin, and a ball slides (a = g
// (sin - mu cos)) below that; a box rests on its face at the barrier's equilibrium height; a ball
// dropped on the ground bounces no higher than it fell.
#include <doctest/doctest.h>

#include <Eigen/Geometry>
#include <cmath>

#include "softgrad/contact.hpp"
#include "softgrad/shapes.hpp"
#include "softgrad/simulator.hpp"
#include "support/rigid_models.hpp"

using namespace softgrad;
using namespace softgrad::test;

namespace {

struct Slope {
  std::shared_ptr<Model> model;
  Eigen::Vector3d down;  ///< unit direction down the slope
};

/// A body that rolls on a circle of radius r about its z axis (a ball, or a cylinder lying on
/// its side) resting on a plane through the origin tilted by `angle` about z.
Slope on_slope(double angle, double mu, double r, RigidBodySpec body) {
  Slope s;
  s.model = std::make_shared<Model>();
  const Eigen::Vector3d n(-std::sin(angle), std::cos(angle), 0.0);
  s.down = Eigen::Vector3d(-std::cos(angle), -std::sin(angle), 0.0);
  body.position = (r + 2e-4) * n;
  add_rigid_body(*s.model, std::move(body));
  add_rigidity_term(*s.model);
  add_gravity(*s.model, Eigen::Vector3d(0.0, -kG, 0.0));
  ContactOptions o;
  o.model = ContactModel::Barrier;
  o.stiffness = 1e3;
  o.activation_distance = 1e-3;
  o.friction = mu;
  o.friction_velocity = 1e-3;
  o.obstacles = {std::make_shared<HalfSpace>("slope", Eigen::Vector3d::Zero(), n)};
  add_contact(*s.model, o);
  return s;
}

Slope ball_on_slope(double angle, double mu, double r) {
  return on_slope(angle, mu, r, sphere_spec("ball", r, 1000.0, Eigen::Vector3d::Zero()));
}

/// The acceleration along the slope over [t1, t2] from the displacement (s = a t^2 / 2 from
/// rest), and the ratio of the ball's spin to its speed times r (1 when rolling).
void roll(const Slope& slope, double r, double& a, double& spin_ratio) {
  const double dt = 1e-3;
  Simulator sim(slope.model, rigid_options(dt));
  State s = sim.rest_state();
  const RigidBody& ball = slope.model->rigid_bodies[0];
  const Eigen::Vector3d p0 = ball.position(s.x);
  // Settle onto the barrier's equilibrium first, then measure from the settled state.
  for (int n = 0; n < 100; ++n) REQUIRE(sim.step(s).converged());
  const double d1 = slope.down.dot(ball.position(s.x) - p0), t1 = s.t;
  for (int n = 0; n < 400; ++n) REQUIRE(sim.step(s).converged());
  const double d2 = slope.down.dot(ball.position(s.x) - p0), t2 = s.t;
  a = 2.0 * (d2 - d1) / (t2 * t2 - t1 * t1);
  const double speed = slope.down.dot(ball.position(s.x) - ball.position(s.x - dt * s.v)) / dt;
  spin_ratio = ball.angular_velocity(s.x, s.v).norm() * r / speed;
}

}  // namespace

TEST_CASE("rigid/contact: a ball on a slope rolls at 5/7 g sin when friction holds it") {
  const double angle = 0.3, r = 0.05;
  const double needed = 2.0 / 7.0 * std::tan(angle);  // 0.088
  double a = 0.0, spin = 0.0;
  roll(ball_on_slope(angle, 0.3, r), r, a, spin);
  MESSAGE("rolling: a = " << a << " m/s^2, 5/7 g sin = " << 5.0 / 7.0 * kG * std::sin(angle)
                          << "; omega r / v = " << spin << " (mu 0.3 > " << needed << ")");
  CHECK(a == doctest::Approx(5.0 / 7.0 * kG * std::sin(angle)).epsilon(0.01));
  CHECK(spin == doctest::Approx(1.0).epsilon(0.01));
}

TEST_CASE("rigid/contact: a cylinder on its side rolls down a slope at 2/3 g sin") {
  // I = m r^2 / 2 about its axis: a = g sin / (1 + I / (m r^2)) while mu >= tan / 3 (0.10).
  const double angle = 0.3, r = 0.05;
  RigidBodySpec cylinder = sphere_spec("cylinder", r, 1000.0, Eigen::Vector3d::Zero());
  cylinder.shape = std::make_shared<Cylinder>("", Eigen::Vector3d::Zero(), 0.2, r);
  cylinder.rotation = Eigen::AngleAxisd(0.5 * M_PI, Eigen::Vector3d::UnitX()).toRotationMatrix();
  double a = 0.0, spin = 0.0;
  roll(on_slope(angle, 0.3, r, cylinder), r, a, spin);
  MESSAGE("cylinder: a = " << a << " m/s^2, 2/3 g sin = " << 2.0 / 3.0 * kG * std::sin(angle)
                           << "; omega r / v = " << spin);
  CHECK(a == doctest::Approx(2.0 / 3.0 * kG * std::sin(angle)).epsilon(0.01));
  CHECK(spin == doctest::Approx(1.0).epsilon(0.01));
}

TEST_CASE("rigid/contact: below mu = 2/7 tan the ball slides at g (sin - mu cos)") {
  const double angle = 0.3, r = 0.05, mu = 0.05;
  double a = 0.0, spin = 0.0;
  roll(ball_on_slope(angle, mu, r), r, a, spin);
  const double expected = kG * (std::sin(angle) - mu * std::cos(angle));
  MESSAGE("sliding: a = " << a << " m/s^2, g (sin - mu cos) = " << expected
                          << "; omega r / v = " << spin);
  CHECK(a == doctest::Approx(expected).epsilon(0.01));
  CHECK(spin < 0.9);  // it spins up (torque mu N r) but slips
}

TEST_CASE("rigid/contact: a box rests on its face where the barrier carries its weight") {
  // Four corners share the weight: kappa b'(d) = -m g / 4 at each, the same d for all.
  auto model = std::make_shared<Model>();
  RigidBodySpec box = box_spec("box", {0.2, 0.1, 0.2}, 500.0);
  box.position = {0.0, 0.0505, 0.0};
  add_rigid_body(*model, box);
  add_rigidity_term(*model);
  add_gravity(*model, Eigen::Vector3d(0.0, -kG, 0.0));
  add_damping(*model, 20.0, 0.0);
  ContactOptions o;
  o.stiffness = 1e3;
  o.activation_distance = 1e-3;
  o.obstacles = {
      std::make_shared<HalfSpace>("ground", Eigen::Vector3d::Zero(), Eigen::Vector3d::UnitY())};
  add_contact(*model, o);
  Simulator sim(model, rigid_options(5e-3));
  State s = sim.rest_state();
  for (int n = 0; n < 400; ++n) REQUIRE(sim.step(s).converged());
  const double d = model->rigid_bodies[0].position(s.x).y() - 0.05;
  const double m = model->rigid_bodies[0].mass, dhat = 1e-3;
  const double force =
      -1e3 * (-2.0 * (d - dhat) * std::log(d / dhat) - (d - dhat) * (d - dhat) / d);
  MESSAGE("rest gap " << d << " m; barrier force per corner " << force
                      << " N, m g / 4 = " << m * kG / 4);
  CHECK(force == doctest::Approx(m * kG / 4).epsilon(1e-3));
  CHECK(orthogonality_error(*model, 0, s.x) < 1e-6);
}
