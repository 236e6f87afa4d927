// Static solves against analytic solutions: a cantilever under self-weight against
// Euler-Bernoulli beam theory, and a Neo-Hookean block in homogeneous uniaxial stress.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <array>
#include <cmath>
#include <vector>

#include "softgrad/material.hpp"
#include "softgrad/simulator.hpp"
#include "support/tiny_models.hpp"

using namespace softgrad;
using namespace softgrad::test;

namespace {

// ---------------------------------------------------------------------------------------------
// Cantilever: a beam [0, L] x [0, a] x [0, a] of linear material with Poisson's ratio 0, clamped
// at x = 0, under its own weight q = rho g a^2 per length. Euler-Bernoulli: the tip deflects by
// delta = q L^4 / (8 E I), I = a^4 / 12. With L/a = 10 shear (Timoshenko) adds about 0.8 %.
constexpr double kBeamLength = 1.0;
constexpr double kBeamSide = 0.1;
constexpr double kBeamYoungs = 5e9;  // delta / L = 2.9e-4: small deflection
constexpr double kBeamDensity = 1000.0;
constexpr double kGravity = 9.81;

double euler_bernoulli_tip_deflection() {
  const double q = kBeamDensity * kGravity * kBeamSide * kBeamSide;
  const double I = std::pow(kBeamSide, 4) / 12.0;
  return q * std::pow(kBeamLength, 4) / (8.0 * kBeamYoungs * I);
}

/// Relative error of the FEM tip deflection (mean downward displacement of the x = L face)
/// against Euler-Bernoulli, on an nx x n x n mesh; the deflection itself goes to `delta_out`.
double cantilever_error(int nx, int n, double* delta_out = nullptr) {
  auto model = box_model("linear", kBeamYoungs, 0.0, kBeamDensity, {nx, n, n},
                         {kBeamLength, kBeamSide, kBeamSide});
  add_gravity(*model, Eigen::Vector3d(0.0, 0.0, -kGravity));
  fix_vertices(*model, vertices_at(*model, 0, 0.0), "clamp");
  Simulator sim(model, SimulationOptions{});
  State s = sim.rest_state();
  const NewtonReport r = sim.solve_static(s);
  REQUIRE_MESSAGE(r.converged(), r.message);
  const std::vector<int> tip = vertices_at(*model, 0, kBeamLength);
  double dz = 0.0;
  for (int v : tip) dz += s.x[v * 3 + 2] - model->X[v * 3 + 2];
  const double delta = -dz / static_cast<double>(tip.size());
  const double exact = euler_bernoulli_tip_deflection();
  MESSAGE("cantilever " << nx << "x" << n << "x" << n << ": tip deflection " << delta
                        << " m, Euler-Bernoulli " << exact << " m, relative error "
                        << (delta - exact) / exact);
  CHECK(delta > 0.0);
  if (delta_out) *delta_out = delta;
  return std::abs(delta - exact) / exact;
}

// ---------------------------------------------------------------------------------------------
// Uniaxial stress in a compressible Neo-Hookean solid,
//   P(F) = mu (F - F^-T) + lambda log J F^-T,
// for F = diag(s, t, t): the lateral stretch t solves P_22 = 0, i.e.
//   f(t) = mu (t^2 - 1) + lambda log(s t^2) = 0   (P_22 times t; f increasing in t).
struct UniaxialStress {
  double lateral;  ///< t
  double P11;      ///< axial first Piola-Kirchhoff stress [Pa]
};

UniaxialStress neo_hookean_uniaxial(double s, double mu, double lambda) {
  double t = 1.0;
  for (int k = 0; k < 50; ++k) {
    const double f = mu * (t * t - 1.0) + lambda * std::log(s * t * t);
    const double df = 2.0 * mu * t + 2.0 * lambda / t;
    const double dt = -f / df;
    t += dt;
    if (std::abs(dt) <= 1e-15 * t) break;
  }
  const double J = s * t * t;
  const double residual = mu * (t - 1.0 / t) + lambda * std::log(J) / t;
  REQUIRE(std::abs(residual) <= 1e-12 * mu);
  return {t, mu * (s - 1.0 / s) + lambda * std::log(J) / s};
}

}  // namespace

TEST_CASE("integrator/static: cantilever tip deflection converges to Euler-Bernoulli") {
  // Linear tetrahedra lock in bending, so coarse meshes are too stiff (the deflection is below
  // theory) and the error must shrink with every refinement. Cubic cells of side h = a / n:
  // measured (Release) -44.5 % for 20x2x2 and -16.9 % for 40x4x4 (0.55 s together).
  const double e1 = cantilever_error(20, 2);
  const double e2 = cantilever_error(40, 4);
  CHECK(e2 < e1);
  CHECK(e2 <= 0.2);
}

