// Locomotion scenes: "creature", "controller", "task", "train" and "compare", their defaults,
// and their errors with JSON pointers.
#include <doctest/doctest.h>

#include <filesystem>
#include <tuple>

#include "scene_test_support.hpp"
#include "softgrad/controller.hpp"
#include "softgrad/locomotion.hpp"
#include "softgrad/trajectory.hpp"

using namespace softgrad;
using namespace softgrad::test;

namespace {

/// A biped scene (0.1 s of 10 ms steps) plus `extra` top-level keys.
std::string creature_json(const std::string& extra = "",
                          const std::string& creature = R"({"generator": "biped_2d"})") {
  return R"({"time": {"dt": 0.01, "duration": 0.1}, "creature": )" + creature +
         (extra.empty() ? "" : ", " + extra) + "}";
}

}  // namespace

TEST_CASE("scenes/locomotion_reader: a biped scene builds the creature, controller and task") {
  const Scene s = parse(creature_json());
  REQUIRE(s.locomotion);
  const Locomotion& loc = *s.locomotion;
  CHECK(s.model->dim == 2);
  CHECK(s.model->n_verts == 29);
  CHECK(loc.creature.n_muscles == 20);
  CHECK(loc.generator == "biped_2d");
  // Defaults: a sine gait, travel along +x, episodes of duration / dt steps.
  CHECK(loc.controller.type == ControllerType::Sine);
  CHECK(loc.direction.isApprox(Eigen::Vector2d(1, 0)));
  CHECK(loc.train.episode_steps == 10);
  CHECK(loc.train.optimizer == Optimizer::Adam);
  // The scene's rollout drives the muscles with the controller.
  const Simulator sim(s.model, s.options);
  const Rollout r = s.rollout(sim);
  REQUIRE(r.controller);
  CHECK(r.controller->name() == "sine");
  CHECK(r.controller->n_outputs() == 20);
  CHECK(r.controlled_term == loc.creature.muscle_term);
}

TEST_CASE("scenes/locomotion_reader: layouts, controllers and settings are read") {
  const Scene s = parse(creature_json(
      R"("controller": {"type": "mlp", "hidden": [8], "a_max": 0.4, "period": 0.2},
         "task": {"direction": [-2, 0]},
         "train": {"optimizer": "lbfgs", "iterations": 3, "episode_steps": 20, "seed": 7},
         "compare": {"budget": 5000, "es_population": 8, "hidden": [16]})",
      R"({"layout": ["###", "L.L"], "cell": 0.1, "friction": 0.5})"));
  const Locomotion& loc = *s.locomotion;
  CHECK(loc.generator == "layout");
  CHECK(loc.creature.n_muscles == 10);  // 4 leg edges, 3 top and 3 bottom body edges
  CHECK(loc.creature.body_length == doctest::Approx(0.3));
  CHECK(loc.direction.isApprox(Eigen::Vector2d(-1, 0)));
  CHECK(loc.train.optimizer == Optimizer::Lbfgs);
  CHECK(loc.train.episode_steps == 20);
  CHECK(loc.train.seed == 7);
  CHECK(loc.compare.budget == 5000);
  CHECK(loc.compare.es_population == 8);
  CHECK(loc.compare.hidden == std::vector<int>{16});
  const auto c = loc.make_controller(0.01);
  CHECK(c->name() == "mlp");
  CHECK(c->n_outputs() == 10);
  CHECK(loc.policy_options().hidden == std::vector<int>{16});
  // Keyframes and open loop start from seeded random values.
  for (const char* type : {"keyframes", "open_loop"}) {
    const Scene k = parse(creature_json(R"("controller": {"type": ")" + std::string(type) +
                                        R"(", "init_std": 0.3})"));
    const Eigen::VectorXd psi = k.locomotion->make_controller(0.01)->parameters();
    CHECK(psi.norm() > 0.0);
    CHECK(psi == k.locomotion->make_controller(0.01)->parameters());
  }
}

