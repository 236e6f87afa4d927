/// @file locomotion.hpp
/// A locomotion problem as a scene describes it ("creature", "controller", "task", "train",
/// "compare"; see scenes/README.md): the creature, the controller that drives its muscles, the
/// objective (the distance its centre of mass travels along a direction over an episode), and
/// the settings of gradient-based training and of the model-free baselines (PPO, OpenAI-ES).
/// The reward of an episode is that distance [m]; the training loss is minus it.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "softgrad/controller.hpp"
#include "softgrad/creatures.hpp"
#include "softgrad/loss.hpp"
#include "softgrad/state.hpp"
#include "softgrad/training.hpp"

namespace softgrad {

/// A named creature generator, the table behind the scene's "creature"/"generator" key. A 2D
/// generator has `make`, a 3D one `make_3d` (its options have other units and defaults). Both
/// write into an empty ModelBuilder's model and return a draft (creatures.hpp).
struct CreatureGenerator {
  const char* name;
  const char* description;
  int dim;
  Creature (*make)(ModelBuilder& builder, const CreatureOptions& options);
  Creature (*make_3d)(ModelBuilder& builder, const Creature3dOptions& options);
};

/// The registered generators (biped_2d, quadruped_2d, quadruped_3d, worm_3d); a layout of cells
/// is the "layout" key.
std::span<const CreatureGenerator> creature_generators();
/// The generator called `name`, or nullptr.
const CreatureGenerator* find_creature_generator(const std::string& name);

/// How to build the controller and its initial parameters.
/// The controllers a locomotion scene can name (Locomotion::make_controller builds them).
enum class ControllerType { Sine, Keyframes, OpenLoop, Mlp };

struct ControllerSpec {
  ControllerType type = ControllerType::Sine;
  double a_max = 0.3;  ///< activation bound
  // sine: u_m = a_max tanh(A sin(2 pi f t + phi_m) + b), phi_m = phase_step (m mod phase_cycle)
  double frequency = 2.0;  ///< [Hz]
  double amplitude = 1.0;
  double phase_step = 0.9;  ///< [rad]
  int phase_cycle = 7;
  double offset = 0.0;
  // keyframes: `keys` keyframes per period; mlp: the clock period.
  int keys = 4;
  double period = 0.5;  ///< [s]
  /// keyframes, open_loop: initial values N(0, init_std^2) in tanh^-1 units, from the seed.
  double init_std = 0.5;
  // mlp (MlpController::Options).
  std::vector<int> hidden = {32, 32};
  double delta = 0.2;
  double length_scale = 0.1;    ///< [m]
  double velocity_scale = 0.5;  ///< [m/s]
};

/// Gradient-based training (the scene's "train").
struct LocomotionTrainSpec {
  Optimizer optimizer = Optimizer::Adam;
  int iterations = 20;
  double learning_rate = 0.1;
  double clip = 0.0;  ///< gradient norm clip (0: none)
  std::uint64_t seed = 1;
  int episode_steps = 100;  ///< steps per episode (training and the baselines)
};

/// The model-free baselines of `softgrad compare` (the scene's "compare").
struct LocomotionCompareSpec {
  long budget = 0;           ///< simulated steps per method; 0: 10 x what train's iterations take
  long gradient_budget = 0;  ///< the gradient method's steps, at most budget (0: budget)
  // PPO
  int ppo_episodes = 8;  ///< episodes per iteration
  int ppo_epochs = 10;
  int ppo_minibatch = 64;
  double ppo_learning_rate = 1e-3;
  double ppo_log_std = -1.0;
  double ppo_reward_scale = 100.0;
  /// The methods to run besides gradient training: "cmaes", "ppo", "es" (empty: all that
  /// apply; PPO and ES train a policy, so a throw has only CMA-ES).
  std::vector<std::string> methods;
  // CMA-ES (cmaes.hpp) on the parameters gradient training optimises
  int cmaes_population = 0;  ///< 0: 4 + floor(3 ln n)
  double cmaes_sigma = 0.1;  ///< initial step size, in the parameters' units
  // OpenAI-ES
  int es_population = 16;
  double es_sigma = 0.05;
  double es_learning_rate = 0.02;
  // The MLP policy both baselines train (MlpController::Options).
  std::vector<int> hidden = {32, 32};
  double delta = 0.2;
  double period = 0.5;  ///< clock period [s]
};

/// What a control scene's episodes are judged by (the scene's "task").
enum class TaskType {
  Distance,  ///< the centre of mass travels along a direction; reward: the distance [m]
  Reach,     ///< a rigid body's point to goals sampled in a box, over the episode's last part
  Throw,     ///< a rigid body's point at a target at the end; trained: its launch velocities
  Balance    ///< joint coordinates held at 0 (a pole upright) after kicks of the first one
};
/// "distance", "reach", "throw", "balance".
const char* to_string(TaskType type);

struct TaskSpec {
  TaskType type = TaskType::Distance;
  int body = -1;                                     ///< reach, throw: the rigid body
  Eigen::Vector3d point = Eigen::Vector3d::Zero();   ///< its point (world, at rest) [m]
  Eigen::Vector3d target = Eigen::Vector3d::Zero();  ///< throw: the target; reach: goal box centre
  Eigen::Vector3d spread = Eigen::Vector3d::Zero();  ///< reach: goals uniform in target +- spread
  int episodes = 1;   ///< reach: training goals; balance: kicks (alternating in sign, growing)
  double from = 0.5;  ///< the loss averages over the states after this fraction of the episode
  std::vector<int> joints;      ///< balance: joints held at 0 (the first one is kicked)
  std::vector<double> weights;  ///< balance: one per joint
  double kick = 0.5;            ///< balance: the largest initial speed of the first joint [rad/s]
};

/// One training episode of a task: the goal its controller observes (empty: none) and its
/// initial velocities (n_dofs; empty: the scene's).
struct TaskEpisode {
  Eigen::VectorXd goal;
  Eigen::VectorXd velocity;
};

/// Everything a control scene adds to a Scene: a soft creature with muscles (locomotion), or a
/// robot of rigid bodies, joints and motors, with its controller, task and training settings.
struct Locomotion {
  std::string generator;  ///< a generator name, "layout", or "robot"
  std::vector<std::string> layout;
  /// creature.model is the scene's model; a robot's "muscle term" is its motors.
  Creature creature;
  ControllerSpec controller;
  Eigen::VectorXd direction;  ///< unit direction of travel (dim entries)
  TaskSpec task;
  int controller_steps = 0;  ///< open_loop: steps it holds values for (>= episode steps)
  LocomotionTrainSpec train;
  LocomotionCompareSpec compare;

