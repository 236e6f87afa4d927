// Rigid scenes: "rigid_bodies", "joints", "motors", "attachments" and robot tasks, what they
// build, and their errors with JSON pointers.
#include <doctest/doctest.h>

#include <Eigen/Geometry>
#include <fstream>
#include <numbers>

#include "io/io_test_support.hpp"
#include "scene_test_support.hpp"
#include "softgrad/locomotion.hpp"
#include "softgrad/parameters.hpp"
#include "softgrad/shapes.hpp"
#include "softgrad/simulator.hpp"
#include "softgrad/trajectory.hpp"

using namespace softgrad;
using namespace softgrad::test;

namespace {

/// Two links on hinges (a double pendulum) plus `extra` top-level keys.
std::string robot_json(const std::string& extra = "") {
  return R"({"time": {"dt": 0.01, "duration": 0.1},
    "rigid_bodies": [
      {"name": "upper", "shape": {"type": "capsule", "radius": 0.03, "length": 0.3},
       "position": [0, 0.8, 0], "velocity": [1, 0, 0], "angular_velocity": [0, 0, 2]},
      {"name": "lower", "shape": {"type": "box", "size": [0.05, 0.3, 0.05]}, "density": 500,
       "position": [0, 0.45, 0], "rotation": {"axis": [0, 1, 0], "angle": 0.5}}],
    "joints": [
      {"name": "shoulder", "type": "hinge", "child": "upper", "anchor": [0, 1, 0]},
      {"name": "elbow", "type": "hinge", "parent": "upper", "child": "lower",
       "anchor": [0, 0.6, 0], "lower": -1, "upper": 1}],
    "motors": [{"name": "m", "joint": "elbow", "gain": 5, "damping": 0.1, "target": 0.2}])" +
         (extra.empty() ? "" : ", " + extra) + "}";
}

/// `text` with its first `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t k = text.find(from);
  REQUIRE(k != std::string::npos);
  return text.replace(k, from.size(), to);
}

}  // namespace

TEST_CASE("scenes/rigid_reader: rigid bodies, joints and motors build the model") {
  const Scene s = parse(robot_json());
  const Model& m = *s.model;
  REQUIRE(m.rigid_bodies.size() == 2);
  CHECK(m.n_verts == 8);
  CHECK(m.rigid_bodies[1].mass == doctest::Approx(500 * 0.05 * 0.3 * 0.05).epsilon(1e-12));
  // The box's pose: its corner lands where the rotation puts it.
  const Eigen::Matrix3d R = Eigen::AngleAxisd(0.5, Eigen::Vector3d::UnitY()).toRotationMatrix();
  const Eigen::Vector3d corner(0.025, 0.15, 0.025);
  CHECK((m.rigid_bodies[1].point(m.X, corner) - (Eigen::Vector3d(0, 0.45, 0) + R * corner)).norm() <
        1e-12);
  REQUIRE(m.joints.size() == 2);
  CHECK(m.joints[0].parent == -1);
  CHECK(m.joints[1].upper == 1.0);
  // Default stiffnesses: 1e4 m / dt^2 of the lighter body.
  const double lighter = std::min(m.rigid_bodies[0].mass, m.rigid_bodies[1].mass);
  CHECK(m.joints[1].stiffness == doctest::Approx(1e4 * lighter / 1e-4).epsilon(1e-12));
  // Terms, and the motor's targets as a parameter.
  for (const char* term : {"rigidity", "joints", "motors", "gravity"})
    CHECK_NOTHROW(m.find_term(term));
  CHECK(s.model->terms[m.find_term("motors")]->default_parameters()[3] == 0.2);
  // The initial velocity and spin of the upper link: p' and a_i' = omega x a_i.
  const RigidBody& upper = m.rigid_bodies[0];
  CHECK((s.initial_velocity.segment<3>(upper.dof(0)) - Eigen::Vector3d(1, 0, 0)).norm() < 1e-15);
  CHECK((upper.angular_velocity(m.X, s.initial_velocity) - Eigen::Vector3d(0, 0, 2)).norm() <
        1e-12);
}

