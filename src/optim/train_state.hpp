/// @file train_state.hpp
/// Internal: what `train` needs to continue a run exactly where it stopped (TrainOptions::state):
/// the iteration count, the step counts, the optimiser's point, moments and learning rate, and
/// the best point so far. Saved as text after every iteration, whole or not at all.
#pragma once

#include <Eigen/Core>
#include <limits>
#include <string>

namespace softgrad::detail {

struct TrainState {
  int iteration = 0;  ///< iterations done
  long simulated_steps = 0;
  int gradient_evaluations = 0;
  double seconds = 0.0;  ///< wall time spent so far
  double best_loss = std::numeric_limits<double>::infinity();
  double learning_rate = 0.0;  ///< Adam's current one (halved after failed simulations)
  int adam_steps = 0;
  Eigen::VectorXd theta, best, m, v;  ///< the next point, the best point, Adam's moments
};

void save_train_state(const std::string& file, const TrainState& s);

/// @throws InputError "<file>: ..." for a file that is not a state, or a bad or missing value.
TrainState load_train_state(const std::string& file);

}  // namespace softgrad::detail
