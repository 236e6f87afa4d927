// The scene loader: defaults, options, boundary motions, forces, damping, files.
#include <doctest/doctest.h>

#include <cmath>

#include "io/io_test_support.hpp"
#include "scenes/scene_test_support.hpp"
#include "support/term_evaluation.hpp"

using namespace softgrad;
using test::contains;
using test::error_of;
using test::scene_json;
using test::starts_with;

namespace {

// The gradient of the model's term named `name` at the rest positions.
Eigen::VectorXd term_gradient(const Model& model, const std::string& name) {
  Eigen::VectorXd g = Eigen::VectorXd::Zero(model.n_dofs());
  for (const auto& term : model.terms)
    if (term->name() == name) {
      test::TermEvaluation at_rest(*term, model.X);
      term->value_and_gradient(at_rest.data(), model.X, g);
    }
  return g;
}

bool has_term(const Model& model, const std::string& name) {
  for (const auto& term : model.terms)
    if (term->name() == name) return true;
  return false;
}

const KinematicGroup& only_group(const Scene& scene) {
  REQUIRE(scene.model->kinematic.size() == 1);
  return scene.model->kinematic[0];
}

}  // namespace

TEST_CASE("scenes/scene_loader: a minimal scene gets the documented defaults") {
  const Scene scene = test::parse(scene_json());
  const SimulationOptions defaults;
  CHECK(scene.file.empty());
  CHECK(scene.name == "inline");
  CHECK_FALSE(scene.static_solve);
  CHECK(scene.options.dt == 0.01);
  CHECK(scene.duration == 1.0);
  CHECK(scene.steps == 100);
  CHECK(scene.options.newton.tolerance == defaults.newton.tolerance);
  CHECK(scene.options.newton.max_iterations == defaults.newton.max_iterations);
  CHECK(scene.options.newton.max_line_search == defaults.newton.max_line_search);
  CHECK(scene.options.newton.project_hessian == defaults.newton.project_hessian);
  CHECK(scene.options.newton.exact_hessian_first == defaults.newton.exact_hessian_first);
  CHECK(scene.options.newton.chord_window == defaults.newton.chord_window);
  CHECK(scene.options.newton.chord_always_cost == defaults.newton.chord_always_cost);
  CHECK(scene.options.newton.chord_contraction == defaults.newton.chord_contraction);
  CHECK(scene.options.newton.chord_forcing == defaults.newton.chord_forcing);
  CHECK(scene.options.newton.accelerated_guess == defaults.newton.accelerated_guess);
  CHECK(scene.options.newton.correct_directions == defaults.newton.correct_directions);
  CHECK(scene.options.linear.kind == defaults.linear.kind);
  CHECK(scene.options.linear.preconditioner == defaults.linear.preconditioner);
  CHECK(scene.options.linear.rel_tol == defaults.linear.rel_tol);
  CHECK(scene.options.linear.max_iterations == defaults.linear.max_iterations);
  CHECK(scene.options.on_failure == defaults.on_failure);
  CHECK(scene.output.directory == "out/inline");
  CHECK(scene.output.every == 1);
  CHECK(scene.output.vtu);
  const Model& model = *scene.model;
  CHECK(model.dim == 3);
  CHECK(model.kinematic.empty());
  CHECK_FALSE(has_term(model, "damping"));
  CHECK_FALSE(has_term(model, "external"));
  // Gravity [0, -9.81, 0]: W = -sum m g . x, so dW/dy = 9.81 m.
  const Eigen::VectorXd g = term_gradient(model, "gravity");
  for (int v = 0; v < model.n_verts; ++v) {
    CHECK(g[3 * v] == 0.0);
    CHECK(g[3 * v + 1] == doctest::Approx(9.81 * model.mass[3 * v + 1]));
    CHECK(g[3 * v + 2] == 0.0);
  }
  // 2D: [0, -9.81].
  const Scene flat = test::parse(test::scene_json_2d());
  CHECK(term_gradient(*flat.model, "gravity")[1] == doctest::Approx(9.81 * flat.model->mass[1]));
}

