// Inexact Newton (NewtonOptions::max_forcing): with the CG backends, directions solved only to
// Eisenstat-Walker forcing terms reach the solution that exact directions reach, to the same
// tolerance, with fewer CG iterations; the direct solver ignores the option.
#include <doctest/doctest.h>

#include "softgrad/trajectory.hpp"
#include "solvers/cpu/amg_preconditioner.hpp"
#include "support/tiny_models.hpp"

using namespace softgrad;
using namespace softgrad::test;

namespace {

constexpr int kSteps = 6;

struct Run {
  Eigen::VectorXd x;  ///< final positions
  int linear_iterations = 0;
  int newton_iterations = 0;
};

/// A clamped beam swinging down under gravity from rest, kSteps steps.
Run swing(const std::string& linear, double max_forcing, double newton_tolerance = 1e-9) {
  auto model = box_model("stable_neo_hookean", 1e5, 0.3, 1000.0, {8, 2, 2}, {0.8, 0.2, 0.2});
  add_gravity(*model, Eigen::Vector3d(0.0, -9.81, 0.0));
  fix_vertices(*model, vertices_at(*model, 0, 0.0), "clamp");
  SimulationOptions options;
  options.linear.kind = linear;
  options.newton.tolerance = newton_tolerance;
  options.newton.max_forcing = max_forcing;
  Simulator sim(model, options);
  RolloutRun run(sim, rest_rollout(sim, kSteps));
  Run out;
  while (!run.done()) {
    const NewtonReport& r = run.step();
    REQUIRE_MESSAGE(r.converged(), r.message);
    out.linear_iterations += r.linear_iterations;
    out.newton_iterations += r.iterations;
  }
  out.x = run.state().x;
  return out;
}

}  // namespace

TEST_CASE("integrator/inexact Newton: the exact directions' solution with fewer CG iterations") {
  const Run reference = swing("cholmod", 0.0, 1e-13);
  // Newton stops when |dx|_inf <= tol * L * dt (L: the box's diagonal, 0.849 m): each step's
  // end point is within about that of its exact minimiser, and the errors of kSteps steps add.
  const double step_tolerance = 1e-9 * std::sqrt(0.8 * 0.8 + 0.2 * 0.2 * 2) * 0.01;
  const double bound = kSteps * step_tolerance;
  for (const std::string linear : {"pcg", "amg", "matfree"}) {
    if (linear == "amg" && !amg_available()) continue;
    CAPTURE(linear);
    const Run exact = swing(linear, 0.0);
    const Run inexact = swing(linear, 0.1);
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
  const Run a = swing("cholmod", 0.0);
  const Run b = swing("cholmod", 0.5);
  CHECK(a.x == b.x);
  CHECK(a.newton_iterations == b.newton_iterations);
}
