/// @file training.hpp
/// Gradient-based optimisation of anything a ParameterSet selects (controller weights, gaits,
/// activations, material parameters) through the simulator: each iteration simulates the
/// rollout and takes the adjoint gradient of the loss. Adam (with gradient-norm clipping) or
/// L-BFGS (Ceres Solver's line-search minimiser); the best parameters are kept, optionally
/// written to a checkpoint file after every improvement, and a run can resume from it.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <string>
#include <vector>

#include "softgrad/adjoint.hpp"

namespace softgrad {

/// The optimiser of train(): Adam (with gradient-norm clipping) or L-BFGS (Ceres Solver).
enum class Optimizer { Adam, Lbfgs };
/// "adam", "lbfgs" (the scene's names).
const char* to_string(Optimizer optimizer);

struct TrainIteration {
  int iteration = 0;
  double loss = 0.0;
  double gradient_norm = 0.0;
  long simulated_steps = 0;  ///< forward steps so far (recomputation included)
  double seconds = 0.0;      ///< wall time so far
};

struct TrainOptions {
  Optimizer optimizer = Optimizer::Adam;
  int iterations = 100;  ///< Adam steps, or L-BFGS iterations
  double learning_rate = 0.05;
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  double clip = 0.0;       ///< clip the gradient to this norm (0: no clipping)
  std::string checkpoint;  ///< file for the best parameters ("" : none)
  /// File the run's state is saved to after every iteration ("": none): the iteration count,
  /// steps, Adam's moments and learning rate, the current and the best point.
  std::string state;
  /// Continue from `state` if it exists: iterations numbered on, `iterations` more of them,
  /// Adam exactly where it stopped (L-BFGS restarts its memory at the saved point); else start
  /// from `checkpoint` if it exists.
  bool resume = false;
  TrajectoryOptions trajectory;  ///< checkpointing of long rollouts
  AdjointOptions adjoint;
  std::function<void(const TrainIteration&)> on_iteration;  ///< progress callback
  /// Asked after every iteration: true ends the training there (termination "... stopped after
  /// K iterations"), with the report and the best parameters as they are.
  std::function<bool()> stop;
};

struct TrainReport {
  std::vector<TrainIteration> history;
  Eigen::VectorXd best;  ///< parameters with the lowest loss seen
  double best_loss = 0.0;
  long simulated_steps = 0;
  int gradient_evaluations = 0;
  std::string termination;
};

/// One episode of a training objective: a rollout and its loss (a task's goal, say, enters
/// both: the rollout's controller observes it, the loss measures against it).
struct Episode {
  Rollout rollout;
  std::shared_ptr<const Loss> loss;
};

/// Minimises the mean of the episodes' losses over `params`, which every episode shares (a
/// policy trained on several goals); on return each rollout holds the best parameters.
/// @throws InputError for no episodes, an episode without a loss, and as the one-episode form.
TrainReport train(Simulator& sim, std::vector<Episode>& episodes, const ParameterSet& params,
                  const TrainOptions& options);

/// Minimises `loss` over `params`; on return the rollout holds the best parameters (the model is
/// never written).
/// A simulation that fails during the search counts as an infinite loss (Adam halves its step
/// and retries from the best point; L-BFGS backtracks).
TrainReport train(Simulator& sim, Rollout& rollout, const Loss& loss, const ParameterSet& params,
                  const TrainOptions& options);

/// Writes / reads parameters as text (count, then one value per line, full precision).
void save_parameters(const std::string& file, const Eigen::VectorXd& theta);
Eigen::VectorXd load_parameters(const std::string& file);

}  // namespace softgrad