TEST_CASE("scenes/locomotion_reader: 3D creatures take 3D defaults, keys given override them") {
  const Scene q = parse(creature_json("", R"({"generator": "quadruped_3d"})"));
  REQUIRE(q.locomotion);
  CHECK(q.model->dim == 3);
  CHECK(q.model->n_verts == 82);
  CHECK(q.model->bodies.front().n_elems() == 144);
  CHECK(q.locomotion->creature.n_muscles == 8);
  CHECK(q.locomotion->direction.isApprox(Eigen::Vector3d(1, 0, 0)));
  // Unset keys keep the 3D defaults, not the 2D ones of the schema table: the scene's model has
  // the energy of make_quadruped_3d's at a displaced state.
  Creature3dOptions o;
  o.steps = 10;
  const Creature reference = make_quadruped_3d(o);
  Eigen::VectorXd x = q.model->X;
  x[3 * 81 + 1] += 0.004;
  Simulator a(q.model, q.options), b(reference.model, q.options);
  CHECK(a.potential_energy(x) == doctest::Approx(b.potential_energy(x)).epsilon(1e-12));
  // Given keys override them.
  const Scene w = parse(creature_json(
      "", R"({"generator": "worm_3d", "youngs": 2e5, "density": 500, "resolution": 2})"));
  o.youngs = 2e5;
  o.density = 500;
  o.resolution = 2;
  const Creature worm = make_worm_3d(6, o);
  CHECK(w.model->n_verts == worm.model->n_verts);
  CHECK(w.model->bodies.front().n_elems() == 8 * 144);
  Eigen::VectorXd y = w.model->X;
  y[3 * 5 + 1] += 0.002;
  Simulator c(w.model, w.options), d(worm.model, w.options);
  CHECK(c.potential_energy(y) == doctest::Approx(d.potential_energy(y)).epsilon(1e-12));
  CHECK(c.kinetic_energy(Eigen::VectorXd::Ones(y.size())) ==
        doctest::Approx(d.kinetic_energy(Eigen::VectorXd::Ones(y.size()))).epsilon(1e-12));
}

