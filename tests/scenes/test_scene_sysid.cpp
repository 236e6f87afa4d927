// The scene keys of contact, markers, the bent initial pose and system identification.
#include <doctest/doctest.h>

#include <cmath>

#include "scene_test_support.hpp"
#include "softgrad/parameters.hpp"
#include "support/text.hpp"

namespace softgrad::test {
namespace {

// A 2D 1 x 1 m square of 2 x 2 cells standing on y = 0, with `contact` as its "contact" value.
std::string contact_scene(const std::string& contact) {
  return scene_json_2d(R"("time": {"dt": 0.01, "duration": 0.03}, "contact": )" + contact);
}

// A 2D beam 1 m x 0.2 m of 4 x 2 cells clamped at x = 0, plus `extra` keys.
std::string beam_scene(const std::string& extra) {
  return R"({"dim": 2, "time": {"dt": 0.01, "duration": 0.05},
    "bodies": [{"mesh": {"generator": "rectangle", "resolution": [4, 2], "size": [1, 0.2]},
                "material": {"model": "neo_hookean", "youngs": 1e5}}],
    "boundary": [{"region": {"plane": {"point": [0, 0], "normal": [-1, 0]}}}],
    "damping": {"alpha": 0.5}, )" +
         extra + "}";
}

double parameter(const Scene& scene, const std::string& name) {
  const Simulator sim(scene.model, scene.options);
  const Rollout rollout = scene.rollout(sim);
  return ParameterSet(sim, rollout, {name}).get(sim, rollout)[0];
}

}  // namespace

TEST_CASE("scenes/sysid: contact adds a term with the scene's stiffness and friction") {
  const Scene scene = parse(contact_scene(
      R"({"model": "penalty", "stiffness": 2e4, "friction": 0.3,
          "obstacles": [{"type": "ground", "height": -0.01}, {"type": "sphere",
          "center": [3, 3], "radius": 0.5}, {"type": "box", "center": [-3, 0],
          "half_extents": [0.5, 0.5]}, {"type": "half_space", "point": [5, 0], "normal": [-2, 0]},
          {"type": "height_field", "x0": -2, "spacing": 1, "heights": [-0.1, -0.2, -0.1, -0.3]}]})"));
  CHECK(parameter(scene, "contact.stiffness") == 2e4);
  CHECK(parameter(scene, "contact.friction") == 0.3);
  // Three steps falling onto the ground end in a finite state.
  Simulator sim(scene.model, scene.options);
  const Trajectory traj = simulate(sim, scene.rollout(sim));
  CHECK(traj.state(scene.steps).x.allFinite());
}

TEST_CASE("scenes/sysid: contact errors name the obstacle's key") {
  CHECK(error_of(contact_scene(R"({"obstacles": []})")) ==
        "inline.json: /contact/obstacles: contact needs at least one obstacle, or between_bodies, "
        "self_contact or rigid_surfaces true");
  CHECK(error_of(contact_scene(R"({"obstacles": [{"type": "sphere", "center": [0, 5]}]})")) ==
        "inline.json: /contact/obstacles/0/radius: missing key 'radius', required for type "
        "'sphere'");
  CHECK(error_of(contact_scene(R"({"obstacles": [{"type": "ground", "radius": 1}]})")) ==
        "inline.json: /contact/obstacles/0/radius: 'radius' does not apply to type 'ground'");
  CHECK(contains(error_of(contact_scene(R"({"obstacles": [{"type": "groud"}]})")),
                 "inline.json: /contact/obstacles/0/type: unknown value 'groud'; did you mean "
                 "'ground'?"));
  CHECK(error_of(contact_scene(R"({"obstacles": [{"type": "half_space", "point": [0, 0],
                                   "normal": [0, 0]}]})")) ==
        "inline.json: /contact/obstacles/0/normal: the normal must be non-zero");
  CHECK(error_of(contact_scene(R"({"obstacles": [{"type": "height_field", "spacing": 1,
                                   "heights": [0]}]})")) ==
        "inline.json: /contact/obstacles/0/heights: 1 heights do not make a grid of nx = 1 "
        "columns (at least 2 heights)");
  CHECK(error_of(contact_scene(R"({"stiffness": -1, "obstacles": [{"type": "ground"}]})")) ==
        "inline.json: /contact/stiffness: -1 N/m is outside (0, inf)");
  // The contact model is an enum in the library: an unknown one is refused here, by name.
  CHECK(
      contains(error_of(contact_scene(R"({"model": "spring", "obstacles": [{"type": "ground"}]})")),
               "inline.json: /contact/model: unknown value 'spring'"));
  // A barrier needs a start outside every obstacle: the square's bottom lies on y = 0.
  CHECK(contains(error_of(contact_scene(R"({"obstacles": [{"type": "ground"}]})")),
                 "inline.json: /contact: vertex 0 is not outside obstacle 'obstacle0' at rest"));
}

