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
/// generator has `make`, a 3D one `make_3d` (its options have other units and defaults).
struct CreatureGenerator {
  const char* name;
  const char* description;
  int dim;
  Creature (*make)(const CreatureOptions& options);
  Creature (*make_3d)(const Creature3dOptions& options);
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
  // OpenAI-ES
  int es_population = 16;
  double es_sigma = 0.05;
  double es_learning_rate = 0.02;
  // The MLP policy both baselines train (MlpController::Options).
  std::vector<int> hidden = {32, 32};
  double delta = 0.2;
  double period = 0.5;  ///< clock period [s]
};

/// Everything a locomotion scene adds to a Scene.
struct Locomotion {
  std::string generator;  ///< a generator name, or "layout"
  std::vector<std::string> layout;
  Creature creature;  ///< creature.model is the scene's model
  ControllerSpec controller;
  Eigen::VectorXd direction;  ///< unit direction of travel (dim entries)
  int controller_steps = 0;   ///< open_loop: steps it holds values for (>= episode steps)
  LocomotionTrainSpec train;
  LocomotionCompareSpec compare;

  /// The scene's controller for time step dt, with its initial parameters.
  /// @throws InputError for an invalid spec (a size or bound out of range).
  std::shared_ptr<Controller> make_controller(double dt) const;
  /// Minus the distance the centre of mass travels along `direction` over a rollout [m].
  std::shared_ptr<const Loss> make_loss() const;
  /// The RL reward: the centre-of-mass progress along `direction` from `prev` to `next` [m].
  /// The returned function holds the mass weights, computed once (it is called every step).
  std::function<double(const State& prev, const State& next)> progress_reward() const;
  /// MlpController options of the baselines' policy (observing all vertices).
  MlpController::Options policy_options() const;
  /// MlpController options with this controller's bounds and scales and the training seed.
  MlpController::Options mlp_options(const std::vector<int>& hidden, double delta,
                                     double period) const;
};

}  // namespace softgrad
