// A scene's locomotion problem: creature generators, the controller it asks for, the objective.
#include "softgrad/locomotion.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <random>

#include "softgrad/errors.hpp"
#include "softgrad/loss.hpp"

namespace softgrad {
namespace {

Creature make_worm_3d_6(ModelBuilder& builder, const Creature3dOptions& options) {
  return make_worm_3d(builder, 6, options);
}

constexpr CreatureGenerator kGenerators[] = {
    {"biped_2d", "the seed's 2D biped: 6 x 4 cells, 29 vertices, 20 muscles", 2, make_biped_2d,
     nullptr},
    {"quadruped_2d", "the seed's 2D quadruped: 12 x 4 cells, 55 vertices, 40 muscles", 2,
     make_quadruped_2d, nullptr},
    {"quadruped_3d",
     "DiffPD's quadruped: a 4 x 1 x 4-cell body on four legs 2 cells tall, 82 vertices, "
     "144 tetrahedra (resolution 1), 8 fibre muscles",
     3, nullptr, make_quadruped_3d},
    {"worm_3d",
     "a caterpillar of 6 x 2 x 2 cells, 63 vertices, 144 tetrahedra (resolution 1), 12 fibre "
     "muscles along its top and bottom halves",
     3, nullptr, make_worm_3d_6},
};

/// N(0, std^2) values from a seeded generator (std::normal_distribution is not portable across
/// standard libraries; Box-Muller on mt19937_64 is).
Eigen::VectorXd normal_values(int n, double std, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const double two_pi = 6.283185307179586;
  Eigen::VectorXd z(n);
  for (int i = 0; i < n; ++i) {
    const double u1 = (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53;
    const double u2 = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    z[i] = std * std::sqrt(-2.0 * std::log(u1)) * std::cos(two_pi * u2);
  }
  return z;
}

/// The sinusoidal gait of the spec: amplitude, phases phase_step (m mod phase_cycle), offset.
std::shared_ptr<Controller> make_sine(const ControllerSpec& c, int m, double dt) {
  auto sine = std::make_shared<SineController>(m, dt, c.a_max, c.frequency);
  Eigen::VectorXd psi = sine->parameters();
  for (int i = 0; i < m; ++i) {
    psi[i] = c.amplitude;
    psi[m + i] = c.phase_step * (i % c.phase_cycle);
    psi[2 * m + i] = c.offset;
  }
  sine->set_parameters(psi);
  return sine;
}

}  // namespace

std::span<const CreatureGenerator> creature_generators() { return kGenerators; }

const CreatureGenerator* find_creature_generator(const std::string& name) {
  for (const CreatureGenerator& g : kGenerators)
    if (name == g.name) return &g;
  return nullptr;
}

std::shared_ptr<Controller> Locomotion::make_controller(double dt) const {
  const ControllerSpec& c = controller;
  const int m = creature.n_muscles;
  switch (c.type) {
    case ControllerType::Sine:
      return make_sine(c, m, dt);
    case ControllerType::Keyframes: {
      auto keys = std::make_shared<KeyframeController>(m, c.keys, c.period, dt, c.a_max);
      keys->set_parameters(normal_values(c.keys * m, c.init_std, train.seed));
      return keys;
    }
    case ControllerType::OpenLoop: {
      const int steps = std::max(controller_steps, train.episode_steps);
      auto open = std::make_shared<OpenLoopController>(m, steps, c.a_max);
      open->set_parameters(normal_values(steps * m, c.init_std, train.seed));
      return open;
    }
    case ControllerType::Mlp:
      return std::make_shared<MlpController>(*creature.model, m, dt,
                                             mlp_options(c.hidden, c.delta, c.period));
  }
  throw InputError("controller: unknown type");
}

const char* to_string(TaskType type) {
  switch (type) {
    case TaskType::Distance:
      return "distance";
    case TaskType::Reach:
      return "reach";
    case TaskType::Throw:
      return "throw";
    case TaskType::Balance:
      return "balance";
  }
  return "?";
}

std::vector<std::string> Locomotion::trained_parameters() const {
  if (task.type != TaskType::Throw) return {"controller"};
  const std::string body = "rigid:" + creature.model->rigid_bodies.at(task.body).name;
  return {body + ".velocity", body + ".angular_velocity"};
}

std::vector<TaskEpisode> Locomotion::episodes(int count, std::uint64_t seed) const {
  const Model& model = *creature.model;
  const int n = count > 0 ? count : task.episodes;
  std::vector<TaskEpisode> out;
  if (task.type == TaskType::Reach) {
    // Goals uniform in the box target +- spread.
    std::mt19937_64 rng(seed != 0 ? seed : train.seed);
    for (int k = 0; k < n; ++k) {
      Eigen::Vector3d u;
      for (int i = 0; i < 3; ++i) u[i] = 2.0 * static_cast<double>(rng() >> 11) * 0x1.0p-53 - 1.0;
      out.push_back({task.target + task.spread.cwiseProduct(u), {}});
    }
  } else if (task.type == TaskType::Balance) {
    // Kicks of the first joint's child about the joint's axis: +-kick/n, +-2 kick/n, ...
    const Joint& j = model.joints.at(task.joints.at(0));
    const RigidBody& child = model.rigid_bodies[j.child];
    const Eigen::Vector3d anchor = child.point(model.X, j.anchor_child);
    const Eigen::Vector3d axis = child.direction(model.X, j.axis_child).normalized();
    for (int k = 0; k < n; ++k) {
      const double w = task.kick * ((k / 2) + 1) / ((n + 1) / 2) * (k % 2 == 0 ? 1.0 : -1.0);
      Eigen::VectorXd v = Eigen::VectorXd::Zero(model.n_dofs());
      const Eigen::Vector3d omega = w * axis;
      set_rigid_velocity(model, j.child, omega.cross(child.position(model.X) - anchor), omega,
                         model.X, v);
      out.push_back({{}, std::move(v)});
    }
  } else {
    out.push_back({});
  }
  return out;
}

std::shared_ptr<const Loss> Locomotion::make_loss(const TaskEpisode& episode) const {
  const Model& model = *creature.model;
  switch (task.type) {
    case TaskType::Distance:
      return std::make_shared<DisplacementLoss>(model, std::vector<int>{}, direction);
    case TaskType::Reach:
    case TaskType::Throw: {
      const Sensor hand{Sensor::Kind::BodyPoint, task.body, task.point};
      const Eigen::Vector3d target =
          task.type == TaskType::Reach ? Eigen::Vector3d(episode.goal) : task.target;
      return std::make_shared<SensorLoss>(model, std::vector<Sensor>{hand}, target,
                                          Eigen::Vector3d::Ones(),
                                          task.type == TaskType::Throw ? 1.0 : task.from);
    }
    case TaskType::Balance: {
      std::vector<Sensor> sensors;
      for (int j : task.joints)
        sensors.push_back({Sensor::Kind::JointPosition, j, Eigen::Vector3d::Zero()});
      const Eigen::VectorXd w =
          Eigen::Map<const Eigen::VectorXd>(task.weights.data(), task.weights.size());
      return std::make_shared<SensorLoss>(model, std::move(sensors),
                                          Eigen::VectorXd::Zero(w.size()), w, task.from);
    }
  }
  throw InputError("task: unknown type");
}

std::shared_ptr<const Loss> Locomotion::make_loss() const { return make_loss(episodes().front()); }

std::function<double(const State&, const State&)> Locomotion::episode_reward(
    const TaskEpisode& episode, int steps) const {
  if (task.type == TaskType::Distance) return progress_reward();
  std::shared_ptr<const Loss> loss = make_loss(episode);
  return [loss, steps](const State&, const State& next) {
    return -loss->evaluate(next.step, steps, next, nullptr, nullptr);
  };
}

Rollout Locomotion::episode_rollout(const Rollout& base, const TaskEpisode& episode) const {
  Rollout r = base;
  if (episode.velocity.size() > 0) r.initial.v = episode.velocity;
  if (episode.goal.size() > 0 && r.controller) {
    auto mlp = std::dynamic_pointer_cast<const MlpController>(r.controller);
    if (mlp) {
      auto copy = std::make_shared<MlpController>(*mlp);
      copy->set_goal(episode.goal);
      r.controller = std::move(copy);
    }
  }
  return r;
}

std::function<double(const State&, const State&)> Locomotion::progress_reward() const {
  auto com = std::make_shared<const CenterOfMassLoss>(*creature.model, std::vector<int>{},
                                                      std::vector<CenterOfMassTarget>{});
  return [com, d = direction](const State& prev, const State& next) {
    return d.dot(com->center(next.x) - com->center(prev.x));
  };
}

namespace {

/// A robot's observations: default_robot_sensors, each scaled to order 1 by the controller's
/// length and velocity scales (angles and axes as they are).
void robot_observations(const Model& model, const ControllerSpec& c, MlpController::Options& o) {
  std::vector<Sensor> sensors = default_robot_sensors(model);
  auto set = std::make_shared<const SensorSet>(model, sensors);
  o.sensor_scale.resize(set->size());
  int k = 0;
  for (const Sensor& s : sensors) {
    double scale = 1.0;
    int n = 1;
    switch (s.kind) {
      case Sensor::Kind::JointPosition:
        scale = model.joints[s.index].type == JointType::Slider ? c.length_scale : 1.0;
        break;
      case Sensor::Kind::JointVelocity:
        scale = model.joints[s.index].type == JointType::Slider ? c.velocity_scale
                                                                : c.velocity_scale / c.length_scale;
        break;
      case Sensor::Kind::BodyPosition:
      case Sensor::Kind::BodyPoint:
        scale = c.length_scale, n = 3;
        break;
      case Sensor::Kind::BodyVelocity:
        scale = c.velocity_scale, n = 3;
        break;
      case Sensor::Kind::BodyAxes:
        n = 9;
        break;
      case Sensor::Kind::BodyAngularVelocity:
        scale = c.velocity_scale / c.length_scale, n = 3;
        break;
    }
    o.sensor_scale.segment(k, n).setConstant(scale);
    k += n;
  }
  o.sensors = std::move(set);
}

}  // namespace

MlpController::Options Locomotion::mlp_options(const std::vector<int>& hidden, double delta,
                                               double period) const {
  MlpController::Options o;
  if (robot()) robot_observations(*creature.model, controller, o);
  if (task.type == TaskType::Reach) o.goal = task.target;
  o.hidden = hidden;
  o.a_max = controller.a_max;
  o.delta = delta;
  o.period = period;
  o.length_scale = controller.length_scale;
  o.velocity_scale = controller.velocity_scale;
  o.seed = train.seed;
  return o;
}

MlpController::Options Locomotion::policy_options() const {
  return mlp_options(compare.hidden, compare.delta, compare.period);
}

}  // namespace softgrad
