// Sensors against independent computations (a pendulum's hinge angle after a known rotation, a
// slider's travel, a spinning body's angular velocity), and their reverse mode against central
// differences of read() in x and v for every kind, on hinges and sliders to the world and
// between bodies.
#include <doctest/doctest.h>

#include <Eigen/Geometry>
#include <algorithm>

#include "softgrad/errors.hpp"
#include "softgrad/sensors.hpp"
#include "support/finite_difference.hpp"
#include "support/random.hpp"
#include "support/rigid_models.hpp"

using namespace softgrad;
using namespace softgrad::test;

namespace {

using Kind = Sensor::Kind;

const std::vector<Kind> kAllKinds = {
    Kind::JointPosition, Kind::JointVelocity,       Kind::BodyPosition, Kind::BodyVelocity,
    Kind::BodyAxes,      Kind::BodyAngularVelocity, Kind::BodyPoint};

JointSpec joint_spec(JointType type, int parent, int child, const Eigen::Vector3d& anchor,
                     const Eigen::Vector3d& axis, const Model& model) {
  JointSpec spec = hinge_spec("j" + std::to_string(model.joints.size()), parent, child, anchor,
                              axis.normalized(), model);
  spec.type = type;
  return spec;
}

/// Four bodies: a hinge from the world to b0, a hinge b0-b1 about a tilted axis, a slider
/// b1-b2 and a slider from the world to b3.
std::shared_ptr<Model> chain_model() {
  auto model = std::make_shared<Model>();
  const Eigen::Vector3d link(0.2, 0.04, 0.05);
  for (int b = 0; b < 3; ++b) {
    RigidBodySpec spec = box_spec("link" + std::to_string(b), link, 800.0);
    spec.position = {0.1 + 0.2 * b, 0.0, 0.0};
    add_rigid_body(*model, spec);
  }
  add_rigid_body(*model, sphere_spec("ball", 0.05, 1000.0, {0.0, 0.5, 0.0}));
  Model& m = *model;
  add_joint(m, joint_spec(JointType::Hinge, -1, 0, {0.0, 0.0, 0.0}, {0.0, 0.0, 1.0}, m));
  add_joint(m, joint_spec(JointType::Hinge, 0, 1, {0.2, 0.0, 0.0}, {0.0, 0.6, 0.8}, m));
  add_joint(m, joint_spec(JointType::Slider, 1, 2, {0.4, 0.0, 0.0}, {1.0, 0.2, 0.0}, m));
  add_joint(m, joint_spec(JointType::Slider, -1, 3, {0.0, 0.5, 0.0}, {0.3, 1.0, -0.2}, m));
  return model;
}

/// Rigidly moves body b by the rotation R about the world point c and a translation d.
void move_body(const Model& model, int b, const Eigen::Matrix3d& R, const Eigen::Vector3d& c,
               const Eigen::Vector3d& d, Eigen::VectorXd& x) {
  const RigidBody& body = model.rigid_bodies[b];
  x.segment<3>(body.dof(0)) = c + R * (body.position(x) - c) + d;
  for (int j = 0; j < 3; ++j)
    x.segment<3>(body.dof(3 + 3 * j)) = R * x.segment<3>(body.dof(3 + 3 * j));
}

Eigen::VectorXd read(const SensorSet& set, const State& s) {
  Eigen::VectorXd out(set.size());
  set.read(s, out.data());
  return out;
}

}  // namespace

TEST_CASE("rigid/sensors: a pendulum's hinge angle and rate after a known rotation") {
  const Eigen::Vector3d pivot(0.1, 1.0, -0.2), axis = Eigen::Vector3d(1.0, 2.0, 3.0).normalized();
  auto model = std::make_shared<Model>();
  RigidBodySpec rod = box_spec("rod", {0.3, 0.04, 0.04}, 800.0);
  rod.position = pivot + Eigen::Vector3d(0.15, -0.1, 0.0);
  add_rigid_body(*model, rod);
  add_joint(*model, joint_spec(JointType::Hinge, -1, 0, pivot, axis, *model));
  const SensorSet set(*model, {{Kind::JointPosition, 0}, {Kind::JointVelocity, 0}});
  for (const double theta : {0.0, 0.7, -2.5, 3.0}) {
    INFO("theta = " << theta);
    State s;
    s.x = model->X;
    s.v = Eigen::VectorXd::Zero(s.x.size());
    move_body(*model, 0, Eigen::AngleAxisd(theta, axis).toRotationMatrix(), pivot,
              Eigen::Vector3d::Zero(), s.x);
    // Turning about the hinge at 1.3 rad/s: q' = 1.3.
    const Eigen::Vector3d omega = 1.3 * axis;
    set_rigid_velocity(*model, 0, omega.cross(model->rigid_bodies[0].position(s.x) - pivot), omega,
                       s.x, s.v);
    const Eigen::VectorXd r = read(set, s);
    CHECK(r[0] == doctest::Approx(theta).epsilon(1e-12));
    CHECK(r[0] == doctest::Approx(joint_coordinate(*model, 0, s.x)).epsilon(1e-14));
    CHECK(r[1] == doctest::Approx(1.3).epsilon(1e-12));
  }
}

