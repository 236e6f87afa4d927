// Joints against closed forms: a simple and a physical pendulum's periods, a conical pendulum
// on a ball joint, a fixed pair falling as one body, a slider, and a hinge resting on its limit.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

#include "softgrad/errors.hpp"
#include "softgrad/simulator.hpp"
#include "support/rigid_models.hpp"

using namespace softgrad;
using namespace softgrad::test;

namespace {

/// Simulates until the coordinate of joint j has crossed zero upwards `cycles` + 1 times and
/// returns the mean period between the crossings [s].
double measured_period(Simulator& sim, State& s, int j, int cycles) {
  const Model& model = sim.model();
  double previous = joint_coordinate(model, j, s.x), first = -1.0, last = -1.0;
  int crossings = 0;
  for (int n = 0; n < 200000 && crossings <= cycles; ++n) {
    const double t0 = s.t;
    REQUIRE(sim.step(s).converged());
    const double q = joint_coordinate(model, j, s.x);
    if (previous < 0.0 && q >= 0.0) {
      const double t = t0 + (s.t - t0) * (-previous) / (q - previous);  // linear interpolation
      if (first < 0.0) first = t;
      last = t;
      ++crossings;
    }
    previous = q;
  }
  REQUIRE(crossings > cycles);
  return (last - first) / cycles;
}

/// Sets body b turning about the world point `pivot` at angular velocity omega.
void swing(const Model& model, int b, const Eigen::Vector3d& pivot, const Eigen::Vector3d& omega,
           State& s) {
  const Eigen::Vector3d p = model.rigid_bodies[b].position(s.x);
  set_rigid_velocity(model, b, omega.cross(p - pivot), omega, s.x, s.v);
}

}  // namespace

TEST_CASE("rigid/joints: a small sphere on a hinge swings with the period 2 pi sqrt(I / m g L)") {
  // A ball of radius r whose centre hangs L below the pivot: I = m (L^2 + 2 r^2 / 5).
  const double L = 0.8, r = 0.02;
  auto model = std::make_shared<Model>();
  add_rigid_body(*model, sphere_spec("bob", r, 7800.0, {0.0, 1.0 - L, 0.0}));
  add_joint(*model, hinge_spec("pivot", -1, 0, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}, *model));
  finish_rigid_model(*model, true);
  Simulator sim(model, rigid_options(1e-3));
  State s = sim.rest_state();
  swing(*model, 0, {0.0, 1.0, 0.0}, {0.0, 0.0, 0.05}, s);  // amplitude about 0.014 rad
  const double T = measured_period(sim, s, 0, 3);
  const double expected = 2 * std::numbers::pi * std::sqrt((L * L + 0.4 * r * r) / (kG * L));
  MESSAGE("pendulum period " << T << " s, expected " << expected << " s");
  CHECK(T == doctest::Approx(expected).epsilon(1e-3));
}

TEST_CASE("rigid/joints: a rod hinged at its end is a physical pendulum") {
  // A rod of length l hinged at one end: I_pivot = m l^2 / 3 (plus its thickness), d = l / 2.
  const double l = 0.5, w = 0.04;
  auto model = std::make_shared<Model>();
  RigidBodySpec rod = box_spec("rod", {w, l, w}, 2700.0);
  rod.position = {0.0, 1.0 - l / 2, 0.0};
  add_rigid_body(*model, rod);
  add_joint(*model, hinge_spec("pivot", -1, 0, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}, *model));
  finish_rigid_model(*model, true);
  Simulator sim(model, rigid_options(1e-3));
  State s = sim.rest_state();
  swing(*model, 0, {0.0, 1.0, 0.0}, {0.0, 0.0, 0.03}, s);
  const double m = model->rigid_bodies[0].mass;
  const double I = m * (l * l + w * w) / 12.0 + m * (l / 2) * (l / 2);
  const double expected = 2 * std::numbers::pi * std::sqrt(I / (m * kG * l / 2));
  const double T = measured_period(sim, s, 0, 3);
  MESSAGE("physical pendulum period " << T << " s, expected " << expected << " s");
  CHECK(T == doctest::Approx(expected).epsilon(1e-3));
}

