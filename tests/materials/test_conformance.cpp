// Density-level conformance of every registered hyperelastic model, 2D and 3D.
#include <doctest/doctest.h>

#include <cmath>

#include "support/finite_difference.hpp"
#include "support/material_conformance.hpp"

using namespace softgrad;
using namespace softgrad::test;

namespace {
constexpr int kSamples = 4;
}

TEST_CASE("materials/conformance: zero energy and zero stress at rest") {
  for (const auto& m : density_models())
    for (int d : {2, 3}) {
      INFO(m->name() << " in " << d << "D");
      const auto p = sample_params(*m);
      const Eigen::VectorXd I = flat(Eigen::MatrixXd::Identity(d, d));
      CHECK(std::abs(psi(*m, d, I, p)) <= 1e-12 * p[0]);
      CHECK(stress(*m, d, I, p).norm() <= 1e-12 * p[0]);
    }
}

TEST_CASE("materials/conformance: energy is invariant under rotations") {
  for (const auto& m : density_models()) {
    if (!m->frame_indifferent()) continue;  // linear elasticity, documented
    for (int d : {2, 3})
      for (int s = 0; s < kSamples; ++s) {
        INFO(m->name() << " in " << d << "D, sample " << s);
        const auto p = sample_params(*m);
        const Eigen::MatrixXd F = random_deformation(d, 0.5, 2.0);
        const Eigen::MatrixXd Q = random_rotation(d);
        const double a = psi(*m, d, flat(F), p);
        const double b = psi(*m, d, flat(Q * F), p);
        CHECK(std::abs(a) > 0.0);
        CHECK(b == doctest::Approx(a).epsilon(1e-10));
      }
  }
}

TEST_CASE("materials/conformance: linear elasticity is not rotation invariant (documented)") {
  const auto m = find_material("linear");
  CHECK_FALSE(m->frame_indifferent());
  const std::vector<double> p{1e5, 0.3};
  const Eigen::MatrixXd Q = random_rotation(3);
  // A rigid rotation strains a linear-elastic body: the known artefact.
  CHECK(psi(*m, 3, flat(Q), p) > 1.0);
}

TEST_CASE("materials/conformance: stress matches central differences of the energy") {
  for (const auto& m : density_models())
    for (int d : {2, 3})
      for (double spread : {0.1, 2.0})  // well-shaped and strongly deformed states
        for (int s = 0; s < kSamples; ++s) {
          INFO(m->name() << " in " << d << "D, spread " << spread << ", sample " << s);
          const auto p = sample_params(*m);
          const Eigen::VectorXd F = flat(random_deformation(d, 1.0 / (1.0 + spread), 1.0 + spread));
          const Eigen::VectorXd P = stress(*m, d, F, p);
          const Eigen::VectorXd fd =
              fd_gradient([&](const Eigen::VectorXd& G) { return psi(*m, d, G, p); }, F);
          CHECK(P.norm() > 0.0);
          CHECK(close(P, fd, 1e-6, 1e-9 * p[0]));
        }
}

TEST_CASE("materials/conformance: dP/dF matches differences of P and is symmetric") {
  for (const auto& m : density_models())
    for (int d : {2, 3})
      for (double spread : {0.1, 2.0})
        for (int s = 0; s < kSamples; ++s) {
          INFO(m->name() << " in " << d << "D, spread " << spread << ", sample " << s);
          const auto p = sample_params(*m);
          const Eigen::VectorXd F = flat(random_deformation(d, 1.0 / (1.0 + spread), 1.0 + spread));
          const RowMajor A = stress_differential(*m, d, F, p);
          const Eigen::MatrixXd fd =
              fd_jacobian([&](const Eigen::VectorXd& G) { return stress(*m, d, G, p); }, F);
          CHECK(close(A.reshaped(), fd.reshaped(), 1e-6, 1e-9 * p[0]));
          CHECK((A - A.transpose()).norm() <= 1e-14 * A.norm());
        }
}

TEST_CASE("materials/conformance: small-strain limit equals linear elasticity") {
  for (const auto& m : density_models())
    for (int d : {2, 3}) {
      INFO(m->name() << " in " << d << "D");
      const double youngs = 2e5, poisson = 0.3;
      const auto p = params_from_youngs_poisson(*m, youngs, poisson);
      const double mu = lame_mu(youngs, poisson), lambda = lame_lambda(youngs, poisson);
      const double eps = 1e-7;
      const Eigen::MatrixXd G = random_matrix(d, d);
      const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(d, d);
      const Eigen::MatrixXd strain = 0.5 * eps * (G + G.transpose());
      const Eigen::MatrixXd sigma = 2 * mu * strain + lambda * strain.trace() * I;
      const Eigen::VectorXd P = stress(*m, d, flat(I + eps * G), p);
      CHECK(close(P, flat(sigma), 1e-5));
    }
}

TEST_CASE("materials/conformance: log-based models report inverted elements") {
  for (const auto& m : density_models()) {
    if (m->allows_inversion()) continue;
    for (int d : {2, 3}) {
      INFO(m->name() << " in " << d << "D");
      const auto p = sample_params(*m);
      Eigen::MatrixXd F = Eigen::MatrixXd::Identity(d, d);
      F(0, 0) = -0.5;  // reflected: det F < 0
      double value = 0.0;
      Eigen::VectorXd P(d * d);
      CHECK_FALSE(m->density(d, flat(F).data(), p.data(), value));
      CHECK_FALSE(m->stress(d, flat(F).data(), p.data(), P.data()));
      F(0, 0) = 0.0;  // degenerate: det F = 0
      CHECK_FALSE(m->density(d, flat(F).data(), p.data(), value));
    }
  }
}

TEST_CASE("materials/conformance: stable Neo-Hookean stays finite for det F <= 0") {
  const auto m = find_material("stable_neo_hookean");
  CHECK(m->allows_inversion());
  for (int d : {2, 3})
    for (double first : {0.0, -0.5, -2.0}) {
      INFO(d << "D, F_00 = " << first);
      const auto p = sample_params(*m);
      Eigen::MatrixXd F = random_deformation(d, 0.8, 1.2);
      F.row(0) *= first;
      const Eigen::VectorXd f = flat(F);
      CHECK(std::isfinite(psi(*m, d, f, p)));
      CHECK(stress(*m, d, f, p).allFinite());
      CHECK(stress_differential(*m, d, f, p).allFinite());
      const Eigen::VectorXd fd =
          fd_gradient([&](const Eigen::VectorXd& G) { return psi(*m, d, G, p); }, f);
      CHECK(close(stress(*m, d, f, p), fd, 1e-6, 1e-9 * p[0]));
    }
}
