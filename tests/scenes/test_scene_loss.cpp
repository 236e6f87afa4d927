// The /loss section: each term type, times on steps, reference files, and every error with its
// location.
#include <doctest/doctest.h>

#include "io/io_test_support.hpp"
#include "scenes/scene_test_support.hpp"

using namespace softgrad;
using test::error_of;
using test::scene_json;

namespace {

// The kBox scene (12 vertices, 100 steps of 10 ms) with a "loss" list.
std::string with_loss(const std::string& entries) {
  return scene_json("\"loss\": [" + entries + "]");
}

// The scene's loss at state n of its rollout, for positions x (and velocities v, default 0).
double loss_at(const Scene& scene, int n, const Eigen::VectorXd& x,
               const Eigen::VectorXd& v = Eigen::VectorXd()) {
  REQUIRE(scene.loss);
  State s;
  s.x = x;
  s.v = v.size() ? v : Eigen::VectorXd::Zero(x.size());
  return scene.loss->evaluate(n, scene.steps, s, nullptr, nullptr);
}

// The vertices of kBox at x = 2 (its far face): 2, 5, 8, 11.
const char* kFarFace = R"({"plane": {"point": [2, 0, 0], "normal": [1, 0, 0]}})";

}  // namespace

TEST_CASE("scenes/scene_loss: no loss key, no loss") {
  const Scene scene = test::parse(scene_json());
  CHECK_FALSE(scene.loss);
  CHECK(scene.loss_min_steps == 0);
  CHECK(scene.parameters.empty());
  CHECK_FALSE(test::parse(with_loss("")).loss);
}

TEST_CASE("scenes/scene_loss: a position term moves each selected vertex to its target") {
  // Offsets: every far-face vertex 0.1 m down of its rest position, at the final state.
  const Scene offset =
      test::parse(with_loss(std::string(R"({"type": "position", "region": )") + kFarFace +
                            R"(, "offset": [0, -0.1, 0], "weight": 3})"));
  const Eigen::VectorXd X = offset.model->X;
  CHECK(loss_at(offset, 100, X) == doctest::Approx(4 * 0.5 * 3 * 0.01));
  CHECK(loss_at(offset, 99, X) == 0.0);
  CHECK(offset.loss_min_steps == 0);
  Eigen::VectorXd moved = X;
  for (int v : {2, 5, 8, 11}) moved[3 * v + 1] -= 0.1;
  CHECK(loss_at(offset, 100, moved) == doctest::Approx(0.0).epsilon(1e-12));

  // One vertex to a point, at t = 0.5 s (step 50).
  const Scene target = test::parse(
      with_loss(R"({"type": "position", "vertex": 0, "time": 0.5, "target": [1, 2, 2]})"));
  CHECK(loss_at(target, 50, X) == doctest::Approx(0.5 * 9));
  CHECK(loss_at(target, 100, X) == 0.0);
  CHECK(target.loss_min_steps == 50);
  // "final" is the default.
  CHECK(loss_at(test::parse(with_loss(
                    R"({"type": "position", "vertex": 0, "time": "final", "target": [1, 0, 0]})")),
                100, X) == doctest::Approx(0.5));
}

TEST_CASE("scenes/scene_loss: a center_of_mass term on its position and velocity") {
  const Scene scene = test::parse(with_loss(
      R"({"type": "center_of_mass", "time": 0.2, "position": [1, 0.5, 0.5], "velocity": [0, 1, 0],
          "weight": 2},
         {"type": "center_of_mass", "region": )" +
      std::string(kFarFace) + R"(, "position": [2, 0, 0.5]})"));
  const Eigen::VectorXd X = scene.model->X;
  // The box's centre is (1, 0.5, 0.5); the far face's (2, 0.5, 0.5).
  // At rest only the velocity misses its target, by 1 m/s.
  CHECK(loss_at(scene, 20, X) == doctest::Approx(0.5 * 2 * 1.0));
  Eigen::VectorXd v = Eigen::VectorXd::Zero(X.size());
  for (int i = 0; i < scene.model->n_verts; ++i) v[3 * i + 1] = 1.0;
  CHECK(loss_at(scene, 20, X, v) == doctest::Approx(0.0));
  // The far face's centre is mass-weighted (lumped masses differ between its vertices).
  const Model& m = *scene.model;
  double mass = 0.0;
  Eigen::Vector3d c = Eigen::Vector3d::Zero();
  for (int k : {2, 5, 8, 11}) {
    mass += m.mass[3 * k];
    c += m.mass[3 * k] * X.segment<3>(3 * k);
  }
  c /= mass;
  CHECK(loss_at(scene, 100, X) ==
        doctest::Approx(0.5 * (c - Eigen::Vector3d(2, 0, 0.5)).squaredNorm()));
  CHECK(scene.loss_min_steps == 20);
}

