/// @file state.hpp
/// What changes during a simulation: positions, velocities and time.
#pragma once

#include <Eigen/Core>

namespace softgrad {

/// The dynamic state. x and v are flat (n_verts * dim), like Mesh::X.
struct State {
  Eigen::VectorXd x;  ///< positions [m]
  Eigen::VectorXd v;  ///< velocities [m/s]
  double t = 0.0;     ///< time [s]
  int step = 0;       ///< steps taken since the initial state
};

}  // namespace softgrad