TEST_CASE("rigid/joints: a conical pendulum on a ball joint keeps its cone") {
  // Circling at Omega = sqrt(g / (L cos alpha)), the bob keeps its angle alpha from the vertical.
  const double L = 0.6, alpha = 0.4, r = 0.02;
  const Eigen::Vector3d pivot(0.0, 1.0, 0.0);
  const Eigen::Vector3d bob = pivot + L * Eigen::Vector3d(std::sin(alpha), -std::cos(alpha), 0.0);
  auto model = std::make_shared<Model>();
  // The anchor lies 30 radii outside the ball: the orthogonality energy's hold on A at that
  // distance is kappa V / L^2, so a stiffer kappa keeps the bob's affine map rigid there.
  RigidBodySpec spec = sphere_spec("bob", r, 7800.0, bob);
  spec.rigidity = 1e11;
  add_rigid_body(*model, spec);
  JointSpec ball = hinge_spec("ball", -1, 0, pivot, {0.0, 0.0, 1.0}, *model);
  ball.type = JointType::Ball;
  add_joint(*model, ball);
  finish_rigid_model(*model, true);
  Simulator sim(model, rigid_options(5e-4));
  State s = sim.rest_state();
  // Point-mass cone speed, corrected for the ball's own spin inertia being small (r << L).
  const double Omega = std::sqrt(kG / (L * std::cos(alpha)));
  swing(*model, 0, pivot, {0.0, Omega, 0.0}, s);
  double worst = 0.0;
  for (int n = 0; n < 2000; ++n) {  // 1 s, about 0.7 revolutions
    REQUIRE(sim.step(s).converged());
    const Eigen::Vector3d d = model->rigid_bodies[0].position(s.x) - pivot;
    worst = std::max(worst, std::abs(std::acos(-d.y() / d.norm()) - alpha));
  }
  MESSAGE("largest change of the cone angle: " << worst << " rad");
  CHECK(worst < 0.01);
  const Eigen::Vector3d d = model->rigid_bodies[0].position(s.x) - pivot;
  CHECK(d.norm() == doctest::Approx(L).epsilon(1e-5));  // the joint holds the anchor
}

TEST_CASE("rigid/joints: two bodies on a fixed joint fall and spin as one") {
  auto model = std::make_shared<Model>();
  RigidBodySpec a = box_spec("a", {0.2, 0.1, 0.1}, 1000.0),
                b = box_spec("b", {0.1, 0.3, 0.1}, 500.0);
  a.position = {0.0, 1.0, 0.0};
  b.position = {0.15, 1.1, 0.0};
  add_rigid_body(*model, a);
  add_rigid_body(*model, b);
  JointSpec fixed = hinge_spec("weld", 0, 1, {0.1, 1.0, 0.0}, {1.0, 0.0, 0.0}, *model);
  fixed.type = JointType::Fixed;
  add_joint(*model, fixed);
  finish_rigid_model(*model, true);
  Simulator sim(model, rigid_options(2e-3));
  State s = sim.rest_state();
  const Eigen::Vector3d omega(1.0, 2.0, -1.5), v(0.3, 1.0, 0.0);
  // One rigid motion for both: each body's centre moves with v + omega x (p - c).
  const double ma = model->rigid_bodies[0].mass, mb = model->rigid_bodies[1].mass;
  const Eigen::Vector3d c =
      (ma * model->rigid_bodies[0].position(s.x) + mb * model->rigid_bodies[1].position(s.x)) /
      (ma + mb);
  for (int k = 0; k < 2; ++k) {
    const Eigen::Vector3d p = model->rigid_bodies[k].position(s.x);
    set_rigid_velocity(*model, k, v + omega.cross(p - c), omega, s.x, s.v);
  }
  const Eigen::Matrix3d R0 =
      model->rigid_bodies[0].matrix(s.x).transpose() * model->rigid_bodies[1].matrix(s.x);
  Eigen::Vector3d com = c, vel = v;
  for (int n = 0; n < 250; ++n) {
    REQUIRE(sim.step(s).converged());
    vel += 2e-3 * Eigen::Vector3d(0.0, -kG, 0.0);
    com += 2e-3 * vel;
  }
  const Eigen::Vector3d c1 =
      (ma * model->rigid_bodies[0].position(s.x) + mb * model->rigid_bodies[1].position(s.x)) /
      (ma + mb);
  CHECK((c1 - com).norm() < 1e-8);  // internal forces cancel: the pair's centre falls freely
  const Eigen::Matrix3d R1 =
      model->rigid_bodies[0].matrix(s.x).transpose() * model->rigid_bodies[1].matrix(s.x);
  CHECK((R1 - R0).norm() < 1e-3);  // the relative orientation held
}

