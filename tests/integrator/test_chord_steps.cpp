// Chord steps (NewtonOptions::chord_window, chord_always_cost): Newton directions from an
// earlier factorization reach the solution Newton steps reach, to the tolerance, with fewer
// factorizations; where a factorization is expensive they follow every full step.
#include <doctest/doctest.h>

#include <cmath>

#include "softgrad/mesh_generators.hpp"
#include "solvers/cpu/cholmod_solver.hpp"
#include "support/swinging_beam.hpp"

using namespace softgrad;
using namespace softgrad::test;

namespace {

constexpr int kSteps = 8;

/// The swinging beam, kSteps steps with CHOLMOD.
BeamSwing swing(double tolerance, double chord_window, double chord_always_cost) {
  SimulationOptions options;
  options.linear.kind = "cholmod";
  options.newton.tolerance = tolerance;
  options.newton.chord_window = chord_window;
  options.newton.chord_always_cost = chord_always_cost;
  return swing_beam(options, kSteps);
}

}  // namespace

TEST_CASE(
    "integrator/chord steps: after every full step, the Newton solution, fewer factorizations") {
  const BeamSwing reference = swing(1e-13, 0.0, 1e9);
  // Each step ends within tol * L * dt / (1 - chord_contraction) of its minimiser (L: the box's
  // diagonal), and the errors of kSteps steps add.
  const double step_tolerance = 1e-9 * swinging_beam_diagonal() * 0.01;
  const double bound = kSteps * step_tolerance / (1.0 - 0.3);
  const BeamSwing newton = swing(1e-9, 0.0, 1e9);  // no chord steps
  const BeamSwing always = swing(1e-9, 1e4, 0.0);  // chord steps after every full step
  for (const BeamSwing* run : {&newton, &always}) {
    const double error = (run->x - reference.x).lpNorm<Eigen::Infinity>();
    MESSAGE("factorizations " << run->factorizations << ", iterations " << run->newton_iterations
                              << ", error " << error << " m (bound " << bound << " m)");
    CHECK(error <= bound);
  }
  CHECK(newton.factorizations == newton.newton_iterations);
  CHECK(always.factorizations < newton.factorizations);
  // The first step of each solve is a Newton step; with chord steps after it, most solves need
  // no second factorization.
  CHECK(always.factorizations <= kSteps + kSteps / 2);
}

TEST_CASE(
    "integrator/chord steps: chord_always_cost compares with the solver's factorization cost") {
  // The same runs with the threshold just above and just below this beam's factorization cost
  // (CHOLMOD's flops over a solve's): only the second tries chord steps after long steps.
  // The beam's Hessian pattern: a 3x3 block for every two vertices of a tet.
  const Mesh mesh = box_tet_mesh(8, 2, 2, Eigen::Vector3d(0.8, 0.2, 0.2), Eigen::Vector3d::Zero());
  std::vector<Eigen::Triplet<double>> entries;
  for (int e = 0; e < mesh.n_elems(); ++e)
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b)
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            entries.emplace_back(3 * mesh.elems(e, a) + i, 3 * mesh.elems(e, b) + j,
                                 a == b && i == j ? 10.0 : 0.1);
  SparseMatrix pattern(mesh.n_dofs(), mesh.n_dofs());
  pattern.setFromTriplets(entries.begin(), entries.end());
  CholmodSolver solver;
  solver.analyze(pattern);
  const double cost = solver.factorization_cost_in_solves();
  MESSAGE("this beam's factorization costs " << cost << " solves");
  REQUIRE(cost > 1.0);
  const BeamSwing above = swing(1e-9, 1e4, 1.01 * cost);
  const BeamSwing below = swing(1e-9, 1e4, 0.99 * cost);
  CHECK(below.factorizations < above.factorizations);
}
