// Inexact Newton (NewtonOptions::max_forcing): with the CG backends, directions solved only to
// Eisenstat-Walker forcing terms reach the solution that exact directions reach, to the same
// tolerance, with fewer CG iterations; the direct solver ignores the option.
#include <doctest/doctest.h>

#include "solvers/cpu/amg_preconditioner.hpp"
#include "support/swinging_beam.hpp"

using namespace softgrad;
using namespace softgrad::test;

namespace {

constexpr int kSwingSteps = 6;

/// The swinging beam, kSwingSteps steps, with the linear solver `linear`; Newton steps only (no
/// chord steps, test_chord_steps.cpp), so that every direction is solved to its forcing term.
BeamSwing swing(const std::string& linear, double max_forcing, double newton_tolerance = 1e-9) {
  SimulationOptions options;
  options.linear.kind = linear;
  options.newton.tolerance = newton_tolerance;
  options.newton.max_forcing = max_forcing;
  options.newton.chord_forcing = 0.0;
  return swing_beam(options, kSwingSteps);
}

}  // namespace

TEST_CASE("integrator/inexact Newton: the exact directions' solution with fewer CG iterations") {
  const BeamSwing reference = swing("cholmod", 0.0, 1e-13);
  // Newton stops when |dx|_inf <= tol * L * dt (L: the box's diagonal, 0.849 m): each step's
  // end point is within about that of its exact minimiser, and the errors of kSwingSteps steps add.
  const double step_tolerance = 1e-9 * swinging_beam_diagonal() * 0.01;
  const double bound = kSwingSteps * step_tolerance;
  for (const std::string linear : {"pcg", "amg", "matfree"}) {
    if (linear == "amg" && !amg_available()) continue;
    CAPTURE(linear);
    const BeamSwing exact = swing(linear, 0.0);
    const BeamSwing inexact = swing(linear, 0.1);
    const double exact_error = (exact.x - reference.x).lpNorm<Eigen::Infinity>();
    const double inexact_error = (inexact.x - reference.x).lpNorm<Eigen::Infinity>();
    MESSAGE(linear << ": CG iterations " << exact.linear_iterations << " exact, "
                   << inexact.linear_iterations << " inexact (Newton " << exact.newton_iterations
                   << ", " << inexact.newton_iterations << "); errors " << exact_error << ", "
                   << inexact_error << " m (bound " << bound << " m)");
    CHECK(exact_error <= bound);
    CHECK(inexact_error <= bound);
    CHECK(inexact.linear_iterations < exact.linear_iterations);
  }
}

TEST_CASE("integrator/inexact Newton: a direct solver's run does not depend on max_forcing") {
  const BeamSwing a = swing("cholmod", 0.0);
  const BeamSwing b = swing("cholmod", 0.5);
  CHECK(a.x == b.x);
  CHECK(a.newton_iterations == b.newton_iterations);
}
