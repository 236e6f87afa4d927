/// @file test_isotropic_projection.cpp
/// The pieces of the singular-frame PSD projection (ad/isotropic_projection.hpp, polar.hpp): the
/// 2D signed SVD, the 2 x 2 eigen-solver, the positive-definiteness test, and the removal of
/// negative modes, each against Eigen on random and degenerate inputs; and the element kernel that
/// projects two elements side by side against the one-element kernel.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <cmath>

#include "softgrad/detail/ad/hyperelastic.hpp"
#include "softgrad/detail/ad/isotropic_projection.hpp"
#include "softgrad/materials/mooney_rivlin.hpp"
#include "softgrad/materials/stable_neo_hookean.hpp"
#include "support/random.hpp"

namespace softgrad {
namespace {

using test::random_matrix;
using test::random_rotation;
using test::uniform;
using Mat2 = Mat<double, 2, 2>;

Mat2 to_mat(const Eigen::Matrix2d& m) {
  Mat2 out;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) out(i, j) = m(i, j);
  return out;
}

Eigen::Matrix2d to_eigen(const Mat2& m) {
  Eigen::Matrix2d out;
  out << m(0, 0), m(0, 1), m(1, 0), m(1, 1);
  return out;
}

/// Checks the conventions of the 2D signed SVD of F: rotations, ordering, sign, reconstruction.
void check_signed_svd(const Eigen::Matrix2d& F) {
  Mat2 U, V;
  double sigma[2];
  signed_svd(to_mat(F), U, sigma, V);
  const Eigen::Matrix2d Ue = to_eigen(U), Ve = to_eigen(V);
  const double scale = std::max(F.norm(), 1e-300);
  INFO("F = " << F);
  CHECK((Ue.transpose() * Ue - Eigen::Matrix2d::Identity()).norm() <= 1e-15);
  CHECK((Ve.transpose() * Ve - Eigen::Matrix2d::Identity()).norm() <= 1e-15);
  CHECK(Ue.determinant() == doctest::Approx(1.0).epsilon(1e-15));
  CHECK(Ve.determinant() == doctest::Approx(1.0).epsilon(1e-15));
  CHECK((Ue * Eigen::Vector2d(sigma[0], sigma[1]).asDiagonal() * Ve.transpose() - F).norm() <=
        1e-15 * scale);  // a few ulps
  CHECK(sigma[0] >= std::abs(sigma[1]) - 1e-15 * scale);
  if (std::abs(F.determinant()) > 1e-12 * scale * scale)
    CHECK((sigma[1] < 0.0) == (F.determinant() < 0.0));
  const Eigen::Vector2d reference = Eigen::JacobiSVD<Eigen::Matrix2d>(F).singularValues();
  CHECK(std::abs(sigma[0] - reference[0]) <= 1e-15 * scale);
  CHECK(std::abs(std::abs(sigma[1]) - reference[1]) <= 1e-15 * scale);
}

/// The PSD projection of a symmetric matrix by Eigen's eigen-solver (the reference).
Eigen::MatrixXd eigen_projection(const Eigen::MatrixXd& A) {
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(A);
  return eig.eigenvectors() * eig.eigenvalues().cwiseMax(0.0).asDiagonal() *
         eig.eigenvectors().transpose();
}

}  // namespace

TEST_CASE("ad/isotropic: the 2D signed SVD on random, inverted and degenerate F") {
  for (int k = 0; k < 200; ++k) check_signed_svd(random_matrix(2, 2));
  for (int k = 0; k < 20; ++k) {
    const Eigen::Matrix2d R = random_rotation(2), Q = random_rotation(2);
    check_signed_svd(R * Eigen::Vector2d(1.5, -0.3).asDiagonal() * Q.transpose());   // inverted
    check_signed_svd(R * Eigen::Vector2d(0.7, 0.7).asDiagonal() * Q.transpose());    // repeated
    check_signed_svd(R * Eigen::Vector2d(2.0, 1e-12).asDiagonal() * Q.transpose());  // flat
    check_signed_svd(1e-150 * random_matrix(2, 2));
    check_signed_svd(1e150 * random_matrix(2, 2));
  }
  Eigen::Matrix2d traceless_symmetric;  // polar angle undefined: R = I
  traceless_symmetric << 0.3, 0.8, 0.8, -0.3;
  check_signed_svd(traceless_symmetric);
  check_signed_svd(Eigen::Matrix2d::Zero());
  check_signed_svd(-Eigen::Matrix2d::Identity());  // a rotation by pi
}