TEST_CASE("scenes/scene_loader: top-level settings reach the Scene") {
  const Scene scene = test::parse(scene_json(R"(
      "name": "demo", "mode": "static", "time": {"dt": 0.3, "duration": 1.0},
      "gravity": [0, 0, 0],
      "solver": {"linear": "pcg", "preconditioner": "ichol", "cg_tolerance": 1e-8,
                 "cg_max_iterations": 50, "newton_tolerance": 1e-6, "newton_max_iterations": 7,
                 "line_search_max_halvings": 9, "project_hessian": false,
                 "exact_hessian_first": false, "chord_window": 0, "chord_always_cost": 2,
                 "chord_contraction": 0.5, "chord_forcing": 0.2, "accelerated_guess": false,
                 "correct_directions": false, "on_failure": "continue"},
      "output": {"directory": "/tmp/demo", "every": 0, "vtu": false})"));
  CHECK(scene.name == "demo");
  CHECK(scene.static_solve);
  CHECK(scene.options.dt == 0.3);
  CHECK(scene.steps == 3);
  CHECK(scene.options.linear.kind == "pcg");
  CHECK(scene.options.linear.preconditioner == "ichol");
  CHECK(scene.options.linear.rel_tol == 1e-8);
  CHECK(scene.options.linear.max_iterations == 50);
  CHECK(scene.options.newton.tolerance == 1e-6);
  CHECK(scene.options.newton.max_iterations == 7);
  CHECK(scene.options.newton.max_line_search == 9);
  CHECK_FALSE(scene.options.newton.project_hessian);
  CHECK_FALSE(scene.options.newton.exact_hessian_first);
  CHECK(scene.options.newton.chord_window == 0.0);
  CHECK(scene.options.newton.chord_always_cost == 2.0);
  CHECK(scene.options.newton.chord_contraction == 0.5);
  CHECK(scene.options.newton.chord_forcing == 0.2);
  CHECK_FALSE(scene.options.newton.accelerated_guess);
  CHECK_FALSE(scene.options.newton.correct_directions);
  CHECK(scene.options.on_failure == FailurePolicy::Continue);
  CHECK(scene.output.directory == "/tmp/demo");
  CHECK(scene.output.every == 0);
  CHECK_FALSE(scene.output.vtu);
  CHECK(term_gradient(*scene.model, "gravity").isZero());
  CHECK(test::parse(scene_json(R"("name": "x")")).output.directory == "out/x");
}

TEST_CASE("scenes/scene_loader: time and name errors") {
  CHECK(error_of(scene_json(R"("time": {"dt": 0.01, "duration": 0.004})")) ==
        "inline.json: /time/duration: duration 0.004 s is shorter than half a time step (dt = "
        "0.01 s): no step would run");
  CHECK(error_of(scene_json(R"("time": {"dt": 1e-12, "duration": 1e3})")) ==
        "inline.json: /time/duration: duration / dt exceeds 1e9 steps; increase dt");
  // A denormal dt made the inertia term infinite, reported as "an element is inverted".
  CHECK(error_of(scene_json(R"("time": {"dt": 1e-310, "duration": 1e-309})")) ==
        "inline.json: /time/dt: dt 1e-310 s is below 1e-12 s, the smallest time step softgrad "
        "takes");
  CHECK(error_of(scene_json(R"("name": "a/b")")) ==
        "inline.json: /name: the name must be non-empty without '/', '\\' or control characters, "
        "and not '.' or '..' (it names the output folder and files)");
  // ".." would put the output folder's files beside it, in the working directory.
  CHECK(starts_with(error_of(scene_json(R"("name": "..")")), "inline.json: /name: "));
  CHECK(starts_with(error_of(scene_json(R"("name": ".")")), "inline.json: /name: "));
  CHECK(starts_with(error_of(scene_json(R"("name": "a\u0000b")")), "inline.json: /name: "));
  CHECK(starts_with(error_of(scene_json(R"("name": "tab\there")")), "inline.json: /name: "));
  CHECK(error_of(scene_json(R"("output": {"directory": ""})")) ==
        "inline.json: /output/directory: the directory must not be empty");
}

TEST_CASE("scenes/scene_loader: boundary motions become kinematic groups") {
  const std::string region = R"("region": {"indices": [0, 1]})";
  const KinematicGroup fixed =
      only_group(test::parse(scene_json("\"boundary\": [{" + region + "}]")));
  CHECK(fixed.name == "boundary0");
  CHECK(fixed.motion == KinematicGroup::Motion::Fixed);
  CHECK(fixed.start == 0.0);
  CHECK(fixed.stop == std::numeric_limits<double>::infinity());

  const KinematicGroup translate = only_group(test::parse(scene_json(
      "\"boundary\": [{\"name\": \"push\", " + region +
      R"(, "motion": {"translate": {"velocity": [0, -1, 0.5]}}, "start": 0.5, "stop": 2}])")));
  CHECK(translate.name == "push");
  CHECK(translate.motion == KinematicGroup::Motion::Translate);
  CHECK(translate.velocity == Eigen::Vector3d(0, -1, 0.5));
  CHECK(translate.start == 0.5);
  CHECK(translate.stop == 2.0);

  const KinematicGroup rotate = only_group(
      test::parse(scene_json("\"boundary\": [{" + region +
                             R"(, "motion": {"rotate": {"center": [1, 0, 0], "axis": [0, 0, 2],
                                 "angular_velocity": 3}}}])")));
  CHECK(rotate.motion == KinematicGroup::Motion::Rotate);
  CHECK(rotate.center == Eigen::Vector3d(1, 0, 0));
  CHECK(rotate.axis == Eigen::Vector3d(0, 0, 1));
  CHECK(rotate.angular_velocity == 3.0);

  // 2D: vectors are padded with z = 0 and rotations turn about z.
  const KinematicGroup flat = only_group(test::parse(test::scene_json_2d(
      R"("boundary": [{"region": {"indices": [0]},
                       "motion": {"rotate": {"center": [0.5, 0.5], "angular_velocity": 1}}}])")));
  CHECK(flat.center == Eigen::Vector3d(0.5, 0.5, 0));
  CHECK(flat.axis == Eigen::Vector3d::UnitZ());
}