TEST_CASE("rigid/sensors: a slider reads its travel along the parent's axis, in any frame") {
  auto model = chain_model();
  const Model& m = *model;
  const SensorSet set(m, {{Kind::JointPosition, 2}, {Kind::JointPosition, 3}});
  State s;
  s.x = m.X;
  s.v = Eigen::VectorXd::Zero(s.x.size());
  const Eigen::Vector3d n2 = Eigen::Vector3d(1.0, 0.2, 0.0).normalized();
  const Eigen::Vector3d n3 = Eigen::Vector3d(0.3, 1.0, -0.2).normalized();
  move_body(m, 2, Eigen::Matrix3d::Identity(), Eigen::Vector3d::Zero(), 0.03 * n2, s.x);
  move_body(m, 3, Eigen::Matrix3d::Identity(), Eigen::Vector3d::Zero(), -0.07 * n3, s.x);
  Eigen::VectorXd r = read(set, s);
  CHECK(r[0] == doctest::Approx(0.03).epsilon(1e-12));
  CHECK(r[1] == doctest::Approx(-0.07).epsilon(1e-12));
  // Turning bodies 1 and 2 together leaves the slider between them where it was.
  const Eigen::Matrix3d R = random_rotation(3);
  for (int b : {1, 2}) move_body(m, b, R, {0.2, 0.0, 0.0}, {0.1, -0.3, 0.2}, s.x);
  r = read(set, s);
  CHECK(r[0] == doctest::Approx(0.03).epsilon(1e-12));
}

TEST_CASE("rigid/sensors: a spinning body's pose, velocity and angular velocity") {
  auto model = std::make_shared<Model>();
  RigidBodySpec box = box_spec("box", {0.3, 0.2, 0.1}, 500.0);
  box.rotation = random_rotation(3);
  box.position = {0.5, 0.2, -0.1};
  add_rigid_body(*model, box);
  const RigidBody& body = model->rigid_bodies[0];
  const Eigen::Vector3d corner = box.position + box.rotation * Eigen::Vector3d(0.15, 0.1, 0.05);
  const SensorSet set(*model, {{Kind::BodyPosition, 0},
                               {Kind::BodyVelocity, 0},
                               {Kind::BodyAxes, 0},
                               {Kind::BodyAngularVelocity, 0},
                               {Kind::BodyPoint, 0, corner}});
  CHECK(set.size() == 21);
  State s;
  s.x = model->X;
  s.v = Eigen::VectorXd::Zero(s.x.size());
  const Eigen::Matrix3d R = random_rotation(3);
  move_body(*model, 0, R, Eigen::Vector3d::Zero(), {0.0, 1.0, 0.0}, s.x);
  const Eigen::Vector3d velocity(0.4, -1.0, 2.0), omega(3.0, -5.0, 7.0);
  set_rigid_velocity(*model, 0, velocity, omega, s.x, s.v);
  const Eigen::VectorXd r = read(set, s);
  CHECK(close(r.segment<3>(0), body.position(s.x), 1e-15));
  CHECK(close(r.segment<3>(3), velocity, 1e-15));
  CHECK(close(r.segment<9>(6), s.x.segment<9>(body.dof(3)), 1e-15));
  CHECK(close(r.segment<3>(15), omega, 1e-12));
  // The corner moved with the body.
  CHECK(close(r.segment<3>(18), R * corner + Eigen::Vector3d(0.0, 1.0, 0.0), 1e-12));
  // Off a rotation, omega is still the skew part of A' A^T.
  s.x += 0.05 * random_matrix(s.x.size(), 1);
  s.v = random_matrix(s.x.size(), 1);
  CHECK(close(read(set, s).segment<3>(15), body.angular_velocity(s.x, s.v), 1e-14));
}

