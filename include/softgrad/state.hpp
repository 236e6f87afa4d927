/// @file state.hpp
/// What changes during a simulation: positions, velocities, time, and what terms adapt as the
/// rollout goes.
#pragma once

#include <Eigen/Core>

namespace softgrad {

/// The dynamic state. x and v are flat (n_verts * dim), like Mesh::X.
struct State {
  Eigen::VectorXd x;  ///< positions [m]
  Eigen::VectorXd v;  ///< velocities [m/s]
  double t = 0.0;     ///< time [s]
  int step = 0;       ///< steps taken since the initial state
  /// Values the terms adapt from what happens in the rollout, in term order
  /// (Model::initial_adaptive; mesh contact's barrier stiffness scale and closest gap). Empty:
  /// their initial values. They change in steps between time steps, never continuously with
  /// the state, so gradients take them as constants.
  Eigen::VectorXd adaptive{};
  /// Accelerations of the step that ended here, (v - v_prev) / dt [m/s^2]: the next step's
  /// Newton guess (NewtonOptions::accelerated_guess). Empty at the start of a rollout and after
  /// a static solve; the guess then evaluates the forces at x instead. Kept in the state, not the
  /// simulator, so a step recomputed from a checkpoint repeats the forward step bit for bit.
  Eigen::VectorXd a{};
};

}  // namespace softgrad
