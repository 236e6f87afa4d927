// AD against hand-derived stresses and stress differentials, and models with known answers.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <cmath>

#include "softgrad/detail/ad/hyperelastic.hpp"
#include "softgrad/detail/polar.hpp"
#include "softgrad/materials/neo_hookean.hpp"
#include "support/finite_difference.hpp"
#include "support/material_conformance.hpp"
#include "support/single_element.hpp"

using namespace softgrad;
using namespace softgrad::test;

namespace {

/// dP/dF applied to dF, from a flat row-major d^2 x d^2 matrix.
Eigen::MatrixXd apply(const RowMajor& A, const Eigen::MatrixXd& dF) {
  return unflat(A * flat(dF), static_cast<int>(dF.rows()));
}

/// Polar rotation by Eigen's SVD (an independent code path), det R = +1.
Eigen::MatrixXd polar_rotation(const Eigen::MatrixXd& F) {
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(F, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Eigen::MatrixXd U = svd.matrixU();
  const Eigen::MatrixXd V = svd.matrixV();
  if ((U * V.transpose()).determinant() < 0) U.col(F.rows() - 1) *= -1.0;
  return U * V.transpose();
}

/// Directional derivative of the polar rotation: 2D by the rotation angle, 3D by the closed
/// form W S + S W = R^T dF - dF^T R of polar.hpp.
Eigen::MatrixXd rotation_differential(const Eigen::MatrixXd& F, const Eigen::MatrixXd& dF) {
  const int d = static_cast<int>(F.rows());
  if (d == 2) {
    const double a = F(0, 0) + F(1, 1), b = F(1, 0) - F(0, 1);
    const double dtheta = (a * (dF(1, 0) - dF(0, 1)) - b * (dF(0, 0) + dF(1, 1))) / (a * a + b * b);
    const double theta = std::atan2(b, a);
    Eigen::Matrix2d dR;
    dR << -std::sin(theta), -std::cos(theta), std::cos(theta), -std::sin(theta);
    return dtheta * dR;
  }
  Mat<double, 3, 3> Fm, dFm, R, S;
  for (int k = 0; k < 9; ++k) {
    Fm.a[k] = F(k / 3, k % 3);
    dFm.a[k] = dF(k / 3, k % 3);
  }
  polar_decomposition(Fm, R, S);
  const Mat<double, 3, 3> dR = polar_rotation_differential(R, S, dFm);
  Eigen::Matrix3d out;
  for (int k = 0; k < 9; ++k) out(k / 3, k % 3) = dR.a[k];
  return out;
}

}  // namespace

TEST_CASE("materials/closed form: Neo-Hookean stress and its differential") {
  const auto m = find_material("neo_hookean");
  for (int d : {2, 3})
    for (int s = 0; s < 4; ++s) {
      INFO(d << "D sample " << s);
      const auto p = sample_params(*m);
      const double mu = lame_mu(p[0], p[1]), lambda = lame_lambda(p[0], p[1]);
      const Eigen::MatrixXd F = random_deformation(d, 0.5, 2.0);
      const Eigen::MatrixXd Finv = F.inverse();
      const double logJ = std::log(F.determinant());
      // P = mu (F - F^-T) + lambda log J F^-T
      const Eigen::MatrixXd P = mu * (F - Finv.transpose()) + lambda * logJ * Finv.transpose();
      CHECK(close(stress(*m, d, flat(F), p), flat(P), 1e-12));
      // dP = mu dF + lambda (F^-T : dF) F^-T + (mu - lambda log J) F^-T dF^T F^-T
      const RowMajor A = stress_differential(*m, d, flat(F), p);
      const Eigen::MatrixXd dF = random_matrix(d, d);
      const Eigen::MatrixXd FinvT = Finv.transpose();
      const Eigen::MatrixXd dP = mu * dF + lambda * (Finv * dF).trace() * FinvT +
                                 (mu - lambda * logJ) * FinvT * dF.transpose() * FinvT;
      CHECK(close(flat(apply(A, dF)), flat(dP), 1e-12));
    }
}

TEST_CASE("materials/closed form: Neo-Hookean invariant derivatives equal their AD") {
  static_assert(ad::HasInvariantDerivatives<NeoHookean>);
  const double p[2] = {3e4, 0.35};
  for (const double J : {0.4, 0.9, 1.0, 1.7}) {
    const double I[3] = {2.9 + J, 5.5, J};
    double psi = 0.0, dpsi[3], d2psi[9], psi_ad = 0.0, dpsi_ad[3], d2psi_ad[9];
    NeoHookean::psi_invariant_derivatives(I, p, psi, dpsi, d2psi);
    REQUIRE(ad::hessian<3, 2>(ad::InvariantDensityFunction<NeoHookean>{}, I, p, psi_ad, dpsi_ad,
                              d2psi_ad));
    CHECK(psi == doctest::Approx(psi_ad).epsilon(1e-14));
    for (int k = 0; k < 3; ++k) CHECK(dpsi[k] == doctest::Approx(dpsi_ad[k]).epsilon(1e-13));
    for (int k = 0; k < 9; ++k) CHECK(d2psi[k] == doctest::Approx(d2psi_ad[k]).epsilon(1e-13));
    double psi_g = 0.0, dpsi_g[3];
    NeoHookean::psi_invariant_derivatives(I, p, psi_g, dpsi_g, nullptr);
    CHECK(psi_g == psi);
    for (int k = 0; k < 3; ++k) CHECK(dpsi_g[k] == dpsi[k]);
  }
}

TEST_CASE("materials/closed form: corotated stress and its differential") {
  const auto m = find_material("corotated");
  for (int d : {2, 3})
    for (int s = 0; s < 4; ++s) {
      INFO(d << "D sample " << s);
      const auto p = sample_params(*m);
      const double mu = lame_mu(p[0], p[1]), lambda = lame_lambda(p[0], p[1]);
      const Eigen::MatrixXd F = random_deformation(d, 0.5, 2.0);
      const Eigen::MatrixXd R = polar_rotation(F);
      const double trS = (R.transpose() * F).trace();
      // P = 2 mu (F - R) + lambda (tr S - d) R
      const Eigen::MatrixXd P = 2 * mu * (F - R) + lambda * (trS - d) * R;
      CHECK(close(stress(*m, d, flat(F), p), flat(P), 1e-10));
      // dP = 2 mu (dF - dR) + lambda (R : dF) R + lambda (tr S - d) dR
      const Eigen::MatrixXd dF = random_matrix(d, d);
      const Eigen::MatrixXd dR = rotation_differential(F, dF);
      const Eigen::MatrixXd dP =
          2 * mu * (dF - dR) + lambda * (R.cwiseProduct(dF)).sum() * R + lambda * (trS - d) * dR;
      const RowMajor A = stress_differential(*m, d, flat(F), p);
      CHECK(close(flat(apply(A, dF)), flat(dP), 1e-9));
    }
}

TEST_CASE("materials/closed form: springs store youngs V (s - 1)^2 / 2 under dilation s") {
  const auto m = find_material("mass_spring");
  CHECK_FALSE(m->has_density());
  for (int d : {2, 3}) {
    SingleElement el(d, {3e4});
    const double V = el.volume[0];
    CHECK(m->energy(el.batch(), el.X.data()) == doctest::Approx(0.0).scale(1.0));
    for (double s : {0.5, 1.2, 2.0}) {
      const Eigen::MatrixXd F = s * random_rotation(d);  // dilation and rotation
      const double E = m->energy(el.batch(), el.deformed(F).data());
      CHECK(E == doctest::Approx(3e4 * V * (s - 1) * (s - 1) / 2).epsilon(1e-12));
    }
  }
}
