// Adjoint gradients against central finite differences of the re-simulated loss.
#include <doctest/doctest.h>

#include "adjoint/gradient_check.hpp"

namespace softgrad::test {
namespace {

/// Checks dL/dtheta . d against the central difference along d, relative error < 1e-5.
void check_direction(Problem& p, const std::vector<std::string>& names, unsigned seed,
                     double h = 1e-4, const AdjointOptions& options = {}) {
  const auto loss = mixed_loss(p);
  const ParameterSet params(*p.sim, p.rollout, names);
  const Trajectory traj = simulate(*p.sim, p.rollout);
  const GradientResult g = gradient(*p.sim, traj, *loss, params, options);
  CHECK(g.report.trustworthy());
  const Eigen::VectorXd theta = params.get(*p.sim, p.rollout);
  const Eigen::VectorXd d = scaled_direction(theta, seed);
  const double adjoint = g.gradient.dot(d);
  const double fd = directional_fd(p, params, d, *loss, h);
  const double rel = std::abs(adjoint - fd) / std::max(std::abs(fd), 1e-300);
  MESSAGE(names.front() << ": adjoint " << adjoint << ", central difference " << fd
                        << ", relative error " << rel);
  CHECK(std::abs(fd) > 1e-8);
  CHECK(rel < 1e-5);
}

}  // namespace

TEST_CASE("adjoint: gradients match central differences, 2D and 3D, 24 steps") {
  for (int dim : {2, 3}) {
    INFO(dim << "D");
    Problem p = cantilever_problem(dim, 24);
    SUBCASE("initial velocity") { check_direction(p, {"v0"}, 1); }
    SUBCASE("initial position") { check_direction(p, {"x0"}, 2, 1e-3); }
    SUBCASE("Young's modulus") { check_direction(p, {"youngs"}, 3); }
    SUBCASE("Poisson's ratio") { check_direction(p, {"poisson"}, 4); }
    SUBCASE("per-element stiffness") { check_direction(p, {"youngs[]"}, 5); }
    SUBCASE("per-step forces") { check_direction(p, {"tip_force.force"}, 6, 1e-2); }
    SUBCASE("scripted vertices") { check_direction(p, {"kinematic"}, 7, 1e-4); }
    SUBCASE("damping") { check_direction(p, {"damping.alpha"}, 8); }
  }
}

}  // namespace softgrad::test
