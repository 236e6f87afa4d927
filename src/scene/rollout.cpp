// The scene's rollout: initial velocities, the parameter names (checked against the model
// alone), Scene::rollout.
#include "rollout.hpp"

#include "regions.hpp"
#include "scene_sysid.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/locomotion.hpp"
#include "softgrad/parameters.hpp"

namespace softgrad {

namespace detail {

void read_initial(const ObjectReader& top, Scene& scene) {
  const ObjectReader initial = top.object("initial", schema::initial);
  read_bend(initial, scene);
  const Model& model = *scene.model;
  if (!initial.has("velocity")) {
    if (initial.has("region")) initial.fail("region", "'region' needs a 'velocity'");
    return;
  }
  const Eigen::VectorXd velocity = initial.vector("velocity", model.dim, {});
  std::vector<int> verts;
  if (initial.has("region")) {
    verts = select_region(initial, "region", model);
  } else {
    for (int v = 0; v < model.n_mesh_verts(); ++v) verts.push_back(v);
  }
  scene.initial_velocity = Eigen::VectorXd::Zero(model.n_dofs());
  for (const int v : verts)
    scene.initial_velocity.segment(static_cast<Eigen::Index>(v) * model.dim, model.dim) = velocity;
  // Kinematic dofs follow their prescribed motion.
  for (const int dof : model.kinematic_dofs()) scene.initial_velocity[dof] = 0.0;
}

void read_parameters(const ObjectReader& top, Scene& scene) {
  scene.parameters = top.strings("parameters");
  if (scene.parameters.empty()) return;
  const Rollout rollout = scene.rollout();
  // Name by name, so that the error points at the first bad one.
  std::vector<std::string> names;
  for (size_t i = 0; i < scene.parameters.size(); ++i) {
    names.push_back(scene.parameters[i]);
    try {
      [[maybe_unused]] const ParameterSet params(*scene.model, rollout, names);
    } catch (const InputError& e) {
      fail_at(top.source(), child_pointer(top.path("parameters"), std::to_string(i)), e.what());
    }
  }
}

}  // namespace detail

namespace {

// The rollout of `scene` for `model` (the scene's, or a simulator's) stepping by dt.
Rollout rollout_for(const Scene& scene, const Model& model, double dt) {
  Rollout r;
  r.initial = model.rest_state();
  if (scene.initial_position.size() > 0) {
    if (scene.initial_position.size() != r.initial.x.size())
      throw InputError("scene '" + scene.name + "': initial_position has " +
                       std::to_string(scene.initial_position.size()) + " entries, the model " +
                       std::to_string(r.initial.x.size()) + " dofs");
    r.initial.x = scene.initial_position;
  }
  if (scene.initial_velocity.size() > 0) {
    if (scene.initial_velocity.size() != r.initial.v.size()) {
      throw InputError("scene '" + scene.name + "': initial_velocity has " +
                       std::to_string(scene.initial_velocity.size()) + " entries, the model " +
                       std::to_string(r.initial.v.size()) + " dofs");
    }
    r.initial.v = scene.initial_velocity;
  }
  r.steps = scene.steps;
  r.static_solve = scene.static_solve;
  if (scene.locomotion) {
    if (scene.locomotion->trained_parameters() == std::vector<std::string>{"controller"}) {
      r.controller = scene.locomotion->make_controller(dt);
      r.controlled_term = scene.locomotion->creature.muscle_term;
    }
  }
  // A static scene: the equilibrium at the last load step.
  if (scene.static_solve) r.initial.t = scene.steps * dt;
  return r;
}

}  // namespace

Rollout Scene::rollout(const Simulator& sim) const {
  return rollout_for(*this, sim.model(), sim.options().dt);
}

Rollout Scene::rollout() const { return rollout_for(*this, *model, options.dt); }

}  // namespace softgrad