TEST_CASE("scenes/scene_loader: motion errors name the key") {
  const auto motion_error = [](const std::string& motion, bool flat = false) {
    const std::string bc =
        R"("boundary": [{"region": {"indices": [0]}, "motion": )" + motion + "}]";
    return error_of(flat ? test::scene_json_2d(bc) : scene_json(bc));
  };
  CHECK(motion_error(R"("moving")") ==
        "inline.json: /boundary/0/motion: unknown motion \"moving\"; use \"fixed\" or an object "
        "with 'translate' or 'rotate'");
  CHECK(motion_error("{}") ==
        "inline.json: /boundary/0/motion: a motion needs exactly one of 'translate' or 'rotate'");
  CHECK(motion_error(R"({"translate": {"velocity": [1, 0]}})") ==
        "inline.json: /boundary/0/motion/translate/velocity: expected 3 numbers (one per "
        "dimension; dim is 3), got 2");
  CHECK(motion_error(R"({"rotate": {"angular_velocity": 1}})") ==
        "inline.json: /boundary/0/motion/rotate/axis: missing key 'axis', required in 3D");
  CHECK(motion_error(R"({"rotate": {"axis": [0, 0, 0], "angular_velocity": 1}})") ==
        "inline.json: /boundary/0/motion/rotate/axis: the axis must be non-zero");
  CHECK(motion_error(R"({"rotate": {"axis": [0, 0, 1]}})") ==
        "inline.json: /boundary/0/motion/rotate/angular_velocity: missing required key "
        "'angular_velocity' (counter-clockwise about the axis)");
  CHECK(motion_error(R"({"rotate": {"axis": [0, 0, 1], "angular_velocity": 1}})", true) ==
        "inline.json: /boundary/0/motion/rotate/axis: 2D rotations turn about z; remove 'axis'");
  CHECK(motion_error(R"({"spin": {}})") ==
        "inline.json: /boundary/0/motion/spin: unknown key 'spin'; valid keys: translate, rotate");
  CHECK(motion_error("3") ==
        "inline.json: /boundary/0/motion: expected an object {...}, got the number 3");
  CHECK(error_of(
            scene_json(R"("boundary": [{"region": {"indices": [0]}, "start": 2, "stop": 1}])")) ==
        "inline.json: /boundary/0/stop: stop = 1 s must be after start = 2 s");
  CHECK(error_of(scene_json(R"("boundary": [{"motion": "fixed"}])")) ==
        "inline.json: /boundary/0/region: missing required key 'region' (the vertices held, see "
        "region)");
}

