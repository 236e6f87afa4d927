// A robot's control problem: rigid bodies with motors and a controller, task, train or compare.
#include "robot_problem_reader.hpp"

#include <algorithm>

#include "locomotion_reader.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/locomotion.hpp"

namespace softgrad::detail {

bool is_robot_problem(const ObjectReader& top) {
  if (top.list("rigid_bodies").empty()) return false;
  for (const char* key : {"controller", "task", "train", "compare"})
    if (top.has(key)) return true;
  return false;
}

namespace {

int joint_index(const ObjectReader& r, const char* key, const Model& model,
                const std::string& name) {
  for (size_t j = 0; j < model.joints.size(); ++j)
    if (model.joints[j].name == name) return static_cast<int>(j);
  r.fail(key, "no joint '" + name + "' (see /joints)");
}

void read_robot_task(const ObjectReader& top, const Model& model, Locomotion& loc) {
  const ObjectReader task = top.object("task", schema::task);
  TaskSpec& t = loc.task;
  const std::string type = task.string("type");
  t.type = type == "reach"     ? TaskType::Reach
           : type == "throw"   ? TaskType::Throw
           : type == "balance" ? TaskType::Balance
                               : TaskType::Distance;
  loc.direction = task.vector("direction", 3, Eigen::Vector3d::UnitX());
  if (!(loc.direction.norm() > 0)) task.fail("direction", "the direction must be non-zero");
  loc.direction.normalize();
  t.episodes = task.integer("episodes");
  t.from = task.number("from");
  t.kick = task.number("kick");
  if (t.type == TaskType::Reach || t.type == TaskType::Throw) {
    for (const char* key : {"body", "target"})
      if (!task.has(key))
        task.fail(key, "missing key '" + std::string(key) + "', required for " + type);
    t.body = find_rigid_body(model, task.string("body"));
    if (t.body < 0) task.fail("body", "no rigid body '" + task.string("body") + "'");
    const RigidBody& b = model.rigid_bodies[t.body];
    t.point = task.vector("point", 3, b.position(model.X));
    t.target = task.vector("target", 3, {});
    t.spread = task.vector("spread", 3, Eigen::Vector3d::Zero());
  }
  if (t.type == TaskType::Balance) {
    const std::vector<std::string> names = task.strings("joints");
    if (names.empty()) task.fail("joints", "balance needs the joints to hold at 0");
    for (const std::string& name : names)
      t.joints.push_back(joint_index(task, "joints", model, name));
    if (!model.joints[t.joints[0]].has_coordinate() ||
        model.joints[t.joints[0]].type != JointType::Hinge)
      task.fail("joints", "the first joint (the kicked one) must be a hinge");
    for (int j : t.joints)
      if (!model.joints[j].has_coordinate())
        task.fail("joints", "joint '" + model.joints[j].name + "' has no coordinate to hold");
    t.weights.assign(names.size(), 1.0);
    if (task.has("weights")) {
      if (!task.at("weights").is_array() || task.at("weights").size() != names.size())
        task.fail("weights",
                  "give a list of one weight per joint (" + std::to_string(names.size()) + ")");
      const Eigen::VectorXd w = task.vector("weights", static_cast<int>(names.size()), {});
      t.weights.assign(w.data(), w.data() + w.size());
    }
  }
}

}  // namespace

std::shared_ptr<Locomotion> read_robot_problem(const ObjectReader& top, const Scene& scene,
                                               const Model& model) {
  auto loc = std::make_shared<Locomotion>();
  loc->generator = "robot";
  read_controller(top, scene, *loc);
  read_training(top, scene, *loc);
  loc->controller_steps = control_steps(top, scene.steps);
  loc->creature.muscle_term = "motors";
  loc->creature.body_length = model.length_scale();
  read_robot_task(top, model, *loc);
  int motors = 0;
  for (const auto& term : model.terms)
    if (term->name() == "motors")
      motors = term->n_parameters() / std::max(loc->controller_steps, 1);
  loc->creature.n_muscles = motors;
  if (loc->task.type != TaskType::Throw && motors == 0)
    top.fail("motors", "a controller needs motors to drive (see /motors)");
  if (loc->task.type == TaskType::Throw && top.has("controller"))
    top.fail("controller", "a throw trains the launch velocities; remove 'controller'");
  return loc;
}

}  // namespace softgrad::detail