TEST_CASE("scenes/scene_loss: a trajectory term reads a reference file beside the scene") {
  test::TempDir dir;
  const std::string json = with_loss(R"({"type": "trajectory", "file": "ref.csv", "weight": 2})");
  // Every listed state lists the same vertices (a TrajectoryLoss), by step.
  test::write_text(dir.file("ref.csv"),
                   "# recorded\nstep, vertex, x, y, z\n3,0,0,0,1\n3,1,1,0,0\n\n5,1,1,0,0\n"
                   "5,0,0,0,0\n");
  const Scene scene = parse_scene(json, dir.file("scene.json"));
  const Eigen::VectorXd X = scene.model->X;
  CHECK(loss_at(scene, 3, X) == doctest::Approx(0.5 * 2 * 1.0));
  CHECK(loss_at(scene, 5, X) == doctest::Approx(0.0));
  CHECK(loss_at(scene, 4, X) == 0.0);
  CHECK(scene.loss_min_steps == 3);
  // Different vertices per state (position targets), by time.
  test::write_text(dir.file("ref.csv"), "time,vertex,x,y,z\n0.03,0,0,0,1\n0.05,1,1,0,2\n");
  const Scene by_time = parse_scene(json, dir.file("scene.json"));
  CHECK(loss_at(by_time, 3, X) == doctest::Approx(1.0));
  CHECK(loss_at(by_time, 5, X) == doctest::Approx(4.0));
}

TEST_CASE("scenes/scene_loss: times must fall on steps within the run") {
  const auto time_error = [](const std::string& time) {
    return error_of(with_loss(R"({"type": "position", "vertex": 0, "target": [0, 0, 0], "time": )" +
                              time + "}"));
  };
  CHECK(time_error("0.505") ==
        "inline.json: /loss/0/time: t = 0.505 s does not fall on a step (dt = 0.01 s); the "
        "nearest steps are at 0.5 s and 0.51 s");
  CHECK(time_error("2") ==
        "inline.json: /loss/0/time: t = 2 s is after the end of the run (100 steps of 0.01 s "
        "end at 1 s)");
  CHECK(time_error("-1") == "inline.json: /loss/0/time: -1 s is outside [0, inf)");
  CHECK(time_error("\"last\"") ==
        "inline.json: /loss/0/time: unknown time \"last\"; use a time in s or \"final\"");
  CHECK(time_error("[1]") == "inline.json: /loss/0/time: expected a number, got a list [1]");
  CHECK(time_error("1") == "(no error)");
  // A static scene compares one equilibrium.
  CHECK(error_of(scene_json(
            R"("mode": "static", "loss": [{"type": "position", "vertex": 0, "target": [0, 0, 0],
                "time": 0.5}])")) ==
        "inline.json: /loss/0/time: a static scene has one state to compare: use \"final\" or "
        "leave 'time' out");
}

