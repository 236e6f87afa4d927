/// @file contact_scenes.hpp
/// Blocks on the ground for contact tests: resting, dropped, sliding, on an incline.
#pragma once

#include <cmath>
#include <memory>

#include "softgrad/contact.hpp"
#include "softgrad/simulator.hpp"
#include "support/tiny_models.hpp"

namespace softgrad::test {

/// A ground plane through the origin, tilted by `angle` about z (normal (-sin, cos, 0)).
inline std::shared_ptr<const HalfSpace> ground(double angle = 0.0) {
  return std::make_shared<HalfSpace>("ground", Eigen::Vector3d::Zero(),
                                     Eigen::Vector3d(-std::sin(angle), std::cos(angle), 0.0));
}

/// A 2D soft block (0.1 x 0.05 m, 1000 kg/m^2) resting `gap` above a ground tilted by `angle`,
/// under gravity (rotated so the ground is the x axis in the block's frame: the block is placed
/// in the ground's frame).
inline std::shared_ptr<Model> block_on_ground(const std::string& contact_model, double mu,
                                              double gap, double angle = 0.0, double k = 1e5) {
  auto model = rectangle_model("neo_hookean", 1e5, 0.3, 1000.0, {4, 2}, {0.1, 0.05}, {0.0, gap});
  Model& m = *model;
  // Rotate the block into the tilted ground's frame.
  const double c = std::cos(angle), s = std::sin(angle);
  for (int v = 0; v < m.n_verts; ++v) {
    const double x = m.X[2 * v], y = m.X[2 * v + 1];
    m.X[2 * v] = c * x - s * y;
    m.X[2 * v + 1] = s * x + c * y;
  }
  Eigen::VectorXd g(2);
  g << 0.0, -9.81;
  add_gravity(m, g);
  ContactOptions opt;
  opt.model = contact_model == "barrier" ? ContactModel::Barrier : ContactModel::Penalty;
  opt.stiffness = k;
  // Barrier range 1 mm; the penalty's smoothing band well inside its ~0.5 mm penetration.
  opt.activation_distance = contact_model == "barrier" ? 1e-3 : 1e-4;
  opt.friction = mu;
  opt.friction_velocity = 1e-3;
  opt.obstacles = {ground(angle)};
  add_contact(m, opt);
  return model;
}

inline SimulationOptions contact_options(double dt, double tolerance = 1e-9) {
  SimulationOptions o;
  o.dt = dt;
  o.newton.tolerance = tolerance;
  o.newton.max_iterations = 100;
  return o;
}

}  // namespace softgrad::test