TEST_CASE("rigid/sensors: backprop of every kind equals central differences of read()") {
  auto model = chain_model();
  const Model& m = *model;
  State s;
  s.x = m.X + 0.01 * random_matrix(m.n_dofs(), 1);
  s.v = random_matrix(m.n_dofs(), 1);
  double worst_x = 0.0, worst_v = 0.0;
  for (const Kind kind : kAllKinds) {
    const bool joint = kind == Kind::JointPosition || kind == Kind::JointVelocity;
    for (int index = 0; index < 4; ++index) {
      const Sensor sensor{
          kind, index,
          m.X.segment<3>(3 * m.rigid_bodies[index].node) + Eigen::Vector3d(0.03, -0.02, 0.01)};
      INFO(to_string(m, sensor) << (joint
                                        ? " (" + std::string(to_string(m.joints[index].type)) +
                                              (m.joints[index].parent < 0 ? " to the world)" : ")")
                                        : std::string()));
      const SensorSet set(m, {sensor});
      const Eigen::VectorXd out_bar = random_matrix(set.size(), 1);
      Eigen::VectorXd xbar = Eigen::VectorXd::Zero(m.n_dofs()), vbar = xbar;
      set.backprop(s, out_bar.data(), xbar, vbar);
      const auto in_x = [&](const Eigen::VectorXd& x) {
        State t = s;
        t.x = x;
        return out_bar.dot(read(set, t));
      };
      const auto in_v = [&](const Eigen::VectorXd& v) {
        State t = s;
        t.v = v;
        return out_bar.dot(read(set, t));
      };
      // A slider to the world is linear in x: its rate does not depend on x.
      const bool world_slider =
          joint && m.joints[index].parent < 0 && m.joints[index].type == JointType::Slider;
      const bool uses_x =
          kind != Kind::BodyVelocity && !(kind == Kind::JointVelocity && world_slider);
      const bool uses_v = kind == Kind::JointVelocity || kind == Kind::BodyVelocity ||
                          kind == Kind::BodyAngularVelocity;
      CHECK((xbar.norm() > 0.0) == uses_x);
      CHECK((vbar.norm() > 0.0) == uses_v);
      const Eigen::VectorXd fd_x = fd_gradient(in_x, s.x), fd_v = fd_gradient(in_v, s.v);
      CHECK(close(xbar, fd_x, 1e-7, 1e-10));
      CHECK(close(vbar, fd_v, 1e-7, 1e-10));
      if (uses_x) worst_x = std::max(worst_x, (xbar - fd_x).norm() / fd_x.norm());
      if (uses_v) worst_v = std::max(worst_v, (vbar - fd_v).norm() / fd_v.norm());
    }
  }
  MESSAGE("worst relative difference to central differences: " << worst_x << " in x, " << worst_v
                                                               << " in v");
}

TEST_CASE("rigid/sensors: names, the default robot sensors and invalid sensors") {
  auto model = chain_model();
  Model& m = *model;
  CHECK(to_string(m, {Kind::JointPosition, 1}) == "q[j1]");
  CHECK(to_string(m, {Kind::JointVelocity, 2}) == "qdot[j2]");
  CHECK(to_string(m, {Kind::BodyPosition, 0}) == "p[link0]");
  CHECK(to_string(m, {Kind::BodyVelocity, 0}) == "pdot[link0]");
  CHECK(to_string(m, {Kind::BodyAxes, 3}) == "A[ball]");
  CHECK(to_string(m, {Kind::BodyAngularVelocity, 3}) == "omega[ball]");
  CHECK(to_string(m, {Kind::BodyPoint, 1, {0.5, 0.0, -0.25}}) == "point[link1](0.5, 0, -0.25)");

  const std::vector<Sensor> robot = default_robot_sensors(m);
  REQUIRE(robot.size() == 12);  // 4 positions, 4 velocities, then the root's 4
  CHECK(robot[0].kind == Kind::JointPosition);
  CHECK(robot[7].kind == Kind::JointVelocity);
  CHECK(robot[7].index == 3);
  CHECK(robot[8].kind == Kind::BodyPosition);
  CHECK(robot[9].kind == Kind::BodyAxes);
  CHECK(robot[10].kind == Kind::BodyVelocity);
  CHECK(robot[11].kind == Kind::BodyAngularVelocity);
  CHECK(robot[11].index == 1);  // body 0 hangs from the world: its joint says where it is
  CHECK(SensorSet(m, robot).size() == 4 + 4 + 3 + 9 + 3 + 3);

  CHECK_THROWS_WITH_AS(SensorSet(m, {{Kind::BodyPosition, 0}, {Kind::JointVelocity, 4}}),
                       "sensor 1 (joint velocity): joint 4 is not in the model (4 joints)",
                       InputError);
  CHECK_THROWS_WITH_AS(SensorSet(m, {{Kind::BodyAxes, -1}}),
                       "sensor 0 (body axes): rigid body -1 is not in the model (4 rigid bodies)",
                       InputError);
  CHECK_THROWS_WITH_AS(
      SensorSet(m, {{Kind::BodyPoint, 0, Eigen::Vector3d(0.0, std::nan(""), 0.0)}}),
      "sensor 0 (body point): the point is not finite", InputError);
  CHECK_THROWS_WITH_AS(to_string(m, {Kind::BodyPosition, 9}),
                       doctest::Contains("rigid body 9 is not in the model"), InputError);
  // A ball joint has no coordinate.
  add_joint(m, joint_spec(JointType::Ball, 2, 3, {0.6, 0.0, 0.0}, {0.0, 0.0, 1.0}, m));
  CHECK_THROWS_WITH_AS(SensorSet(m, {{Kind::JointPosition, 4}}),
                       "sensor 0 (joint position): joint 'j4' is a ball joint, which has no "
                       "coordinate (only hinges and sliders do)",
                       InputError);
  CHECK(default_robot_sensors(m).size() == 12);
}