TEST_CASE("ad/isotropic: the 2 x 2 eigen-solver matches Eigen's") {
  for (int k = 0; k < 200; ++k) {
    const double a = uniform(-1, 1), b = k % 10 == 0 ? 0.0 : uniform(-1, 1), c = uniform(-1, 1);
    double lambda[2], cs = 0, sn = 0;
    detail::symmetric_eigen_2x2(a, b, c, lambda, cs, sn);
    Eigen::Matrix2d A;
    A << a, b, b, c;
    const Eigen::Vector2d ev = Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d>(A).eigenvalues();
    CHECK(lambda[0] == doctest::Approx(ev[1]).epsilon(1e-14).scale(1.0));
    CHECK(lambda[1] == doctest::Approx(ev[0]).epsilon(1e-14).scale(1.0));
    const Eigen::Vector2d v(cs, sn);
    CHECK(v.norm() == doctest::Approx(1.0).epsilon(1e-15));
    CHECK((A * v - lambda[0] * v).norm() <= 1e-15 * (A.norm() + 1.0));
  }
}

TEST_CASE("ad/isotropic: positive_definite agrees with the smallest eigenvalue") {
  int definite = 0, indefinite = 0;
  for (int k = 0; k < 400; ++k) {
    const Eigen::MatrixXd M = random_matrix(9, 9);
    const Eigen::MatrixXd S = M.transpose() * M;
    const double lowest = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(S).eigenvalues()[0];
    // Shift the spectrum so that its smallest eigenvalue is clearly positive or negative.
    const double target = (k % 2 == 0 ? 1.0 : -1.0) * uniform(1e-3, 1.0);
    const Eigen::MatrixXd A = S + (target - lowest) * Eigen::MatrixXd::Identity(9, 9);
    const Eigen::Matrix<double, 9, 9, Eigen::RowMajor> rows = A;
    CHECK(ad::positive_definite<9>(rows.data()) == (target > 0.0));
    (target > 0.0 ? definite : indefinite) += 1;
  }
  CHECK(definite > 100);
  CHECK(indefinite > 100);
  const double nan_matrix[4] = {NAN, 0.0, 0.0, 1.0};
  CHECK_FALSE(ad::positive_definite<2>(nan_matrix));
}

TEST_CASE("ad/isotropic: removing the negative modes of a singular-frame Hessian") {
  // A' with the block structure of an isotropic density at diag(sigma), random blocks with
  // negative eigenvalues, rotated by random U, V: the projection must equal the eigen-solver's.
  for (int d : {2, 3}) {
    const int D = d * d;
    for (int k = 0; k < 50; ++k) {
      Eigen::MatrixXd Ap = Eigen::MatrixXd::Zero(D, D);
      const Eigen::MatrixXd S = random_matrix(d, d);
      for (int i = 0; i < d; ++i)
        for (int j = 0; j < d; ++j) Ap(i * d + i, j * d + j) = S(i, j) + S(j, i);
      for (int i = 0; i < d; ++i)
        for (int j = i + 1; j < d; ++j) {
          const int ij = i * d + j, ji = j * d + i;
          Ap(ij, ij) = uniform(-1, 1);
          Ap(ji, ji) = k % 2 == 0 ? Ap(ij, ij) : uniform(-1, 1);  // equal for a true density
          Ap(ij, ji) = Ap(ji, ij) = uniform(-1, 1);
        }
      const Eigen::MatrixXd Ue = random_rotation(d), Ve = random_rotation(d);
      Eigen::MatrixXd Q(D, D);  // vec(U dF' V^T) = Q vec(dF'), row-major vec
      for (int i = 0; i < d; ++i)
        for (int j = 0; j < d; ++j)
          for (int a = 0; a < d; ++a)
            for (int b = 0; b < d; ++b) Q(i * d + j, a * d + b) = Ue(i, a) * Ve(j, b);
      const Eigen::MatrixXd A = Q * Ap * Q.transpose();
      Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> out = A, rows_p = Ap;
      if (d == 2) {
        Mat<double, 2, 2> U, V;
        for (int k2 = 0; k2 < 4; ++k2) U.a[k2] = Ue(k2 / 2, k2 % 2), V.a[k2] = Ve(k2 / 2, k2 % 2);
        ad::clamp_negative_modes<2>(U, V, rows_p.data(), out.data());
      } else {
        Mat<double, 3, 3> U, V;
        for (int k2 = 0; k2 < 9; ++k2) U.a[k2] = Ue(k2 / 3, k2 % 3), V.a[k2] = Ve(k2 / 3, k2 % 3);
        ad::clamp_negative_modes<3>(U, V, rows_p.data(), out.data());
      }
      INFO(d << "D, case " << k);
      CHECK((out - eigen_projection(A)).norm() <= 1e-14 * A.norm());
      CHECK((out - out.transpose()).norm() == 0.0);
    }
  }
}

