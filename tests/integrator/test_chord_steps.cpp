// Chord steps (NewtonOptions::chord_window, chord_always_cost, chord_forcing): Newton directions
// from an earlier factorization (or, with CG, an earlier matrix and preconditioner) reach the
// solution Newton steps reach, to the tolerance, with fewer factorizations; where a
// factorization is expensive, and with CG, they follow every full step.
#include <doctest/doctest.h>

#include <cmath>

#include "softgrad/errors.hpp"
#include "softgrad/mesh_generators.hpp"
#include "solvers/cpu/amg_preconditioner.hpp"
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

TEST_CASE("integrator/chord steps: with CG, one matrix and preconditioner per step") {
  // pcg and amg keep the matrix and preconditioner of a full step for chord steps, solved by CG
  // to chord_forcing; each step ends within tol / (1 - chord_contraction) of its minimiser, up
  // to the chord directions' own error (a chord_forcing fraction of them).
  const BeamSwing reference = swing(1e-13, 0.0, 1e9);
  const double step_tolerance = 1e-9 * swinging_beam_diagonal() * 0.01;
  const double bound = kSteps * step_tolerance / (1.0 - 0.3);
  for (const std::string linear : {"pcg", "amg"}) {
    if (linear == "amg" && !amg_available()) continue;
    CAPTURE(linear);
    SimulationOptions options;
    options.linear.kind = linear;
    options.newton.chord_forcing = 0.0;
    const BeamSwing newton = swing_beam(options, kSteps);
    options.newton.chord_forcing = 0.03;
    const BeamSwing chord = swing_beam(options, kSteps);
    const double e_newton = (newton.x - reference.x).lpNorm<Eigen::Infinity>();
    const double e_chord = (chord.x - reference.x).lpNorm<Eigen::Infinity>();
    MESSAGE(linear << ": Hessians " << newton.factorizations << " -> " << chord.factorizations
                   << ", iterations " << newton.newton_iterations << " -> "
                   << chord.newton_iterations << ", CG " << newton.linear_iterations << " -> "
                   << chord.linear_iterations << "; errors " << e_newton << ", " << e_chord
                   << " m (bound " << bound << " m)");
    CHECK(e_newton <= bound);
    CHECK(e_chord <= bound);
    CHECK(newton.factorizations == newton.newton_iterations);
    // Every step's first iteration assembles a Hessian; the chord steps after it need none.
    CHECK(chord.factorizations < newton.factorizations);
    CHECK(chord.factorizations <= kSteps + kSteps / 2);
    CHECK(chord.linear_iterations < newton.linear_iterations);
  }
}

TEST_CASE(
    "integrator/chord steps: a chord forcing that is negative, 1 or more, or NaN is refused") {
  auto model = box_model("stable_neo_hookean", 1e5, 0.3, 1000.0, {1, 1, 1}, {0.1, 0.1, 0.1});
  SimulationOptions options;
  for (const double forcing : {-0.1, 1.0, std::nan("")}) {
    options.newton.chord_forcing = forcing;
    CHECK_THROWS_WITH_AS(Simulator(model, options),
                         "the chord forcing (a relative CG residual) must be in [0, 1)",
                         InputError);
  }
}
