// Rigid (affine) bodies against closed forms: their place in the Model, free fall, momentum and
// angular momentum of a free body, and torque-free precession (Euler's equations).
#include <doctest/doctest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <numbers>

#include "softgrad/errors.hpp"
#include "softgrad/simulator.hpp"
#include "support/rigid_models.hpp"

using namespace softgrad;
using namespace softgrad::test;

TEST_CASE("rigid/rigid_body: four vertices with the masses m and S_i, at the shape's rest pose") {
  Model model;
  RigidBodySpec spec = box_spec("box", {0.4, 0.2, 0.1}, 500.0);
  spec.position = {1.0, 2.0, 3.0};
  spec.rotation = Eigen::AngleAxisd(0.3, Eigen::Vector3d(1, 2, 3).normalized()).toRotationMatrix();
  const int b = add_rigid_body(model, spec);
  const RigidBody& body = model.rigid_bodies[b];
  REQUIRE(model.n_verts == 4);
  CHECK(model.n_mesh_verts() == 0);
  const double m = 500.0 * 0.4 * 0.2 * 0.1;
  CHECK(body.mass == doctest::Approx(m).epsilon(1e-14));
  // Mass per dof: m at p, S_i = m a_i^2 / 12 at the axes; translational mass m at p only.
  const Eigen::Vector3d S = m / 12.0 * Eigen::Vector3d(0.16, 0.04, 0.01);
  CHECK(model.mass.segment<3>(0).isApproxToConstant(m, 1e-14));
  for (int j = 0; j < 3; ++j)
    CHECK(model.mass.segment<3>(3 + 3 * j).isApproxToConstant(S[j], 1e-14));
  CHECK(model.translational_mass().sum() == doctest::Approx(3 * m).epsilon(1e-14));
  // A body point lands where the shape was placed: corners at position + R X.
  const Eigen::Vector3d corner(0.2, -0.1, 0.05);
  CHECK((body.point(model.X, corner) - (spec.position + spec.rotation * corner)).norm() < 1e-14);
  CHECK((body.matrix(model.X) - spec.rotation).norm() < 1e-14);
  // The length scale is the world bounding box of the surface: the turned box's corners.
  Eigen::Vector3d lo = Eigen::Vector3d::Constant(1e9), hi = -lo;
  for (int k = 0; k < 8; ++k) {
    const Eigen::Vector3d c(k & 1 ? 0.2 : -0.2, k & 2 ? 0.1 : -0.1, k & 4 ? 0.05 : -0.05);
    lo = lo.cwiseMin(spec.position + spec.rotation * c);
    hi = hi.cwiseMax(spec.position + spec.rotation * c);
  }
  CHECK(model.length_scale() == doctest::Approx((hi - lo).norm()).epsilon(1e-12));
}

TEST_CASE("rigid/rigid_body: refused specs name the body and the problem") {
  Model model;
  RigidBodySpec spec = box_spec("bad", {0.4, 0.2, 0.1}, 500.0);
  spec.rotation(0, 0) = 2.0;
  CHECK_THROWS_WITH_AS(add_rigid_body(model, spec),
                       doctest::Contains("rigid body 'bad': the rotation is not a rotation"),
                       InputError);
  spec = box_spec("bad", {0.4, -0.2, 0.1}, 500.0);
  CHECK_THROWS_WITH_AS(add_rigid_body(model, spec), doctest::Contains("rigid body 'bad': "),
                       InputError);
  spec = box_spec("a", {0.4, 0.2, 0.1}, 500.0);
  add_rigid_body(model, spec);
  CHECK_THROWS_WITH_AS(add_rigid_body(model, spec), doctest::Contains("another rigid body"),
                       InputError);
  add_rigidity_term(model);
  spec.name = "late";
  CHECK_THROWS_WITH_AS(add_rigid_body(model, spec),
                       doctest::Contains("before the model's energy terms"), InputError);
}