  bool robot() const { return generator == "robot"; }
  /// The parameters gradient training optimises: "controller", or for a throw the body's
  /// rigid:<body>.velocity and rigid:<body>.angular_velocity.
  std::vector<std::string> trained_parameters() const;
  /// The task's training episodes (or `count` of them, from `seed`, where the task samples
  /// them; count 0: the task's own number).
  std::vector<TaskEpisode> episodes(int count = 0, std::uint64_t seed = 0) const;
  /// The loss of one episode of `steps` steps: minus the distance, or the task's sensor loss.
  std::shared_ptr<const Loss> make_loss(const TaskEpisode& episode) const;
  /// The RL reward of one episode: the distance's progress per step, or minus the loss's
  /// share of each state (an episode's return is minus its loss).
  std::function<double(const State& prev, const State& next)> episode_reward(
      const TaskEpisode& episode, int steps) const;
  /// A rollout of `episode` from the scene's rollout `base`: its initial velocities, and its
  /// controller (a copy) observing its goal.
  Rollout episode_rollout(const Rollout& base, const TaskEpisode& episode) const;
  /// "m" for distances, "" for the dimensionless losses of the other tasks.
  const char* reward_unit() const { return task.type == TaskType::Distance ? "m" : ""; }

  /// The scene's controller for time step dt, with its initial parameters.
  /// @throws InputError for an invalid spec (a size or bound out of range).
  std::shared_ptr<Controller> make_controller(double dt) const;
  /// The loss of the first episode (minus the distance travelled, for locomotion).
  std::shared_ptr<const Loss> make_loss() const;
  /// The RL reward: the centre-of-mass progress along `direction` from `prev` to `next` [m].
  /// The returned function holds the mass weights, computed once (it is called every step).
  std::function<double(const State& prev, const State& next)> progress_reward() const;
  /// MlpController options of the baselines' policy (observing all vertices, or a robot's
  /// sensors and the goal).
  MlpController::Options policy_options() const;
  /// MlpController options with this controller's bounds and scales and the training seed.
  MlpController::Options mlp_options(const std::vector<int>& hidden, double delta,
                                     double period) const;
};

}  // namespace softgrad