TEST_CASE("scenes/sysid: markers are embedded in the mesh or rejected with their pointer") {
  const Scene scene = parse(beam_scene(R"("markers": [{"name": "tip", "position": [1, 0.1]},
      {"name": "mid", "position": [0.5, 0.05]}])"));
  REQUIRE(scene.markers.size() == 2);
  CHECK(scene.markers[1].name == "mid");
  CHECK(scene.markers[1].position.isApprox(Eigen::Vector2d(0.5, 0.05)));
  CHECK(
      contains(error_of(beam_scene(R"("markers": [{"name": "tip", "position": [1.5, 0.1]}])")),
               "inline.json: /markers/0/position: marker 'tip' at (1.5, 0.1) is outside the mesh"));
  CHECK(error_of(beam_scene(R"("markers": [{"name": "a", "position": [1, 0.1]},
                                           {"name": "a", "position": [0.5, 0.1]}])")) ==
        "inline.json: /markers/1/name: a marker named 'a' already exists");
  CHECK(error_of(beam_scene(R"("markers": [{"name": "a b", "position": [1, 0.1]}])")) ==
        "inline.json: /markers/0/name: a marker name must be non-empty without commas, blanks "
        "or quotes");
}

TEST_CASE("scenes/sysid: initial bend follows the Euler-Bernoulli tip-load shape") {
  const Scene scene = parse(
      beam_scene(R"("initial": {"bend": {"deflection": 0.1, "length": 1, "origin": [0, 0.1]}})"));
  const Model& m = *scene.model;
  REQUIRE(scene.initial_position.size() == m.n_dofs());
  for (int v = 0; v < m.n_verts; ++v) {
    const double s = m.X[2 * v], h = m.X[2 * v + 1] - 0.1;
    const double w = 0.1 * s * s * (3 - s) / 2, slope = 0.3 * s * (2 - s) / 2;
    CHECK(scene.initial_position[2 * v] == doctest::Approx(s - h * slope));
    CHECK(scene.initial_position[2 * v + 1] == doctest::Approx(m.X[2 * v + 1] + w));
  }
  // The tip's neutral axis moves by the deflection; the clamp stays; the rollout starts there.
  const Simulator sim(scene.model, scene.options);
  const Rollout r = scene.rollout(sim);
  CHECK(r.initial.x == scene.initial_position);
  CHECK(r.initial.v.isZero());
  CHECK(contains(error_of(beam_scene(R"("initial": {"bend": {"deflection": 0.1, "length": 1,
                                        "direction": [1, 1]}})")),
                 "inline.json: /initial/bend/direction: the direction must be perpendicular"));
  CHECK(error_of(beam_scene(R"("initial": {"bend": {"length": 1}})")) ==
        "inline.json: /initial/bend/deflection: missing required key 'deflection' (delta: "
        "displacement of the free end)");
}

TEST_CASE("scenes/sysid: the sysid block names parameters, guesses and bounds") {
  const Scene scene = parse(beam_scene(R"("sysid": {"parameters": [{"name": "youngs",
      "initial": 2e5, "lower": 1e3}, {"name": "damping.alpha"}], "method": "lbfgs",
      "robust": "huber", "robust_scale": 0.01, "smoothness": 0.5})"));
  REQUIRE(scene.sysid.parameters.size() == 2);
  CHECK(scene.sysid.parameters[0].initial == 2e5);
  CHECK(scene.sysid.parameters[0].lower == 1e3);
  CHECK(std::isinf(scene.sysid.parameters[0].upper));
  CHECK(std::isnan(scene.sysid.parameters[1].initial));
  CHECK(scene.sysid.method == SysIdMethod::Lbfgs);
  CHECK(scene.sysid.robust == RobustLoss::Huber);
  CHECK(scene.sysid.smoothness == 0.5);
  CHECK(contains(error_of(beam_scene(R"("sysid": {"parameters": [{"name": "yungs"}]})")),
                 "inline.json: /sysid/parameters/0/name: "));
  CHECK(error_of(beam_scene(R"("sysid": {"parameters": [{"name": "youngs", "lower": 5,
                                 "upper": 1}]})")) ==
        "inline.json: /sysid/parameters/0/upper: upper must be greater than lower");
  CHECK(error_of(beam_scene(R"("sysid": {"parameters": [{"name": "youngs", "initial": 1,
                                 "lower": 5}]})")) ==
        "inline.json: /sysid/parameters/0/initial: the initial value is outside [lower, upper]");
  CHECK(error_of(beam_scene(R"("sysid": {"parameters": []})")) ==
        "inline.json: /sysid/parameters: give at least one parameter to identify");
}

TEST_CASE("scenes/sysid: scene-help documents the new sections") {
  const std::string text = scene_reference();
  for (const char* section : {"/contact", "/contact/obstacles/*", "/markers/*", "/initial/bend",
                              "/sysid", "/sysid/parameters/*"})
    CHECK_MESSAGE(contains(text, section), section);
  CHECK(contains(text, "ground|half_space|sphere|box|height_field"));
}

}  // namespace softgrad::test