TEST_CASE("rigid/rigid_body: free fall of a spinning body follows the point-mass recurrence") {
  auto model = single_body_model(box_spec("box", {0.3, 0.2, 0.1}, 1000.0), /*gravity=*/true);
  Simulator sim(model, rigid_options(0.01));
  State s = sim.rest_state();
  const Eigen::Vector3d v0(1.0, 2.0, -0.5), omega(3.0, -1.0, 2.0);
  set_rigid_velocity(*model, 0, v0, omega, s.x, s.v);
  Eigen::Vector3d p = model->rigid_bodies[0].position(s.x), v = v0;
  const Eigen::Vector3d g(0.0, -9.81, 0.0);
  for (int n = 0; n < 30; ++n) {
    REQUIRE(sim.step(s).converged());
    v += 0.01 * g;  // backward Euler of a point mass under a constant force
    p += 0.01 * v;
  }
  // The centre of mass obeys it exactly: gravity pulls p alone, the orthogonality energy is
  // translation-invariant.
  CHECK((model->rigid_bodies[0].position(s.x) - p).norm() < 1e-9);
  CHECK(orthogonality_error(*model, 0, s.x) < 1e-4);
}

TEST_CASE(
    "rigid/rigid_body: a free body keeps its momentum, and its angular momentum decays at O(dt)") {
  // Backward Euler conserves linear momentum exactly (translation invariance) and dissipates
  // angular momentum by -dt^2 sum v x f per step: first order in dt over a fixed time.
  auto model = single_body_model(box_spec("box", {0.3, 0.2, 0.1}, 1000.0), /*gravity=*/false);
  const Eigen::Vector3d v0(0.5, 0.0, -0.2), omega(4.0, 1.0, -2.0);
  double drift[2];
  for (int k = 0; k < 2; ++k) {
    const double dt = k == 0 ? 2e-3 : 1e-3;
    Simulator sim(model, rigid_options(dt));
    State s = sim.rest_state();
    set_rigid_velocity(*model, 0, v0, omega, s.x, s.v);
    const Eigen::Vector3d P0 = linear_momentum(*model, 0, s.v);
    const Eigen::Vector3d L0 = angular_momentum(*model, 0, s.x, s.v);
    const int steps = static_cast<int>(std::lround(0.5 / dt));
    for (int n = 0; n < steps; ++n) REQUIRE(sim.step(s).converged());
    CHECK((linear_momentum(*model, 0, s.v) - P0).norm() < 1e-10 * P0.norm());
    drift[k] = (angular_momentum(*model, 0, s.x, s.v) - L0).norm() / L0.norm();
    CHECK(orthogonality_error(*model, 0, s.x) < 1e-4);
  }
  MESSAGE("angular momentum drift over 0.5 s: " << drift[0] << " (dt 2e-3), " << drift[1]
                                                << " (dt 1e-3)");
  CHECK(drift[0] < 0.05);
  CHECK(drift[1] / drift[0] == doctest::Approx(0.5).epsilon(0.15));  // first order
}

TEST_CASE("rigid/rigid_body: torque-free precession of a symmetric body at Euler's rate") {
  // A square box (I_1 = I_2 != I_3) spinning about a tilted axis: in the body frame, omega's
  // component normal to the symmetry axis turns at Omega = omega_3 (I_3 - I_1) / I_1.
  auto model = single_body_model(box_spec("box", {0.2, 0.2, 0.05}, 1000.0), false);
  const RigidBody& body = model->rigid_bodies[0];
  const Eigen::Vector3d S = body.second_moments;
  const double I1 = S[1] + S[2], I3 = S[0] + S[1];
  const double w3 = 6.0, w1 = 0.6;
  const double rate = w3 * (I3 - I1) / I1;  // [rad/s], the body-frame precession
  const double dt = 5e-4;
  Simulator sim(model, rigid_options(dt));
  State s = sim.rest_state();
  set_rigid_velocity(*model, 0, Eigen::Vector3d::Zero(), Eigen::Vector3d(w1, 0.0, w3), s.x, s.v);
  // Track the body-frame angle of omega's normal part until it has turned a quarter turn.
  double angle = 0.0, previous = 0.0;
  int steps = 0;
  while (angle < std::numbers::pi / 2 && steps < 100000) {
    REQUIRE(sim.step(s).converged());
    ++steps;
    const Eigen::Vector3d w = body.matrix(s.x).transpose() * body.angular_velocity(s.x, s.v);
    const double a = std::atan2(w[1], w[0]);
    double da = a - previous;
    if (da > std::numbers::pi) da -= 2 * std::numbers::pi;
    if (da < -std::numbers::pi) da += 2 * std::numbers::pi;
    angle += std::abs(da);
    previous = a;
  }
  const double measured = angle / (steps * dt);
  MESSAGE("precession: " << measured << " rad/s measured, " << std::abs(rate) << " from Euler");
  CHECK(measured == doctest::Approx(std::abs(rate)).epsilon(0.02));
}