TEST_CASE("integrator/static: cantilever on a fine mesh is within a few percent of theory" *
          doctest::test_suite("slow")) {
  // Measured (Release): -16.9 % for 40x4x4 and -4.4 % for 80x8x8 (about 5 s). The error falls
  // about 4x per halving (second order), so Richardson extrapolation of the two,
  // (4 d_fine - d_coarse) / 3, lands within 0.2 % of Euler-Bernoulli (shear adds ~0.8 %).
  double delta_coarse = 0.0, delta_fine = 0.0;
  const double e2 = cantilever_error(40, 4, &delta_coarse);
  const double e3 = cantilever_error(80, 8, &delta_fine);
  CHECK(e3 < e2);
  CHECK(e3 <= 0.05);
  const double extrapolated = (4.0 * delta_fine - delta_coarse) / 3.0;
  const double exact = euler_bernoulli_tip_deflection();
  CHECK(std::abs(extrapolated - exact) <= 0.02 * exact);
}

TEST_CASE("integrator/static: Neo-Hookean block in uniaxial stress matches the closed form") {
  const double youngs = 1e6, poisson = 0.3;
  const double mu = lame_mu(youngs, poisson), lambda = lame_lambda(youngs, poisson);
  for (const double stretch : {0.7, 0.9, 1.2, 1.5}) {
    CAPTURE(stretch);
    const UniaxialStress exact = neo_hookean_uniaxial(stretch, mu, lambda);
    const Eigen::Matrix3d F = Eigen::Vector3d(stretch, exact.lateral, exact.lateral).asDiagonal();
    // The unit cube centred at the origin; every boundary vertex is driven to F X by a
    // translation of velocity (F X - X) / T over T = 1 s, and the solve is at t = T.
    auto model = box_model("neo_hookean", youngs, poisson, 1000.0, {4, 4, 4}, {1.0, 1.0, 1.0},
                           {-0.5, -0.5, -0.5});
    std::vector<char> on_boundary(model->n_verts, 0);
    for (int axis = 0; axis < 3; ++axis)
      for (double side : {-0.5, 0.5})
        for (int v : vertices_at(*model, axis, side)) on_boundary[v] = 1;
    for (int v = 0; v < model->n_verts; ++v) {
      if (!on_boundary[v]) continue;
      KinematicGroup g;
      g.verts = {v};
      g.motion = KinematicGroup::Motion::Translate;
      const Eigen::Vector3d X = rest_position(*model, v);
      g.velocity = F * X - X;
      model->kinematic.push_back(g);
    }
    SimulationOptions opt;
    opt.newton.tolerance = 1e-12;
    Simulator sim(model, opt);
    State s = sim.rest_state();  // interior vertices start at rest
    s.t = 1.0;
    const NewtonReport r = sim.solve_static(s);
    REQUIRE_MESSAGE(r.converged(), r.message);

    // A homogeneous deformation is an exact finite-element solution.
    const Eigen::VectorXd x_exact = affine_positions(*model, F, Eigen::Vector3d::Zero());
    const double position_error = (s.x - x_exact).lpNorm<Eigen::Infinity>();
    CHECK(position_error <= 1e-8 * model->length_scale());

    // Reaction on the x = +1/2 face: sum of dW/dx_x = P_11 A0 (A0 = 1 m^2); the lateral faces
    // carry no net normal force (P_22 = P_33 = 0).
    const Eigen::VectorXd g = potential_gradient(*model, s.x);
    const auto face_force = [&](int axis, double side) {
      double f = 0.0;
      for (int v : vertices_at(*model, axis, side)) f += g[v * 3 + axis];
      return f;
    };
    const double reaction = face_force(0, 0.5);
    MESSAGE("stretch " << stretch << ": lateral stretch " << exact.lateral << ", P11 A0 "
                       << exact.P11 << " N, reaction relative error "
                       << (reaction - exact.P11) / exact.P11 << ", position error "
                       << position_error << " m");
    CHECK(std::abs(reaction - exact.P11) <= 1e-6 * std::abs(exact.P11));
    CHECK(std::abs(face_force(0, -0.5) + exact.P11) <= 1e-6 * std::abs(exact.P11));
    CHECK(std::abs(face_force(1, 0.5)) <= 1e-6 * std::abs(exact.P11));
    CHECK(std::abs(face_force(2, -0.5)) <= 1e-6 * std::abs(exact.P11));
  }
}