TEST_CASE("rigid/joints: a slider allows one direction only") {
  // A block on a slider along x, pushed by gravity along a tilted axis: it accelerates at
  // g sin(angle) along the axis and stays on it.
  const double angle = 0.3;
  const Eigen::Vector3d axis(std::cos(angle), -std::sin(angle), 0.0);
  auto model = std::make_shared<Model>();
  RigidBodySpec block = box_spec("block", {0.1, 0.1, 0.1}, 1000.0);
  block.position = {0.0, 1.0, 0.0};
  add_rigid_body(*model, block);
  JointSpec slider = hinge_spec("rail", -1, 0, {0.0, 1.0, 0.0}, axis, *model);
  slider.type = JointType::Slider;
  add_joint(*model, slider);
  finish_rigid_model(*model, true);
  const double dt = 1e-3;
  Simulator sim(model, rigid_options(dt));
  State s = sim.rest_state();
  double q = 0.0, qd = 0.0;
  for (int n = 0; n < 300; ++n) {
    REQUIRE(sim.step(s).converged());
    qd += dt * kG * std::sin(angle);  // backward Euler of the one free coordinate
    q += dt * qd;
  }
  CHECK(joint_coordinate(*model, 0, s.x) == doctest::Approx(q).epsilon(1e-4));
  const Eigen::Vector3d p = model->rigid_bodies[0].position(s.x) - Eigen::Vector3d(0.0, 1.0, 0.0);
  CHECK((p - p.dot(axis) * axis).norm() < 1e-5);
  CHECK(orthogonality_error(*model, 0, s.x) < 1e-6);
}

TEST_CASE("rigid/joints: a hinge comes to rest on its limit where the limit balances gravity") {
  // A horizontal rod hinged at its end falls until its lower limit holds it; at rest the limit's
  // penalty k_l (q_lim - q) balances gravity's torque m g (l/2) cos q.
  const double l = 0.4, w = 0.04, lower = -0.5;
  auto model = std::make_shared<Model>();
  RigidBodySpec rod = box_spec("rod", {l, w, w}, 1000.0);
  rod.position = {l / 2, 1.0, 0.0};
  add_rigid_body(*model, rod);
  JointSpec hinge = hinge_spec("pivot", -1, 0, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}, *model);
  hinge.lower = lower;
  hinge.upper = 1.0;
  hinge.limit_stiffness = 200.0;
  add_joint(*model, hinge);
  finish_rigid_model(*model, true);
  add_damping(*model, 5.0, 0.0);
  Simulator sim(model, rigid_options(5e-3));
  State s = sim.rest_state();
  double lowest = 0.0;
  for (int n = 0; n < 1200; ++n) {
    REQUIRE(sim.step(s).converged());
    lowest = std::min(lowest, joint_coordinate(*model, 0, s.x));
  }
  const double q = joint_coordinate(*model, 0, s.x);
  const double m = model->rigid_bodies[0].mass;
  // Beyond its band the penalty's torque is exactly k_l (q_lim - q).
  const double expected = m * kG * (l / 2) * std::cos(q) / 200.0;
  MESSAGE("rest angle " << q << ", past the limit by " << lower - q << ", expected " << expected
                        << "; lowest " << lowest);
  CHECK(lower - q == doctest::Approx(expected).epsilon(0.01));
  CHECK(lowest > lower - 0.1);
}

TEST_CASE("rigid/joints: refused joints name the joint and the problem") {
  auto model = std::make_shared<Model>();
  add_rigid_body(*model, box_spec("a", {0.1, 0.1, 0.1}, 1000.0));
  JointSpec j = hinge_spec("j", -1, 0, {0.0, 0.0, 0.0}, {0.0, 0.0, 1.0}, *model);
  j.child = 3;
  CHECK_THROWS_WITH_AS(add_joint(*model, j), doctest::Contains("joint 'j': the child"), InputError);
  j.child = 0;
  j.axis.setZero();
  CHECK_THROWS_WITH_AS(add_joint(*model, j), doctest::Contains("joint 'j': the axis"), InputError);
  j.axis = {0.0, 0.0, 1.0};
  j.lower = 0.2;
  CHECK_THROWS_WITH_AS(add_joint(*model, j), doctest::Contains("lower < 0 < upper"), InputError);
  j.type = JointType::Ball;
  j.lower = -0.2;
  CHECK_THROWS_WITH_AS(add_joint(*model, j), doctest::Contains("no coordinate to limit"),
                       InputError);
}
