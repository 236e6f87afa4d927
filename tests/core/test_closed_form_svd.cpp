/// @file test_closed_form_svd.cpp
/// Tests of softgrad/detail/closed_form_svd.hpp: the closed-form symmetric eigen-decomposition
/// against Eigen's solver, the signed SVD from F^T F against polar.hpp's signed_svd (random,
/// inverted, repeated, nearly repeated, diagonal and nearly singular F), where it declines, and
/// Lanes<4> giving each lane bit for bit what double gives.
#include <doctest/doctest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <vector>

#include "softgrad/detail/closed_form_svd.hpp"
#include "softgrad/detail/polar.hpp"
#include "support/random.hpp"

namespace softgrad {
namespace {

using Mat3 = Mat<double, 3, 3>;

Mat3 from_eigen(const Eigen::MatrixXd& m) {
  Mat3 out;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) out(i, j) = m(i, j);
  return out;
}

Eigen::Matrix3d to_eigen(const Mat3& m) {
  Eigen::Matrix3d out;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) out(i, j) = m(i, j);
  return out;
}

/// Q1 diag(s) Q2^T for random rotations.
Mat3 with_singular_values(double s0, double s1, double s2) {
  return from_eigen(test::random_rotation(3) * Eigen::Vector3d(s0, s1, s2).asDiagonal() *
                    test::random_rotation(3).transpose());
}

/// Deformation gradients of every kind the kernels meet, and some they rarely do.
std::vector<Mat3> deformation_gradients() {
  std::vector<Mat3> out;
  for (int k = 0; k < 40; ++k) {
    out.push_back(from_eigen(test::random_deformation(3, 0.9, 1.1)));
    out.push_back(from_eigen(test::random_deformation(3, 0.3, 3.0)));
    out.push_back(from_eigen(Eigen::Matrix3d::Identity() + 0.5 * test::random_matrix(3, 3)));
  }
  out.push_back(with_singular_values(1.2, 1.2, 1.2));           // all equal
  out.push_back(with_singular_values(1.3, 1.3, 0.6));           // two equal, larger
  out.push_back(with_singular_values(1.5, 0.7, 0.7));           // two equal, smaller
  out.push_back(with_singular_values(0.7 + 1e-9, 0.7, 0.7));    // nearly equal
  out.push_back(with_singular_values(1.1, 0.9, -0.4));          // inverted
  out.push_back(-1.0 * with_singular_values(1.0, -1.0, -1.0));  // det < 0, all |s| equal
  out.push_back(with_singular_values(2.0, 1.0, 2e-3));          // strongly compressed
  out.push_back(identity<double, 3>());
  out.push_back(Mat3{{2.0, 0, 0, 0, 0.5, 0, 0, 0, 1.0}});  // diagonal, unsorted
  out.push_back(Mat3{{0, 1.0, 0, 1.0, 0, 0, 0, 0, 1.0}});  // a reflection
  return out;
}

}  // namespace

TEST_CASE("core/closed_form_svd: symmetric eigen-decomposition matches Eigen's") {
  std::vector<Mat3> matrices;
  for (const Mat3& F : deformation_gradients()) matrices.push_back(transpose(F) * F);
  for (int k = 0; k < 20; ++k) {  // indefinite
    const Eigen::MatrixXd R = test::random_matrix(3, 3);
    matrices.push_back(from_eigen(R + R.transpose()));
  }
  matrices.push_back(filled<double, 3, 3>(0.0));
  matrices.push_back(Mat3{{1, 1e-17, 0, 1e-17, 1, 0, 0, 0, 1}});  // I up to round-off
  for (const Mat3& C : matrices) {
    INFO("C = " << to_eigen(C));
    Mat3 V;
    double lambda[3];
    symmetric_eigen_closed_form(C, V, lambda);
    const Eigen::Matrix3d Ve = to_eigen(V);
    const double scale = std::max(to_eigen(C).norm(), 1e-300);
    CHECK((Ve.transpose() * Ve - Eigen::Matrix3d::Identity()).norm() <= 4e-15);
    CHECK(Ve.determinant() == doctest::Approx(1.0).epsilon(1e-14));
    CHECK((Ve * Eigen::Vector3d(lambda[0], lambda[1], lambda[2]).asDiagonal() * Ve.transpose() -
           to_eigen(C))
              .norm() <= 1e-14 * scale);
    const Eigen::Vector3d reference =
        Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(to_eigen(C)).eigenvalues();  // ascending
    for (int k = 0; k < 3; ++k) CHECK(std::abs(lambda[k] - reference[2 - k]) <= 1e-14 * scale);
  }
}

