// The scene's rollout: initial velocities, the parameter names, Scene::rollout.
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
  // Resolving names needs a simulator but no factorisation: a matrix-free one is cheapest.
  SimulationOptions options = scene.options;
  options.linear.kind = "matfree";
  options.linear.preconditioner = "jacobi";
  const Simulator sim(scene.model, options);
  const Rollout rollout = scene.rollout(sim);
  // Name by name, so that the error points at the first bad one.
  std::vector<std::string> names;
  for (size_t i = 0; i < scene.parameters.size(); ++i) {
    names.push_back(scene.parameters[i]);
    try {
      [[maybe_unused]] const ParameterSet params(sim, rollout, names);
    } catch (const InputError& e) {
      fail_at(top.source(), child_pointer(top.path("parameters"), std::to_string(i)), e.what());
    }
  }
}

}  // namespace detail

Rollout Scene::rollout(const Simulator& sim) const {
  Rollout r;
  r.initial = sim.rest_state();
  if (initial_position.size() > 0) {
    if (initial_position.size() != r.initial.x.size())
      throw InputError("scene '" + name + "': initial_position has " +
                       std::to_string(initial_position.size()) + " entries, the model " +
                       std::to_string(r.initial.x.size()) + " dofs");
    r.initial.x = initial_position;
  }
  if (initial_velocity.size() > 0) {
    if (initial_velocity.size() != r.initial.v.size()) {
      throw InputError("scene '" + name + "': initial_velocity has " +
                       std::to_string(initial_velocity.size()) + " entries, the model " +
                       std::to_string(r.initial.v.size()) + " dofs");
    }
    r.initial.v = initial_velocity;
  }
  r.steps = steps;
  r.static_solve = static_solve;
  if (locomotion) {
    if (locomotion->trained_parameters() == std::vector<std::string>{"controller"}) {
      r.controller = locomotion->make_controller(sim.options().dt);
      r.controlled_term = locomotion->creature.muscle_term;
    }
  }
  // A static scene: the equilibrium at the last load step.
  if (static_solve) r.initial.t = steps * sim.options().dt;
  return r;
}

}  // namespace softgrad
