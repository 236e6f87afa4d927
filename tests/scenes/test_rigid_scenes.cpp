// The rigid-body showcase scenes run to their end (the quadruped a CI-sized 3 s), each with a
// check that its physics did what the scene says.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "softgrad/scene.hpp"

using namespace softgrad;

namespace {

Trajectory run(const std::string& name, int steps = -1) {
  const Scene scene =
      load_scene(std::filesystem::path(SOFTGRAD_SOURCE_DIR) / "scenes" / (name + ".json"));
  Simulator sim(scene.model, scene.options);
  Rollout r = scene.rollout(sim);
  if (steps > 0) r.steps = steps;
  Trajectory t = simulate(sim, r);
  CHECK(t.converged());
  CHECK(t.final_state().x.allFinite());
  return t;
}

const RigidBody& body(const Trajectory& t, const std::string& name) {
  const int b = find_rigid_body(*t.model(), name);
  REQUIRE(b >= 0);
  return t.model()->rigid_bodies[b];
}

double orthogonality(const RigidBody& b, const Eigen::VectorXd& x) {
  const Eigen::Matrix3d A = b.matrix(x);
  return (A.transpose() * A - Eigen::Matrix3d::Identity()).norm();
}

}  // namespace

TEST_CASE("scenes/rigid_scenes: the chain swings down and its links stay joined and rigid") {
  const Trajectory t = run("pendulum_chain");
  const Eigen::VectorXd& x = t.final_state().x;
  const Model& m = *t.model();
  for (const Joint& j : m.joints) {
    const Eigen::Vector3d a =
        j.parent < 0 ? j.anchor_parent : m.rigid_bodies[j.parent].point(x, j.anchor_parent);
    CHECK((a - m.rigid_bodies[j.child].point(x, j.anchor_child)).norm() < 1e-4);
  }
  for (const RigidBody& b : m.rigid_bodies) CHECK(orthogonality(b, x) < 1e-4);
  CHECK(body(t, "link3").position(x).y() < 0.8);  // it fell from y = 1
}

TEST_CASE("scenes/rigid_scenes: the thrown ball lands, rolls and stays above the ground") {
  const Trajectory t = run("ball_throw");
  const RigidBody& ball = body(t, "ball");
  double lowest = 1e9;
  for (int n = 0; n <= t.steps(); ++n) lowest = std::min(lowest, ball.position(t.state(n).x).y());
  CHECK(lowest > 0.1);    // the barrier: the centre never comes within a radius of the ground
  CHECK(lowest < 0.105);  // but within its activation distance (5 mm): it touched
  CHECK(ball.position(t.final_state().x).x() > 1.0);
}

TEST_CASE("scenes/rigid_scenes: the arm, the cart-pole and the quadruped run their episodes") {
  for (const std::pair<const char*, int>& c : {std::pair<const char*, int>{"arm_reach", -1},
                                               {"cart_pole", -1},
                                               {"quadruped_rigid", 300}}) {
    INFO(c.first);
    const Trajectory t = run(c.first, c.second);
    for (const RigidBody& b : t.model()->rigid_bodies)
      CHECK(orthogonality(b, t.final_state().x) < 1e-3);
  }
}

TEST_CASE("scenes/rigid_scenes: the sleeve follows its bone, and the paddle pushes the block") {
  const Trajectory bone = run("soft_on_bone");
  const Model& b = *bone.model();
  const RigidBody& rigid = body(bone, "bone");
  const Eigen::VectorXd& x = bone.final_state().x;
  CHECK(joint_coordinate(b, 0, x) > 0.5);  // the servo turned the bone
  double worst = 0.0;
  int bound = 0;
  for (int v = 0; v < b.n_mesh_verts(); ++v) {
    const Eigen::Vector3d X = b.X.segment<3>(3 * v);
    if (std::abs(X.x()) > 0.03 || std::abs(X.z()) > 0.03 || X.y() < 0.34 || X.y() > 0.66) continue;
    ++bound;  // an attached vertex: it stays on its bone point
    const Eigen::Vector3d on_bone = rigid.point(x, rigid.body_point(b.X, X));
    worst = std::max(worst, (x.segment<3>(3 * v) - on_bone).norm());
  }
  CHECK(bound > 0);
  CHECK(worst < 1e-3);
  const Trajectory push = run("paddle_push");
  const Model& m = *push.model();
  double x0 = 0.0, x1 = 0.0;
  for (int v = 0; v < m.n_mesh_verts(); ++v) {
    x0 += push.state(0).x[3 * v] / m.n_mesh_verts();
    x1 += push.final_state().x[3 * v] / m.n_mesh_verts();
  }
  MESSAGE("the block moved " << x1 - x0 << " m");
  CHECK(x1 - x0 > 0.05);  // the paddle moved 0.1 m, 0.03 m of it before touching
  CHECK(x1 - x0 < 0.1);
}