TEST_CASE("scenes/scene_loader: a vertex in two boundary groups gives a warning") {
  test::LogCapture log;
  test::parse(scene_json(R"("boundary": [{"region": {"indices": [0, 1]}},
                                          {"region": {"indices": [1, 2]}},
                                          {"region": {"indices": [0, 1, 2, 3]}}])"));
  REQUIRE(log.messages.size() == 3);
  CHECK(log.messages[0] ==
        "inline.json: /boundary/1/region: 1 vertex (first 1) also in /boundary/0; the later "
        "group wins");
  CHECK(log.messages[1] ==
        "inline.json: /boundary/2/region: 1 vertex (first 0) also in /boundary/0; the later "
        "group wins");
  CHECK(log.messages[2] ==
        "inline.json: /boundary/2/region: 2 vertices (first 1) also in /boundary/1; the later "
        "group wins");
}

TEST_CASE("scenes/scene_loader: point forces and body accelerations") {
  const Scene scene = test::parse(scene_json(R"("gravity": [0, 0, 0], "forces": [
      {"type": "point", "region": {"indices": [2, 5]}, "force": [1, 2, 3]},
      {"type": "point", "region": {"indices": [5]}, "force": [1, 0, 0]},
      {"type": "body", "acceleration": [0, 0, -2]}])"));
  const Model& model = *scene.model;
  // W = -f . x: the gradient is -f.
  const Eigen::VectorXd f = -term_gradient(model, "external");
  CHECK(f.segment<3>(6) == Eigen::Vector3d(1, 2, 3));
  CHECK(f.segment<3>(15) == Eigen::Vector3d(2, 2, 3));
  CHECK(f.sum() == doctest::Approx(6 + 7));
  // The body acceleration acts as gravity.
  const Eigen::VectorXd g = term_gradient(model, "gravity");
  CHECK(g[2] == doctest::Approx(2 * model.mass[2]));
  CHECK(g[1] == 0.0);
}

TEST_CASE("scenes/scene_loader: per-step forces are a parameter per step, vertex and axis") {
  const Scene scene = test::parse(scene_json(R"("time": {"dt": 0.1, "duration": 0.3}, "forces": [
      {"type": "body", "acceleration": [0, 0, -2]},
      {"type": "steps", "region": {"indices": [2, 5]}, "force": [1, 2, 3]}])"));
  const Model& model = *scene.model;
  REQUIRE(has_term(model, "forces:1"));
  for (const auto& term : model.terms)
    if (term->name() == "forces:1") {
      const Eigen::VectorXd p = term->default_parameters();
      REQUIRE(p.size() == 3 * 2 * 3);  // steps x vertices x axes, step-major
      for (int k = 0; k < p.size(); ++k) CHECK(p[k] == 1 + k % 3);
      REQUIRE(term->parameter_groups().size() == 1);
      CHECK(term->parameter_groups()[0].name == "force");
    }
  // In step 0, W = -f . x on the two vertices: the gradient is -f there, zero elsewhere.
  const Eigen::VectorXd g = term_gradient(model, "forces:1");
  CHECK(g.segment<3>(6) == Eigen::Vector3d(-1, -2, -3));
  CHECK(g.segment<3>(15) == Eigen::Vector3d(-1, -2, -3));
  CHECK(g.cwiseAbs().sum() == doctest::Approx(12));
}

TEST_CASE("scenes/scene_loader: force errors name the key") {
  const auto force_error = [](const std::string& force) {
    return error_of(scene_json("\"forces\": [" + force + "]"));
  };
  CHECK(force_error(R"({"type": "point", "force": [0, 0, 1]})") ==
        "inline.json: /forces/0/region: missing key 'region', required for type 'point'");
  CHECK(force_error(R"({"type": "point", "region": {"indices": [0]}})") ==
        "inline.json: /forces/0/force: missing key 'force', required for type 'point'");
  CHECK(force_error(R"({"type": "body", "acceleration": [0, 0, 1], "force": [0, 0, 1]})") ==
        "inline.json: /forces/0/force: 'force' does not apply to type 'body'");
  CHECK(force_error(R"({"type": "pressure"})") ==
        "inline.json: /forces/0/type: unknown value 'pressure'; valid values: point, body, steps");
  CHECK(force_error(R"({"acceleration": [0, 0, 1]})") ==
        "inline.json: /forces/0/type: missing required key 'type' (point: a force on each vertex "
        "of a region; body: an acceleration on all mass; steps: a force per step on each vertex "
        "of a region, the parameter forces:<i>.force (a control))");
  CHECK(force_error(R"({"type": "steps", "force": [0, 0, 1]})") ==
        "inline.json: /forces/0/region: missing key 'region', required for type 'steps'");
  CHECK(
      force_error(R"({"type": "steps", "region": {"indices": [0]}, "acceleration": [0, 0, 1]})") ==
      "inline.json: /forces/0/acceleration: 'acceleration' does not apply to type 'steps'");
  CHECK(force_error(R"({"type": "point", "region": {"box": {"min": [9, 9, 9], "max": [9, 9, 9]}},
                        "force": [0, 0, 1]})")
            .rfind("inline.json: /forces/0/region: the region selects no vertex", 0) == 0);
}

