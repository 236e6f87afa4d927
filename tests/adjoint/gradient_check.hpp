/// @file gradient_check.hpp
/// Small differentiable problems and central-difference checks of adjoint gradients.
#pragma once

#include <doctest/doctest.h>

#include <Eigen/Core>
#include <array>
#include <memory>
#include <random>

#include "softgrad/adjoint.hpp"
#include "softgrad/mesh_generators.hpp"
#include "support/tiny_models.hpp"

namespace softgrad::test {

/// A cantilever (2D rectangle or 3D box) clamped at x = 0, under gravity and mass damping, with
/// per-step forces on its tip vertices, released from rest with an initial velocity.
struct Problem {
  std::shared_ptr<Model> model;
  std::unique_ptr<Simulator> sim;
  Rollout rollout;
  std::vector<int> tip;  ///< vertices at the free end
};

/// `cells`: the 3D box's cells along x, y, z.
inline Problem cantilever_problem(int dim, int steps, const std::string& solver = "cholmod",
                                  double tolerance = 1e-12,
                                  const std::array<int, 3>& cells = {4, 1, 1}) {
  Problem p;
  if (dim == 2) {
    p.model = rectangle_model("neo_hookean", 5e4, 0.3, 1000.0, {6, 2}, {0.3, 0.1});
  } else {
    p.model =
        box_model("neo_hookean", 5e4, 0.3, 1000.0, {cells[0], cells[1], cells[2]}, {0.3, 0.1, 0.1});
  }
  Model& m = *p.model;
  fix_vertices(m, vertices_at(m, 0, 0.0), "clamp");
  p.tip = vertices_at(m, 0, 0.3);
  Eigen::VectorXd g = Eigen::VectorXd::Zero(dim);
  g[1] = -9.81;
  add_gravity(m, g);
  add_damping(m, 0.5, 0.0);
  std::vector<int> dofs;
  for (int v : p.tip) dofs.push_back(v * dim + 1);
  std::vector<double> forces(static_cast<size_t>(steps) * dofs.size());
  for (size_t k = 0; k < forces.size(); ++k) forces[k] = 0.05 * std::sin(0.7 * k);
  add_step_forces(m, "tip_force", dofs, steps, forces);
  SimulationOptions opt;
  opt.dt = 0.01;
  opt.newton.tolerance = tolerance;
  opt.linear.kind = solver;
  p.sim = std::make_unique<Simulator>(p.model, opt);
  p.rollout = rest_rollout(*p.sim, steps);
  for (int v = 0; v < m.n_verts; ++v) p.rollout.initial.v[v * dim + 1] = -0.2 * m.X[v * dim];
  return p;
}

/// A loss touching positions and velocities at several steps.
inline std::shared_ptr<const Loss> mixed_loss(const Problem& p) {
  const Model& m = *p.model;
  std::vector<PositionTarget> targets;
  for (int v : p.tip) {
    Eigen::VectorXd target = m.X.segment(v * m.dim, m.dim);
    target[1] -= 0.01;
    targets.push_back({kFinalStep, v, target, 100.0});
    targets.push_back({p.rollout.steps / 2, v, target, 10.0});
  }
  CenterOfMassTarget com;
  com.step = kFinalStep;
  com.velocity = Eigen::VectorXd::Zero(m.dim);
  com.weight = 50.0;
  std::vector<std::shared_ptr<const Loss>> terms{
      std::make_shared<PositionLoss>(m, targets),
      std::make_shared<CenterOfMassLoss>(m, std::vector<int>{}, std::vector{com})};
  return std::make_shared<SumLoss>(terms);
}

/// L(theta) by simulating from scratch.
inline double loss_at(Problem& p, const ParameterSet& params, const Eigen::VectorXd& theta,
                      const Loss& loss) {
  Rollout r = p.rollout;
  const Eigen::VectorXd saved = params.get(*p.sim, r);
  params.set(*p.sim, r, theta);
  const Trajectory traj = simulate(*p.sim, r);
  const double l = evaluate_loss(*p.sim, traj, loss);
  params.set(*p.sim, r, saved);
  return l;
}

/// Central difference of L along `direction` (theta + h d, theta - h d).
inline double directional_fd(Problem& p, const ParameterSet& params, const Eigen::VectorXd& d,
                             const Loss& loss, double h) {
  const Eigen::VectorXd theta = params.get(*p.sim, p.rollout);
  return (loss_at(p, params, theta + h * d, loss) - loss_at(p, params, theta - h * d, loss)) /
         (2 * h);
}

/// A random direction scaled to each parameter's magnitude (so that E ~ 1e4 and nu ~ 0.3 move
/// by comparable relative amounts), with fixed seed.
inline Eigen::VectorXd scaled_direction(const Eigen::VectorXd& theta, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::VectorXd d(theta.size());
  for (int i = 0; i < d.size(); ++i) d[i] = u(rng) * std::max(std::abs(theta[i]), 1e-2);
  return d;
}

}  // namespace softgrad::test