TEST_CASE("scenes/rigid_reader: refused rigid keys name the pointer and the problem") {
  struct Case {
    std::string json, message;
  };
  const Case cases[] = {
      {scene_json(R"("dim": 2, "rigid_bodies": [{"shape": {"type": "sphere", "radius": 1}}])",
                  kRectangle),
       "inline.json: /rigid_bodies: rigid bodies need a 3D scene"},
      {replaced(robot_json(), "\"radius\": 0.03, ", ""),
       "inline.json: /rigid_bodies/0/shape/radius: missing key 'radius', required for type "
       "'capsule'"},
      {R"({"rigid_bodies": [{"shape": {"type": "box", "size": [1, 1, 1], "radius": 2}}]})",
       "inline.json: /rigid_bodies/0/shape/radius: 'radius' does not apply to type 'box'"},
      {R"({"rigid_bodies": [{"shape": {"type": "mesh", "file": "none.obj"}}]})",
       "inline.json: /rigid_bodies/0/shape/file: "},
      {R"({"rigid_bodies": [{"shape": {"type": "box", "size": [1, 1, 1]},
            "rotation": {"axis": [0, 0, 0], "angle": 1}}]})",
       "inline.json: /rigid_bodies/0/rotation/axis: the axis must be non-zero"},
      {R"({"rigid_bodies": [{"shape": {"type": "box", "size": [1, 1, 1]}, "motion": "fixed",
            "velocity": [1, 0, 0]}]})",
       "inline.json: /rigid_bodies/0/velocity: a kinematic body ('motion') moves as prescribed"},
      {R"({"rigid_bodies": [{"shape": {"type": "box", "size": [1, 1, 1]}, "start": 0.5}]})",
       "inline.json: /rigid_bodies/0/start: 'start' applies to a kinematic body (with 'motion')"},
      {R"({"rigid_bodies": [{"shape": {"type": "box", "size": [1, 1, 1]}, "motion": "fixed",
            "start": 0.5, "stop": 0.2}]})",
       "inline.json: /rigid_bodies/0/stop: the motion must stop after it starts"},
      {robot_json(R"("attachments": [{"rigid_body": "upper", "region": {"indices": [0]}}])"),
       "inline.json: /attachments/0/region/indices/0: vertex index 0 is out of range"},
      {R"({"joints": [{"type": "ball", "child": "a", "anchor": [0, 0, 0]}],
           "bodies": [)" +
           kBox + "]}",
       "inline.json: /joints: joints join rigid bodies; the scene has none"},
      {replaced(robot_json(), "\"child\": \"lower\"", "\"child\": \"lowr\""),
       "inline.json: /joints/1/child: no rigid body 'lowr'; the rigid bodies are: upper, lower"},
      {replaced(robot_json(), "\"joint\": \"elbow\"", "\"joint\": \"knee\""),
       "inline.json: /motors/0/joint: no joint 'knee'"},
      {replaced(robot_json(), "\"lower\": -1,", "\"lower\": 0.5,"),
       "inline.json: /joints/1: joint 'elbow': the limits [0.5, 1] must hold the rest position 0"},
      {robot_json(R"("task": {"type": "reach", "body": "upper"})"),
       "inline.json: /task/target: missing key 'target', required for reach"},
      {robot_json(R"("task": {"type": "balance", "joints": ["wrist"]})"),
       "inline.json: /task/joints: no joint 'wrist'"},
  };
  for (const Case& c : cases) {
    INFO(c.json);
    const std::string e = error_of(c.json);
    CHECK_MESSAGE(e.rfind(c.message, 0) == 0, e);
  }
}

