/// @file swinging_beam.hpp
/// A 0.8 x 0.2 x 0.2 m stable Neo-Hookean beam (E = 1e5 Pa) clamped at x = 0, swinging down
/// under gravity from rest: the Newton solver tests run it with different options and compare
/// where it ends and what the solves cost.
#pragma once

#include <doctest/doctest.h>

#include <Eigen/Core>
#include <cmath>

#include "softgrad/simulator.hpp"
#include "softgrad/trajectory.hpp"
#include "support/tiny_models.hpp"

namespace softgrad::test {

struct BeamSwing {
  Eigen::VectorXd x;  ///< final positions
  int newton_iterations = 0;
  int linear_iterations = 0;
  int factorizations = 0;
};

/// The beam's length scale in Newton's test |dx|_inf <= tol * L * dt: its bounding-box diagonal.
inline double swinging_beam_diagonal() { return std::sqrt(0.8 * 0.8 + 0.2 * 0.2 * 2); }

/// `steps` steps of the beam (8 x 2 x 2 cells) with `options`; every step must converge.
inline BeamSwing swing_beam(const SimulationOptions& options, int steps) {
  auto model = box_model("stable_neo_hookean", 1e5, 0.3, 1000.0, {8, 2, 2}, {0.8, 0.2, 0.2});
  add_gravity(*model, Eigen::Vector3d(0.0, -9.81, 0.0));
  fix_vertices(*model, vertices_at(*model, 0, 0.0), "clamp");
  Simulator sim(model, options);
  RolloutRun run(sim, rest_rollout(sim, steps));
  BeamSwing out;
  while (!run.done()) {
    const NewtonReport& r = run.step();
    REQUIRE_MESSAGE(r.converged(), r.message);
    out.newton_iterations += r.iterations;
    out.linear_iterations += r.linear_iterations;
    out.factorizations += r.factorizations;
  }
  out.x = run.state().x;
  return out;
}

}  // namespace softgrad::test