TEST_CASE("scenes/scene_loss: malformed terms name the key") {
  CHECK(error_of(with_loss(R"({"type": "positon"})")) ==
        "inline.json: /loss/0/type: unknown value 'positon'; did you mean 'position'? valid "
        "values: position, center_of_mass, trajectory");
  CHECK(error_of(with_loss(R"({"vertex": 0})")) ==
        "inline.json: /loss/0/type: missing required key 'type' (position: vertices to targets; "
        "center_of_mass: the centre of mass (or its velocity) to a target; trajectory: vertices "
        "to a reference trajectory from a file)");
  CHECK(error_of(with_loss(R"({"type": "position", "vertex": 0, "velocity": [0, 0, 0]})")) ==
        "inline.json: /loss/0/velocity: 'velocity' does not apply to type 'position'");
  CHECK(error_of(with_loss(R"({"type": "position", "target": [0, 0, 0]})")) ==
        "inline.json: /loss/0: a position term needs exactly one of 'region' or 'vertex'");
  CHECK(error_of(with_loss(R"({"type": "position", "vertex": 0})")) ==
        "inline.json: /loss/0: a position term needs exactly one of 'target' or 'offset'");
  CHECK(error_of(with_loss(R"({"type": "position", "vertex": 12, "target": [0, 0, 0]})")) ==
        "inline.json: /loss/0/vertex: vertex 12 is out of range [0, 12)");
  CHECK(error_of(with_loss(R"({"type": "position", "vertex": 0, "target": [0, 0]})")) ==
        "inline.json: /loss/0/target: expected 3 numbers (one per dimension; dim is 3), got 2");
  CHECK(error_of(with_loss(R"({"type": "position", "region": {"indices": [40]},
                               "offset": [0, 0, 0]})")) ==
        "inline.json: /loss/0/region/indices/0: vertex index 40 is out of range [0, 12)");
  CHECK(error_of(with_loss(R"({"type": "center_of_mass", "time": 0.1})")) ==
        "inline.json: /loss/0: a center_of_mass term needs 'position', 'velocity' or both");
  CHECK(error_of(with_loss(R"({"type": "position", "vertex": 0, "offset": [0, 0, 0],
                               "weight": -1})")) ==
        "inline.json: /loss/0/weight: -1 is outside [0, inf)");
  CHECK(error_of(scene_json(R"("loss": {"type": "position"})")) ==
        "inline.json: /loss: expected a list [...], got an object {\"type\":\"position\"}");
}

TEST_CASE("scenes/scene_loss: reference file errors name the file and line") {
  test::TempDir dir;
  const auto file_error = [&](const std::string& text, bool write = true) {
    if (write) test::write_text(dir.file("ref.csv"), text);
    try {
      parse_scene(with_loss(R"({"type": "position", "vertex": 0, "target": [0, 0, 0]},
                                {"type": "trajectory", "file": "ref.csv"})"),
                  dir.file("scene.json"));
    } catch (const InputError& e) {
      const std::string what = e.what();
      const std::string prefix = dir.file("scene.json") + ": /loss/1/file: ";
      CHECK(what.rfind(prefix, 0) == 0);
      return what.substr(prefix.size());
    }
    return std::string("(no error)");
  };
  CHECK(file_error("step,vertex,x,y\n") ==
        "ref.csv:1: expected the header 'step,vertex,x,y,z' (or 'time' first), got "
        "'step,vertex,x,y'");
  CHECK(file_error("step,vertex,x,y,z\n0,1,0,0\n") == "ref.csv:2: expected 5 values, got 4");
  CHECK(file_error("step,vertex,x,y,z\n0,1,0,zero,0\n") ==
        "ref.csv:2: expected a coordinate, got 'zero'");
  CHECK(file_error("step,vertex,x,y,z\n0,1,0,nan,0\n") ==
        "ref.csv:2: a coordinate nan is not finite");
  CHECK(file_error("step,vertex,x,y,z\n0,12,0,0,0\n") ==
        "ref.csv:2: vertex 12 is out of range [0, 12)");
  CHECK(file_error("step,vertex,x,y,z\n101,1,0,0,0\n") ==
        "ref.csv:2: step 101 is out of range [0, 101)");
  CHECK(file_error("step,vertex,x,y,z\n1.5,1,0,0,0\n") ==
        "ref.csv:2: expected an integer step, got 1.5");
  CHECK(file_error("step,vertex,x,y,z\n1,1,0,0,0\n# again\n1,1,0,0,0\n") ==
        "ref.csv:4: vertex 1 at step 1 is listed twice");
  CHECK(file_error("time,vertex,x,y,z\n0.015,1,0,0,0\n") ==
        "ref.csv:2: t = 0.015 s does not fall on a step (dt = 0.01 s); the nearest steps are at "
        "0.01 s and 0.02 s");
  CHECK(file_error("step,vertex,x,y,z\n") == "ref.csv: the reference file has no rows");
  CHECK(file_error("") == "ref.csv: the reference file has no rows");
  std::filesystem::remove(dir.file("ref.csv"));
  CHECK(file_error("", false).rfind("ref.csv: cannot open the reference file", 0) == 0);
  CHECK(error_of(with_loss(R"({"type": "trajectory"})")) ==
        "inline.json: /loss/0/file: missing key 'file', required for type 'trajectory'");
}