TEST_CASE("scenes/rigid_reader: a robot task is a control problem with its episodes") {
  const Scene s = parse(robot_json(
      R"("controller": {"type": "mlp", "a_max": 1, "hidden": [4]},
         "task": {"type": "reach", "body": "lower", "point": [0, 0.3, 0], "target": [0.2, 0.4, 0],
                  "spread": [0.1, 0.1, 0], "episodes": 3})"));
  REQUIRE(s.locomotion);
  const Locomotion& loc = *s.locomotion;
  CHECK(loc.robot());
  CHECK(loc.creature.muscle_term == "motors");
  CHECK(loc.creature.n_muscles == 1);
  CHECK(loc.trained_parameters() == std::vector<std::string>{"controller"});
  const std::vector<TaskEpisode> episodes = loc.episodes();
  REQUIRE(episodes.size() == 3);
  for (const TaskEpisode& e : episodes) {
    CHECK((e.goal - Eigen::Vector3d(0.2, 0.4, 0)).cwiseAbs().maxCoeff() <= 0.1);
    CHECK(e.goal[2] == 0.0);
  }
  CHECK(episodes[0].goal != episodes[1].goal);
  // Each episode's controller observes its goal.
  Simulator sim(s.model, s.options);
  const Rollout r = loc.episode_rollout(s.rollout(sim), episodes[1]);
  CHECK(dynamic_cast<const MlpController&>(*r.controller).goal() == episodes[1].goal);
  // A throw trains the launch: rigid:<body>.velocity and .angular_velocity.
  const Scene t = parse(robot_json(R"("task": {"type": "throw", "body": "upper",
                                              "target": [1, 0, 0]})"));
  CHECK(t.locomotion->trained_parameters() ==
        std::vector<std::string>{"rigid:upper.velocity", "rigid:upper.angular_velocity"});
  Simulator ts(t.model, t.options);
  const Rollout tr = t.rollout(ts);
  CHECK_FALSE(tr.controller);
  const ParameterSet launch(ts, tr, t.locomotion->trained_parameters());
  CHECK(launch.get(ts, tr).isApprox((Eigen::VectorXd(6) << 1, 0, 0, 0, 0, 2).finished(), 1e-12));
}

TEST_CASE("scenes/rigid_reader: a mesh shape from a surface file has the solid's mass") {
  // A 0.2 x 0.4 x 0.6 m box as 12 triangles in an OBJ, scaled by 0.5 in the scene: the mass
  // and second moments of a 0.1 x 0.2 x 0.3 m box.
  test::TempDir dir;
  std::ofstream obj(dir.file("block.obj"));
  for (int k = 0; k < 8; ++k)
    obj << "v " << (k & 1 ? 0.1 : -0.1) << " " << (k & 2 ? 0.2 : -0.2) << " "
        << (k & 4 ? 0.3 : -0.3) << "\n";
  // Faces of the cube on corners 1..8 (bit 0: x, bit 1: y, bit 2: z), counter-clockwise outside.
  obj << "f 1 3 4 2\nf 5 6 8 7\nf 1 2 6 5\nf 3 7 8 4\nf 1 5 7 3\nf 2 4 8 6\n";
  obj.close();
  const Scene s = parse_scene(
      R"({"rigid_bodies": [{"shape": {"type": "mesh", "file": "block.obj", "scale": 0.5},
                            "density": 800, "position": [0, 1, 0]}]})",
      dir.file("scene.json"));
  const RigidBody& b = s.model->rigid_bodies.at(0);
  const double m = 800 * 0.1 * 0.2 * 0.3;
  CHECK(b.mass == doctest::Approx(m).epsilon(1e-12));
  CHECK((b.second_moments - m / 12 * Eigen::Vector3d(0.01, 0.04, 0.09)).norm() < 1e-12 * m);
  CHECK((b.position(s.model->X) - Eigen::Vector3d(0, 1, 0)).norm() < 1e-12);
  CHECK(b.contact_centers.size() == 8);  // its vertices meet the obstacles
}