TEST_CASE("core/closed_form_svd: the SVD from F^T F is signed_svd's, to round-off") {
  int accepted = 0;
  for (const Mat3& F : deformation_gradients()) {
    INFO("F = " << to_eigen(F));
    Mat3 U, V, U_ref, V_ref;
    double sigma[3], sigma_ref[3];
    signed_svd(F, U_ref, sigma_ref, V_ref);
    if (!signed_svd_from_normal_matrix(F, transpose(F) * F, det(F), U, sigma, V)) {
      // Declines exactly where the smallest singular value is below 1e-3 of the largest.
      CHECK(std::abs(sigma_ref[2]) < 1.01e-3 * sigma_ref[0]);
      continue;
    }
    ++accepted;
    const Eigen::Matrix3d Ue = to_eigen(U), Ve = to_eigen(V);
    const double scale = to_eigen(F).norm();
    CHECK((Ue.transpose() * Ue - Eigen::Matrix3d::Identity()).norm() <= 4e-15);
    CHECK((Ve.transpose() * Ve - Eigen::Matrix3d::Identity()).norm() <= 4e-15);
    CHECK(Ue.determinant() == doctest::Approx(1.0).epsilon(1e-14));
    CHECK(Ve.determinant() == doctest::Approx(1.0).epsilon(1e-14));
    CHECK((Ue * Eigen::Vector3d(sigma[0], sigma[1], sigma[2]).asDiagonal() * Ve.transpose() -
           to_eigen(F))
              .norm() <= 2e-14 * scale);
    for (int k = 0; k < 3; ++k) CHECK(std::abs(sigma[k] - sigma_ref[k]) <= 2e-14 * scale);
    CHECK((sigma[2] < 0.0) == (det(F) < 0.0));
  }
  CHECK(accepted >= 125);  // of 130: only a random I + 0.5 R may come that close to singular
  Mat3 U, V;
  double sigma[3];
  const Mat3 thin = with_singular_values(2.0, 1.0, 1e-4);
  CHECK_FALSE(signed_svd_from_normal_matrix(thin, transpose(thin) * thin, det(thin), U, sigma, V));
  Mat3 nan = identity<double, 3>();
  nan(1, 2) = NAN;
  CHECK_FALSE(signed_svd_from_normal_matrix(nan, transpose(nan) * nan, det(nan), U, sigma, V));
}

TEST_CASE("core/closed_form_svd: each of four lanes gets exactly what one double gets") {
  const std::vector<Mat3> all = deformation_gradients();
  Mat3 thin = with_singular_values(2.0, 1.0, 1e-5);
  Mat3 nan = identity<double, 3>();
  nan(0, 0) = NAN;
  std::vector<Mat3> Fs(all.begin(), all.end());
  Fs.insert(Fs.begin() + 5, thin);  // declining lanes among accepting ones
  Fs.insert(Fs.begin() + 10, nan);
  while (Fs.size() % 4 != 0) Fs.push_back(identity<double, 3>());
  for (size_t first = 0; first < Fs.size(); first += 4) {
    Mat<Lanes<4>, 3, 3> F, C, U, V;
    Lanes<4> J, sigma[3];
    for (int l = 0; l < 4; ++l) {
      const Mat3& Fl = Fs[first + l];
      const Mat3 Cl = transpose(Fl) * Fl;
      for (int k = 0; k < 9; ++k) {
        F.a[k].v[l] = Fl.a[k];
        C.a[k].v[l] = Cl.a[k];
      }
      J.v[l] = det(Fl);
    }
    const LaneMask<4> ok = signed_svd_from_normal_matrix(F, C, J, U, sigma, V);
    for (int l = 0; l < 4; ++l) {
      const Mat3& Fl = Fs[first + l];
      Mat3 Ul, Vl;
      double sl[3];
      const bool ok_l = signed_svd_from_normal_matrix(Fl, transpose(Fl) * Fl, det(Fl), Ul, sl, Vl);
      CHECK(lane(ok, l) == ok_l);
      if (!ok_l) continue;
      for (int k = 0; k < 9; ++k) {
        CHECK(lane(U.a[k], l) == Ul.a[k]);
        CHECK(lane(V.a[k], l) == Vl.a[k]);
      }
      for (int k = 0; k < 3; ++k) CHECK(lane(sigma[k], l) == sl[k]);
    }
  }
}

}  // namespace softgrad