TEST_CASE("scenes/locomotion_reader: bad creatures are named with their pointer") {
  CHECK(error_of(creature_json("", R"({"generator": "octopus"})")) ==
        "inline.json: /creature/generator: unknown creature 'octopus'; built-in: biped_2d "
        "quadruped_2d quadruped_3d worm_3d (or give a 'layout')");
  CHECK(error_of(creature_json("", R"({"generator": "biped_2d", "resolution": 2})")) ==
        "inline.json: /creature/resolution: 'resolution' applies to 3D creatures; 'biped_2d' is "
        "2D");
  CHECK(error_of(creature_json(R"("dim": 2)", R"({"generator": "worm_3d"})")) ==
        "inline.json: /dim: the creature is 3D; remove 'dim' or set it to 3");
  CHECK(error_of(creature_json("", R"({"generator": "biped_2d", "layout": ["#"]})")) ==
        "inline.json: /creature: give exactly one of 'generator' (a built-in creature) or "
        "'layout' (cells)");
  CHECK(error_of(creature_json("", "{}")) ==
        "inline.json: /creature: give exactly one of 'generator' (a built-in creature) or "
        "'layout' (cells)");
  CHECK(error_of(creature_json("", R"({"layout": ["#x"]})")) ==
        "inline.json: /creature/layout: creature: unknown cell 'x' (use '#' body, 'L' leg, '.' "
        "empty)");
  CHECK(starts_with(error_of(creature_json("", R"({"generator": "biped_2d", "youngs": -1})")),
                    "inline.json: /creature/youngs: "));
  CHECK(starts_with(error_of(creature_json("", R"({"generator": "biped_2d", "legs": 4})")),
                    "inline.json: /creature/legs: unknown key 'legs'"));
  CHECK(error_of(creature_json(R"("dim": 3)")) ==
        "inline.json: /dim: the creature is 2D; remove 'dim' or set it to 2");
  CHECK(error_of(creature_json(R"("bodies": [])")) ==
        "inline.json: /bodies: a creature scene builds its own body, gravity and ground; remove "
        "'bodies'");
  CHECK(error_of(creature_json(R"("gravity": [0, -1])")) ==
        "inline.json: /gravity: a creature scene builds its own body, gravity and ground; remove "
        "'gravity'");
}

TEST_CASE("scenes/locomotion_reader: bad controller, task and training keys") {
  CHECK(error_of(creature_json(R"("controller": {"type": "mlp", "frequency": 3})")) ==
        "inline.json: /controller/frequency: 'frequency' does not apply to type 'mlp'");
  CHECK(starts_with(error_of(creature_json(R"("controller": {"type": "spline"})")),
                    "inline.json: /controller/type: "));
  CHECK(starts_with(error_of(creature_json(R"("controller": {"a_max": 1.5})")),
                    "inline.json: /controller/a_max: "));
  CHECK(starts_with(error_of(creature_json(R"("controller": {"type": "keyframes", "keys": 1})")),
                    "inline.json: /controller/keys: "));
  // Sizes that would overflow a parameter count or exhaust memory are refused by name.
  CHECK(starts_with(
      error_of(creature_json(R"("controller": {"type": "mlp", "hidden": [1999999999]})")),
      "inline.json: /controller/hidden/0: "));
  CHECK(starts_with(
      error_of(creature_json(R"("controller": {"type": "keyframes", "keys": 1999999999})")),
      "inline.json: /controller/keys: "));
  CHECK(
      error_of(creature_json(R"("controller": {"type": "mlp", "hidden": [4,4,4,4,4,4,4,4,4]})")) ==
      "inline.json: /controller/hidden: 9 hidden layers; at most 8 are supported");
  CHECK(starts_with(error_of(creature_json(R"("compare": {"hidden": [5000]})")),
                    "inline.json: /compare/hidden/0: "));
  CHECK(error_of(creature_json(R"("task": {"direction": [0, 0]})")) ==
        "inline.json: /task/direction: the direction must be non-zero");
  // A creature's task type was never read: "jump" passed, "reach" silently meant distance.
  CHECK(starts_with(error_of(creature_json(R"("task": {"type": "jump"})")),
                    "inline.json: /task/type: unknown value 'jump'"));
  CHECK(error_of(creature_json(R"("task": {"type": "reach"})")) ==
        "inline.json: /task/type: a creature's task is 'distance'; reach, throw and balance are "
        "for robots (rigid bodies with motors)");
  CHECK(starts_with(error_of(creature_json(R"("task": {"direction": [1, 0, 0]})")),
                    "inline.json: /task/direction: expected 2 numbers"));
  CHECK(starts_with(error_of(creature_json(R"("train": {"optimizer": "sgd"})")),
                    "inline.json: /train/optimizer: "));
  CHECK(starts_with(error_of(creature_json(R"("train": {"learning_rate": 0})")),
                    "inline.json: /train/learning_rate: "));
  CHECK(starts_with(error_of(creature_json(R"("train": {"episode_steps": 0})")),
                    "inline.json: /train/episode_steps: "));
  CHECK(error_of(creature_json(R"("compare": {"es_population": 5})")) ==
        "inline.json: /compare/es_population: the population must be even (antithetic pairs)");
  // Locomotion keys without a creature.
  CHECK(error_of(scene_json(R"("train": {})")) ==
        "inline.json: /train: 'train' needs a 'creature' (a locomotion scene) or 'rigid_bodies' (a "
        "robot)");
}

TEST_CASE("scenes/locomotion_reader: the shipped creature scenes step with their gait") {
  for (const auto& [name, verts, muscles, episode] :
       {std::tuple{"biped_2d", 29, 20, 100}, std::tuple{"quadruped_2d", 55, 40, 100},
        std::tuple{"quadruped_3d", 82, 8, 60}}) {
    const std::string scene_name = name;  // (clang 14 lambdas cannot capture a binding)
    CAPTURE(scene_name);
    const Scene s = load_scene(std::filesystem::path(SOFTGRAD_SOURCE_DIR) / "scenes" /
                               (std::string(name) + ".json"));
    REQUIRE(s.locomotion);
    CHECK(s.model->n_verts == verts);
    CHECK(s.locomotion->creature.n_muscles == muscles);
    CHECK(s.locomotion->train.episode_steps == episode);
    // Two steps of the scene's rollout: the gait moves the muscles, the state stays finite.
    Simulator sim(s.model, s.options);
    Rollout r = s.rollout(sim);
    r.steps = 2;
    const Trajectory traj = simulate(sim, r);
    CHECK(traj.converged());
    CHECK(traj.final_state().x.allFinite());
    CHECK((traj.final_state().x - r.initial.x).norm() > 0.0);
  }
}
