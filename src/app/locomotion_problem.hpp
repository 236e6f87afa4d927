/// @file locomotion_problem.hpp
/// What `softgrad train` and `softgrad compare` share: a locomotion scene loaded with its
/// simulator, episode rollout and objective; gradient-based training from the scene's "train"
/// settings; the files written for a learning curve and a rollout (frames and gait picture).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "app/scene_overrides.hpp"
#include "softgrad/batch.hpp"
#include "softgrad/locomotion.hpp"
#include "softgrad/scene.hpp"
#include "softgrad/training.hpp"

namespace softgrad::app {

/// A control scene (a creature's locomotion, or a robot's task) ready to train.
struct LocomotionProblem {
  Scene scene;
  std::unique_ptr<Simulator> sim;
  Rollout rollout;  ///< one episode (train.episode_steps steps) with the scene's controller
  /// The task's training episodes (rollouts with their goals and starts, and their losses);
  /// training minimises their mean loss.
  std::vector<Episode> episodes;
  std::shared_ptr<const Loss> loss;     ///< the first episode's
  std::vector<std::string> parameters;  ///< what training optimises (ParameterSet names)

  const Locomotion& locomotion() const { return *scene.locomotion; }
  int episode_steps() const { return rollout.steps; }
  /// "reward [m]" or "reward".
  std::string reward_label() const;
};

/// The loaded `scene` with `overrides` (--out, --solver, --threads).
/// @throws InputError if the scene has no "creature" or robot task (not a control scene).
LocomotionProblem locomotion_problem(Scene scene, const SceneOverrides& overrides);

/// The mean loss of the episodes with parameters theta, simulated side by side on `batch`
/// (forward only); +infinity if a simulation fails. `steps` counts the simulated steps.
double mean_loss(const LocomotionProblem& p, RolloutBatch& batch, const ParameterSet& params,
                 const std::vector<Eigen::VectorXd>& thetas, std::vector<double>& losses,
                 long& steps);

/// The scene's train settings as TrainOptions (`iterations` replaces its count when >= 0).
TrainOptions train_options(const Locomotion& locomotion, int iterations = -1);

/// One point of a learning curve.
struct CurveSample {
  long steps = 0;  ///< simulated steps spent so far
  double reward = 0.0;
};

/// The rewards (minus the losses) of a training history against simulated steps.
std::vector<CurveSample> gradient_curve(const TrainReport& report);

/// Simulates `rollout` (an episode of p) and writes, into `dir`: rollout.pvd with .vtu frames
/// every `every` steps (0: none) and, for a 2D creature, gait.svg (about 8 frames overlaid).
/// Returns its reward (the distance travelled [m], or minus the first episode's loss).
/// @throws InputError if a file cannot be written, or ConvergenceError if the episode fails.
double write_rollout(LocomotionProblem& p, const Rollout& rollout, const std::filesystem::path& dir,
                     int every, const std::string& title);

/// "1.23e+04" style text for a step count, "not reached" for -1.
std::string steps_text(long steps);

}  // namespace softgrad::app