TEST_CASE("scenes/rigid_reader: a mesh shape must be a closed surface that does not cross itself") {
  // Two cubes that overlap, and a cube without its top, were taken as they were: their volume
  // integrals (mass, inertia) are then wrong without a word.
  test::TempDir dir;
  const auto cube = [](std::ostream& os, double shift, int first, int faces) {
    for (int k = 0; k < 8; ++k)
      os << "v " << (k & 1 ? 1 : 0) + shift << " " << (k & 2 ? 1 : 0) + shift << " "
         << (k & 4 ? 1 : 0) + shift << "\n";
    const int f[6][4] = {{1, 3, 4, 2}, {5, 6, 8, 7}, {1, 2, 6, 5},
                         {3, 7, 8, 4}, {1, 5, 7, 3}, {2, 4, 8, 6}};
    for (int i = 0; i < faces; ++i)
      os << "f " << f[i][0] + first << " " << f[i][1] + first << " " << f[i][2] + first << " "
         << f[i][3] + first << "\n";
  };
  std::ofstream two(dir.file("two.obj"));
  cube(two, 0.0, 0, 6);
  cube(two, 0.5, 8, 6);
  two.close();
  std::ofstream open(dir.file("open.obj"));
  cube(open, 0.0, 0, 5);
  open.close();
  const auto error = [&](const std::string& file) {
    return test::input_error_of([&] {
      parse_scene(R"({"rigid_bodies": [{"shape": {"type": "mesh", "file": ")" + file + R"("}}]})",
                  dir.file("scene.json"));
    });
  };
  if (has_tetgen()) {  // (the crossing is TetGen's exact check)
    const std::string crossing = error("two.obj");
    CHECK(crossing.find("/rigid_bodies/0/shape/file: ") != std::string::npos);
    CHECK(crossing.find("the surface intersects itself") != std::string::npos);
  }
  CHECK(error("open.obj").find("the surface is not closed") != std::string::npos);
}

TEST_CASE("scenes/rigid_reader: cylinders and capsules are shapes of bodies and obstacles alike") {
  // A can stands on a post (an upright cylinder obstacle) beside a capsule rail, and rests there.
  const Scene s = parse(R"({"time": {"dt": 0.01, "duration": 0.5},
    "rigid_bodies": [{"name": "can", "shape": {"type": "cylinder", "radius": 0.1, "length": 0.3},
                      "density": 500, "position": [0, 0.4505, 0]}],
    "contact": {"obstacles": [
      {"type": "cylinder", "name": "post", "center": [0, 0, 0], "radius": 0.2, "length": 0.6},
      {"type": "capsule", "name": "rail", "center": [1, 0, 0], "radius": 0.05, "length": 1}]}})");
  const RigidBody& can = s.model->rigid_bodies.at(0);
  CHECK(std::string(can.shape->type()) == "cylinder");
  const double m = 500 * std::numbers::pi * 0.01 * 0.3;
  CHECK(can.mass == doctest::Approx(m).epsilon(1e-14));
  // Second moments m r^2 / 4 across and m L^2 / 12 along the axis (inertia m r^2 / 2 about it).
  CHECK((can.second_moments - Eigen::Vector3d(m * 0.01 / 4, m * 0.09 / 12, m * 0.01 / 4)).norm() <
        1e-14 * m);
  Simulator sim(s.model, s.options);
  const Trajectory traj = simulate(sim, s.rollout(sim));
  for (int n = 0; n <= s.steps; ++n) {
    const Eigen::Vector3d p = can.position(traj.state(n).x);
    INFO("step " << n << ": " << p.transpose());
    CHECK(p.y() > 0.45);  // never into the post's top face at y = 0.3
    CHECK(p.y() < 0.451);
    CHECK(std::hypot(p.x(), p.z()) < 1e-9);  // and straight down: the face pushes along y
  }
  const std::string cylinder_obstacle =
      R"({"type": "cylinder", "center": [0, 0, 0], "radius": 0.2, "length": 0.6})";
  CHECK(error_of(scene_json(R"("contact": {"obstacles": [)" +
                            replaced(cylinder_obstacle, ", \"length\": 0.6", "") + "]}")) ==
        "inline.json: /contact/obstacles/0/length: missing key 'length', required for type "
        "'cylinder'");
  CHECK(error_of(scene_json(R"("contact": {"obstacles": [{"type": "sphere", "center": [0, 5, 0],
                                 "radius": 1, "length": 2}]})")) ==
        "inline.json: /contact/obstacles/0/length: 'length' does not apply to type 'sphere'");
  CHECK(error_of(scene_json(R"("rigid_bodies": [{"shape": {"type": "cylinder", "radius": 1}}])")) ==
        "inline.json: /rigid_bodies/0/shape/length: missing key 'length', required for type "
        "'cylinder'");
}
