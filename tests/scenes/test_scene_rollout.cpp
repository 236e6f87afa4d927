// A scene's rollout: the initial velocity, the parameter names, Scene::rollout.
#include <doctest/doctest.h>

#include "scenes/scene_test_support.hpp"
#include "softgrad/parameters.hpp"

using namespace softgrad;
using test::error_of;
using test::scene_json;

namespace {

// kBox clamped at x = 0 (vertices 0, 3, 6, 9), with damping and `extra` keys.
std::string clamped(const std::string& extra) {
  return scene_json(
      R"("damping": {"alpha": 0.5},
         "boundary": [{"region": {"plane": {"point": [0, 0, 0], "normal": [-1, 0, 0]}}}], )" +
      extra);
}

}  // namespace

TEST_CASE("scenes/scene_rollout: the initial velocity is given to the free vertices") {
  const Scene all = test::parse(clamped(R"("initial": {"velocity": [0, 1, 2]})"));
  REQUIRE(all.initial_velocity.size() == 36);
  for (int v = 0; v < 12; ++v) {
    const bool clamp = v % 3 == 0;
    CHECK(all.initial_velocity.segment<3>(3 * v) ==
          (clamp ? Eigen::Vector3d::Zero() : Eigen::Vector3d(0, 1, 2)));
  }
  // Only a region.
  const Scene some =
      test::parse(clamped(R"("initial": {"velocity": [0, 1, 0], "region": {"indices": [2, 3]}})"));
  CHECK(some.initial_velocity.sum() == 1.0);
  CHECK(some.initial_velocity[3 * 2 + 1] == 1.0);
  // None: at rest.
  CHECK(test::parse(scene_json()).initial_velocity.size() == 0);
  CHECK(error_of(scene_json(R"("initial": {"region": {"indices": [2]}})")) ==
        "inline.json: /initial/region: 'region' needs a 'velocity'");
  CHECK(error_of(scene_json(R"("initial": {"velocity": [0, 1]})")) ==
        "inline.json: /initial/velocity: expected 3 numbers (one per dimension; dim is 3), got 2");
  CHECK(error_of(scene_json(R"("initial": {"position": [0, 1, 0]})"))
            .rfind("inline.json: /initial/position: unknown key 'position'", 0) == 0);
}

TEST_CASE("scenes/scene_rollout: rollout() starts at rest with the initial velocity") {
  const Scene scene = test::parse(clamped(R"("initial": {"velocity": [0, 1, 0]},
                                             "time": {"dt": 0.02, "duration": 0.1})"));
  const Simulator sim(scene.model, scene.options);
  const Rollout r = scene.rollout(sim);
  CHECK(r.steps == 5);
  CHECK_FALSE(r.static_solve);
  CHECK(r.initial.t == 0.0);
  CHECK(r.initial.x == scene.model->X);
  CHECK(r.initial.v == scene.initial_velocity);
  // A static scene: one equilibrium at the last load time.
  const Scene still =
      test::parse(clamped(R"("mode": "static", "time": {"dt": 0.5, "duration": 1})"));
  const Simulator still_sim(still.model, still.options);
  const Rollout s = still.rollout(still_sim);
  CHECK(s.static_solve);
  CHECK(s.initial.t == 1.0);
  CHECK(s.initial.v == Eigen::VectorXd::Zero(36));
  // A hand-made scene whose velocity does not fit its model.
  Scene bad = scene;
  bad.initial_velocity.resize(5);
  CHECK_THROWS_AS(bad.rollout(sim), InputError);
}

TEST_CASE("scenes/scene_rollout: parameter names are resolved at load time") {
  const Scene scene =
      test::parse(clamped(R"("parameters": ["youngs", "damping.alpha", "v0", "poisson[]"])"));
  CHECK(scene.parameters == std::vector<std::string>{"youngs", "damping.alpha", "v0", "poisson[]"});
  const Simulator sim(scene.model, scene.options);
  CHECK(ParameterSet(sim, scene.rollout(sim), scene.parameters).size() == 1 + 1 + 36 + 12);

  const std::string unknown = error_of(clamped(R"("parameters": ["youngs", "youngz"])"));
  CHECK(unknown.rfind("inline.json: /parameters/1: unknown parameter 'youngz'; available:", 0) ==
        0);
  for (const char* name :
       {"\n  x0", "\n  v0", "\n  kinematic", "\n  elastic:body0.youngs", "\n  damping.alpha"})
    CHECK_MESSAGE(unknown.find(name) != std::string::npos, name);
  CHECK(error_of(clamped(R"("parameters": ["v0", "v0"])")) ==
        "inline.json: /parameters/1: parameter 'v0' is selected twice (also as 'v0')");
  CHECK(error_of(clamped(R"("parameters": ["alpha[]"])")) ==
        "inline.json: /parameters/0: parameter 'alpha[]': '[]' selects a per-element field, but "
        "'alpha' is not per element");
  CHECK(error_of(scene_json(R"("parameters": "youngs")")) ==
        "inline.json: /parameters: expected a list of strings, got the string \"youngs\"");
  CHECK(error_of(scene_json(R"("parameters": ["youngs", 5])")) ==
        "inline.json: /parameters/1: expected a string, got the number 5");
  // Without damping there is no damping term to differentiate.
  CHECK(error_of(scene_json(R"("parameters": ["damping.alpha"])"))
            .rfind("inline.json: /parameters/0: unknown parameter 'damping.alpha'", 0) == 0);
}
