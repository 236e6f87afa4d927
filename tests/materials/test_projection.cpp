/// @file test_projection.cpp
/// PSD-projected element Hessians of the isotropic density models against the eigen-solver's
/// projection of d^2 psi / dF^2: H_+ = V B^T A_+ B (B = dF/dx), at random, strongly deformed,
/// repeated-singular-value, near-degenerate and inverted states, 2D and 3D.
#include <doctest/doctest.h>

#include <Eigen/Eigenvalues>
#include <cmath>

#include "support/material_conformance.hpp"
#include "support/single_element.hpp"

using namespace softgrad;
using namespace softgrad::test;

namespace {

/// B = dF/dx (d^2 x (d+1) d, row-major vec of F) of the element: F_ij = sum_a x_ai G_aj.
Eigen::MatrixXd shape_derivative(const SingleElement& el) {
  const int d = el.dim;
  const Eigen::MatrixXd Dm_inv =
      unflat(Eigen::Map<const Eigen::VectorXd>(el.Dm_inv.data(), d * d), d);
  Eigen::MatrixXd G(d + 1, d);  // G_{a+1} = row a of Dm^{-1}, G_0 = -sum
  G.bottomRows(d) = Dm_inv;
  G.row(0) = -Dm_inv.colwise().sum();
  Eigen::MatrixXd B = Eigen::MatrixXd::Zero(d * d, (d + 1) * d);
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j)
      for (int a = 0; a <= d; ++a) B(i * d + j, a * d + i) = G(a, j);
  return B;
}

Eigen::MatrixXd eigen_projection(const Eigen::MatrixXd& A) {
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(A);
  return eig.eigenvectors() * eig.eigenvalues().cwiseMax(0.0).asDiagonal() *
         eig.eigenvectors().transpose();
}

/// Deformation gradients R diag(sigma) Q^T for the singular values in `sigmas`.
std::vector<Eigen::MatrixXd> states(int d, bool inversion) {
  std::vector<Eigen::VectorXd> sigmas;
  for (int k = 0; k < 6; ++k) {
    Eigen::VectorXd s(d);
    for (int i = 0; i < d; ++i) s[i] = uniform(k < 3 ? 0.8 : 0.3, k < 3 ? 1.25 : 3.0);
    sigmas.push_back(s);
  }
  Eigen::VectorXd repeated = Eigen::VectorXd::Constant(d, 1.3);
  repeated[d - 1] = 0.6;
  sigmas.push_back(repeated);                           // two equal, under compression
  sigmas.push_back(Eigen::VectorXd::Constant(d, 0.8));  // all equal
  Eigen::VectorXd close = Eigen::VectorXd::Constant(d, 0.7);
  close[0] += 1e-9;  // nearly equal
  sigmas.push_back(close);
  if (inversion) {
    Eigen::VectorXd inverted = Eigen::VectorXd::Constant(d, 1.1);
    inverted[d - 1] = -0.4;
    sigmas.push_back(inverted);
  }
  std::vector<Eigen::MatrixXd> out;
  for (const auto& s : sigmas)
    out.push_back(random_rotation(d) * s.asDiagonal() * random_rotation(d).transpose());
  return out;
}

}  // namespace

TEST_CASE("materials/projection: isotropic models project d2psi/dF2 as the eigen-solver does") {
  int projected = 0;
  for (const auto& m : density_models()) {
    if (!m->isotropic()) continue;
    for (int d : {2, 3}) {
      const int N = (d + 1) * d;
      for (const Eigen::MatrixXd& F : states(d, m->allows_inversion())) {
        INFO(m->name() << " in " << d << "D, F = " << F);
        SingleElement el(d, sample_params(*m));
        const Eigen::VectorXd x = el.deformed(F);
        RowMajor A(d * d, d * d);
        REQUIRE(m->stress_differential(d, flat(F).data(), el.params.data(), A.data()));
        const Eigen::MatrixXd B = shape_derivative(el);
        const Eigen::MatrixXd H = el.volume[0] * B.transpose() * A * B;
        const Eigen::MatrixXd H_ref = el.volume[0] * B.transpose() * eigen_projection(A) * B;
        RowMajor Hx(N, N), Hp(N, N);
        Eigen::VectorXd g(N);
        double E = 0.0;
        REQUIRE(m->hessian(el.batch(), x.data(), false, &E, g.data(), Hx.data()).ok());
        REQUIRE(m->hessian(el.batch(), x.data(), true, &E, g.data(), Hp.data()).ok());
        CHECK((Hx - H).norm() <= 1e-12 * H.norm());  // B is the kernels' dF/dx
        CHECK((Hp - H_ref).norm() <= 1e-12 * H.norm());
        CHECK((Hp - Hp.transpose()).norm() == 0.0);
        if ((Hp - Hx).norm() > 1e-10 * H.norm()) ++projected;
      }
    }
  }
  CHECK(projected >= 10);  // the comparison covers real projections, not only PSD states
}

TEST_CASE("materials/projection: every density model's projected Hessian is PSD") {
  for (const auto& m : density_models())
    for (int d : {2, 3})
      for (const Eigen::MatrixXd& F : states(d, m->allows_inversion())) {
        INFO(m->name() << " in " << d << "D, F = " << F);
        SingleElement el(d, sample_params(*m));
        const Eigen::VectorXd x = el.deformed(F);
        const int N = (d + 1) * d;
        RowMajor Hp(N, N);
        Eigen::VectorXd g(N);
        double E = 0.0;
        REQUIRE(m->hessian(el.batch(), x.data(), true, &E, g.data(), Hp.data()).ok());
        const Eigen::VectorXd ev = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(Hp).eigenvalues();
        CHECK(ev.minCoeff() >= -1e-12 * ev.cwiseAbs().maxCoeff());
      }
}