TEST_CASE("scenes/scene_loader: a byte-order mark is skipped, a NUL byte is refused") {
  const Scene scene = test::parse("\xEF\xBB\xBF" + scene_json());
  CHECK(scene.steps == 100);
  std::string text = scene_json();
  text += std::string(1, '\0') + "trailing";
  CHECK(starts_with(error_of(text), "inline.json:"));
  CHECK(contains(error_of(text), "a NUL byte: a scene is a text file"));
}

TEST_CASE("scenes/scene_loader: deep nesting and repeated keys are refused by pointer") {
  // 100,000 levels: the parser copes, but messages describing such a value would recurse.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  CHECK(error_of(scene_json("\"description\": " + deep)) ==
        "inline.json: /description/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/"
        "0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0: lists and objects nested "
        "more than 64 levels deep (no scene needs that many)");
  CHECK(error_of(scene_json(R"("damping": {"alpha": 0.5, "alpha": 0.1})")) ==
        "inline.json: /damping/alpha: the key 'alpha' appears twice in this object (JSON keeps "
        "only the last one; remove the other)");
  CHECK(error_of(scene_json(R"("forces": [{"type": "body", "acceleration": [0, 0, 1]},
                                          {"type": "body", "type": "point"}])")) ==
        "inline.json: /forces/1/type: the key 'type' appears twice in this object (JSON keeps "
        "only the last one; remove the other)");
  // The same key in different objects is fine.
  CHECK_NOTHROW(
      test::parse(scene_json(R"("damping": {"alpha": 0.5}, "initial": {"velocity": [0, 0, 1]},
                                          "forces": [{"type": "body", "acceleration": [0, 0, 1]},
                                                     {"type": "body", "acceleration": [0, 1, 0]}])")));
}

TEST_CASE("scenes/scene_loader: damping adds a term only when non-zero") {
  CHECK(has_term(*test::parse(scene_json(R"("damping": {"alpha": 0.5})")).model, "damping"));
  CHECK(has_term(*test::parse(scene_json(R"("damping": {"beta": 0.01})")).model, "damping"));
  CHECK_FALSE(has_term(*test::parse(scene_json(R"("damping": {"alpha": 0})")).model, "damping"));
}

TEST_CASE("scenes/scene_loader: a TetGen mesh by TetGen's own output name (ball.1)") {
  test::TempDir dir;
  test::write_text(dir.file("ball.1.node"), "4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n");
  test::write_text(dir.file("ball.1.ele"), "1 4 0\n1 1 2 3 4\n");
  test::write_text(dir.file("ball.json"), R"({"dim": 3, "time": {"dt": 0.01, "duration": 0.01},
      "bodies": [{"mesh": {"file": "ball.1"}, "material": {"model": "neo_hookean"}}]})");
  const Scene scene = load_scene(dir.file("ball.json"));
  CHECK(scene.model->n_verts == 4);
}

TEST_CASE("scenes/scene_loader: load_scene reads a file and reports missing ones") {
  test::TempDir dir;
  const std::string path = dir.file("hello.json");
  test::write_text(path, scene_json());
  const Scene scene = load_scene(path);
  CHECK(scene.file == path);
  CHECK(scene.name == "hello");
  CHECK(test::input_error_of([&] { load_scene(dir.file("nope.json")); }) ==
        dir.file("nope.json") + ": scene file not found");
  CHECK(test::input_error_of([&] { load_scene(dir.file("")); }) ==
        dir.file("") + ": is a folder, not a scene file");
  test::write_text(path, "{\n\"dim\": 3\n\"bodies\": []}");
  CHECK(test::input_error_of([&] { load_scene(path); }) ==
        path +
            ":3:8: malformed JSON: syntax error while parsing object - unexpected string "
            "literal; expected '}'");
}