/// ad::projected_element_hessians<Material, 2> (one group of two lanes) and <Material, 4> (two
/// pipelined groups, the second one short) against ad::element_hessian with projection, one
/// element at a time, on element pairs in every combination of states: the lanes run the same
/// arithmetic, so the results agree to round-off (bit for bit without fused multiply-adds).
template <class Material>
void check_projected_pairs(const std::vector<double>& params) {
  using Mat3 = Mat<double, 3, 3>;
  std::vector<Eigen::Matrix3d> Fs;
  for (int k = 0; k < 6; ++k) {
    Fs.push_back(
        random_rotation(3) *
        Eigen::Vector3d(uniform(0.8, 1.25), uniform(0.8, 1.25), uniform(0.8, 1.25)).asDiagonal() *
        random_rotation(3).transpose());
  }
  Fs.push_back(random_rotation(3) * Eigen::Vector3d(1.5, 1.0, 1e-5).asDiagonal());  // fallback
  Fs.push_back(Eigen::Matrix3d::Identity());
  Fs.push_back(random_rotation(3) * Eigen::Vector3d(1.1, 0.9, -0.4).asDiagonal());  // inverted
  const auto shape = [] {
    Eigen::Matrix3d Dm = Eigen::Matrix3d::Identity() + 0.2 * random_matrix(3, 3);
    if (Dm.determinant() < 0.5) Dm = Eigen::Matrix3d::Identity();
    const Eigen::Matrix3d inv = Dm.inverse();
    Mat3 inv_rows;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) inv_rows(i, j) = inv(i, j);
    return std::make_pair(ad::element_shape<3>(inv_rows.a, Dm.determinant() / 6.0), Dm);
  };
  int projected = 0;
  for (size_t a = 0; a < Fs.size(); ++a)
    for (size_t b = 0; b < Fs.size(); ++b) {
      INFO("states " << a << " and " << b);
      ad::ElementShape<3> shapes[2];
      double x[2][12];
      for (int l = 0; l < 2; ++l) {
        const auto [s, Dm] = shape();
        shapes[l] = s;
        const Eigen::Matrix3d& F = Fs[l == 0 ? a : b];
        for (int v = 0; v < 4; ++v) {
          const Eigen::Vector3d X =
              v == 0 ? Eigen::Vector3d::Zero() : Eigen::Vector3d(Dm.col(v - 1));
          const Eigen::Vector3d y = F * X + Eigen::Vector3d::Constant(0.3);
          for (int i = 0; i < 3; ++i) x[l][v * 3 + i] = y[i];
        }
      }
      double E[2], g[2][12], H[2][144];
      const double* xs[2] = {x[0], x[1]};
      const double* ps[2] = {params.data(), params.data()};
      double* gs[2] = {g[0], g[1]};
      double* Hs[2] = {H[0], H[1]};
      ad::ElementStatus status[2];
      ad::projected_element_hessians<Material, 2>(shapes, xs, ps, 2, E, gs, Hs, status);
      // Two pipelined groups of two, the second one short: elements 0, 1, 1.
      const int order[4] = {0, 1, 1, 0};
      ad::ElementShape<3> shapes4[4];
      const double* xs4[4];
      const double* ps4[4];
      double E4[4], g4[4][12], H4[4][144];
      double* gs4[4];
      double* Hs4[4];
      for (int k = 0; k < 4; ++k) {
        shapes4[k] = shapes[order[k]];
        xs4[k] = x[order[k]];
        ps4[k] = params.data();
        gs4[k] = g4[k];
        Hs4[k] = H4[k];
      }
      ad::ElementStatus status4[4];
      ad::projected_element_hessians<Material, 4>(shapes4, xs4, ps4, 3, E4, gs4, Hs4, status4);
      for (int l = 0; l < 2; ++l) {
        double E1 = 0.0, g1[12], H1[144], E0 = 0.0, g0[12], H0[144];
        const ad::ElementStatus alone =
            ad::element_hessian<Material, 3>(shapes[l], x[l], params.data(), true, E1, g1, H1);
        REQUIRE(status[l] == alone);
        for (int k = 0; k < 3; ++k)
          if (order[k] == l) REQUIRE(status4[k] == alone);
        if (alone != ad::ElementStatus::Ok) continue;
        REQUIRE(ad::element_hessian<Material, 3>(shapes[l], x[l], params.data(), false, E0, g0,
                                                 H0) == ad::ElementStatus::Ok);
        const Eigen::Map<const Eigen::VectorXd> lanes(H[l], 144), one(H1, 144), exact(H0, 144);
        CHECK(E[l] == E1);
        CHECK(Eigen::Map<const Eigen::VectorXd>(g[l], 12) ==
              Eigen::Map<const Eigen::VectorXd>(g1, 12));
        CHECK((lanes - one).norm() <= 1e-14 * exact.norm());
        for (int k = 0; k < 3; ++k) {
          if (order[k] != l) continue;
          CHECK(E4[k] == E1);
          CHECK((Eigen::Map<const Eigen::VectorXd>(H4[k], 144) - one).norm() <=
                1e-14 * exact.norm());
        }
        if ((one - exact).norm() > 1e-10 * exact.norm()) ++projected;
      }
    }
  CHECK(projected > 10);
}

TEST_CASE("ad/isotropic: two elements projected side by side are each projected as alone") {
  check_projected_pairs<StableNeoHookean>({1e6, 0.45});  // allows inversion
  check_projected_pairs<MooneyRivlin>({2e5, 5e4, 1e6});  // uses II_C; forbids inversion
}

}  // namespace softgrad
