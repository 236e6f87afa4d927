/// @file test_polar.cpp
/// Tests of softgrad/detail/polar.hpp: signed SVD and polar decomposition on random, inverted,
/// near-singular, repeated, identity and zero F; the polar rotation differential and the
/// gradient of the sum of singular values against central finite differences.
#include <doctest/doctest.h>

#include <Eigen/Core>
#include <cmath>
#include <random>

#include "softgrad/detail/polar.hpp"
#include "support/finite_difference.hpp"

namespace softgrad {
namespace {

using Mat3 = Mat<double, 3, 3>;

/// Row-major entries of m as a 9-vector.
Eigen::VectorXd to_vec(const Mat3& m) {
  Eigen::VectorXd v(9);
  for (int k = 0; k < 9; ++k) v[k] = m.a[k];
  return v;
}

Mat3 from_vec(const Eigen::VectorXd& v) {
  Mat3 m;
  for (int k = 0; k < 9; ++k) m.a[k] = v[k];
  return m;
}

double norm(const Mat3& m) { return std::sqrt(squared_norm(m)); }

/// Entries uniform in [-1, 1].
Mat3 random_matrix(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Mat3 m;
  for (double& x : m.a) x = u(rng);
  return m;
}

/// A uniformly random rotation from a random unit quaternion.
Mat3 random_rotation(std::mt19937_64& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  double q[4];
  double qq = 0.0;
  for (double& x : q) {
    x = n(rng);
    qq += x * x;
  }
  for (double& x : q) x /= std::sqrt(qq);
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  return Mat3{{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
               2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
               2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
}

Mat3 diag(double s0, double s1, double s2) { return Mat3{{s0, 0, 0, 0, s1, 0, 0, 0, s2}}; }

/// Q1 diag(s) Q2 for random rotations Q1, Q2: singular values |s_i|, sign of det = sign(s0 s1 s2).
Mat3 with_singular_values(std::mt19937_64& rng, double s0, double s1, double s2) {
  return random_rotation(rng) * diag(s0, s1, s2) * random_rotation(rng);
}

/// R a rotation to 1e-13, S exactly symmetric, R S = F to tol * max(||F||, 1e-300).
void check_polar(const Mat3& F, double tol = 1e-13) {
  Mat3 R;
  Mat3 S;
  polar_decomposition(F, R, S);
  INFO("F = " << to_vec(F).transpose());
  CHECK(norm(transpose(R) * R - identity<double, 3>()) < 1e-13);
  CHECK(std::abs(det(R) - 1.0) < 1e-13);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) CHECK(S(i, j) == S(j, i));
  CHECK(norm(R * S - F) <= tol * norm(F));
}

/// U, V rotations, sigma sorted with |sigma_3| last and sign(sigma_3) = sign(det F), and
/// U diag(sigma) V^T = F.
void check_signed_svd(const Mat3& F, double tol = 1e-13) {
  Mat3 U;
  Mat3 V;
  double sigma[3];
  signed_svd(F, U, sigma, V);
  INFO("F = " << to_vec(F).transpose() << ", sigma = " << sigma[0] << " " << sigma[1] << " "
              << sigma[2]);
  const double f = norm(F);
  CHECK(norm(transpose(U) * U - identity<double, 3>()) < 1e-13);
  CHECK(norm(transpose(V) * V - identity<double, 3>()) < 1e-13);
  CHECK(std::abs(det(U) - 1.0) < 1e-13);
  CHECK(std::abs(det(V) - 1.0) < 1e-13);
  CHECK(sigma[0] >= sigma[1] - 1e-14 * f);
  CHECK(sigma[1] >= std::abs(sigma[2]) - 1e-14 * f);
  if (std::abs(det(F)) > 1e-10 * f * f * f) CHECK((sigma[2] > 0) == (det(F) > 0));
  CHECK(norm(U * diag(sigma[0], sigma[1], sigma[2]) * transpose(V) - F) <= tol * f);
}

Mat3 polar_rotation(const Mat3& F) {
  Mat3 R;
  Mat3 S;
  polar_decomposition(F, R, S);
  return R;
}

/// dR from polar_rotation_differential against the central difference of R along dF.
bool differential_matches_fd(const Mat3& F, const Mat3& dF, double h, double rtol) {
  Mat3 R;
  Mat3 S;
  polar_decomposition(F, R, S);
  const Mat3 dR = polar_rotation_differential(R, S, dF);
  const Mat3 fd = (0.5 / h) * (polar_rotation(F + h * dF) - polar_rotation(F - h * dF));
  // Both sides non-zero, R^T dR skew.
  CHECK(norm(dR) > 0.0);
  CHECK(norm(fd) > 0.0);
  const Mat3 W = transpose(R) * dR;
  CHECK(norm(W + transpose(W)) <= 1e-12 * norm(W));
  return test::close(to_vec(dR), to_vec(fd), rtol);
}

TEST_CASE("core/polar: random F gives a rotation R and symmetric S with R S = F") {
  std::mt19937_64 rng(20240601);
  for (int trial = 0; trial < 200; ++trial) {
    const Mat3 F = random_matrix(rng);
    check_polar(F);
    check_signed_svd(F);
  }
}

TEST_CASE("core/polar: inverted F (det < 0) keeps det R = +1 and flips the smallest sigma") {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    const Mat3 F = with_singular_values(rng, 3.0, 2.0, -0.5);
    check_polar(F);
    check_signed_svd(F);
    Mat3 U;
    Mat3 V;
    double sigma[3];
    signed_svd(F, U, sigma, V);
    CHECK(sigma[0] == doctest::Approx(3.0).epsilon(1e-13));
    CHECK(sigma[1] == doctest::Approx(2.0).epsilon(1e-13));
    CHECK(sigma[2] == doctest::Approx(-0.5).epsilon(1e-13));
    // S has the signed singular values as eigenvalues: trace and determinant match.
    Mat3 R;
    Mat3 S;
    polar_decomposition(F, R, S);
    CHECK(trace(S) == doctest::Approx(4.5).epsilon(1e-13));
    CHECK(det(S) == doctest::Approx(-3.0).epsilon(1e-13));
  }
  // A pure reflection.
  check_polar(diag(1.0, 1.0, -1.0));
  check_polar(diag(-1.0, -1.0, -1.0));
  check_signed_svd(diag(-1.0, -1.0, -1.0));
}

TEST_CASE("core/polar: near-singular F (one singular value 1e-9) is exact to round-off") {
  std::mt19937_64 rng(11);
  for (const double s2 : {1e-9, -1e-9, 1e-15, 0.0}) {
    for (int trial = 0; trial < 20; ++trial) {
      const Mat3 F = with_singular_values(rng, 2.0, 1.0, s2);
      check_polar(F);
      check_signed_svd(F);
      Mat3 U;
      Mat3 V;
      double sigma[3];
      signed_svd(F, U, sigma, V);
      CHECK(std::abs(sigma[2] - s2) < 1e-14);
    }
  }
  // Rank 1 and rank 2 with two vanishing or tiny singular values.
  for (int trial = 0; trial < 20; ++trial) {
    check_polar(with_singular_values(rng, 1.5, 0.0, 0.0));
    check_polar(with_singular_values(rng, 1.5, 1e-9, -1e-9));
    check_signed_svd(with_singular_values(rng, 1.5, 1e-9, 1e-12));
  }
}

TEST_CASE("core/polar: repeated singular values (2 x rotation) give R = Q, S = 2 I") {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    const Mat3 Q = random_rotation(rng);
    const Mat3 F = 2.0 * Q;
    check_polar(F);
    check_signed_svd(F);
    Mat3 R;
    Mat3 S;
    polar_decomposition(F, R, S);
    CHECK(norm(R - Q) < 1e-14);
    CHECK(norm(S - 2.0 * identity<double, 3>()) < 1e-14);
    // Two repeated values, and two repeated with an inversion.
    check_polar(with_singular_values(rng, 2.0, 2.0, 1.0));
    check_polar(with_singular_values(rng, 2.0, 1.0, -1.0));
    check_signed_svd(with_singular_values(rng, 1.0, 1.0, -1.0));
  }
}

TEST_CASE("core/polar: identity and zero") {
  Mat3 R;
  Mat3 S;
  const Mat3 I = identity<double, 3>();
  polar_decomposition(I, R, S);
  CHECK(norm(R - I) == 0.0);
  CHECK(norm(S - I) == 0.0);
  polar_decomposition(filled<double, 3, 3>(0.0), R, S);
  CHECK(norm(R - I) == 0.0);
  CHECK(norm(S) == 0.0);
  CHECK(sum_of_singular_values(filled<double, 3, 3>(0.0)) == 0.0);
  // The differential at F = 0 is defined (zero), not NaN.
  std::mt19937_64 rng(5);
  CHECK(norm(polar_rotation_differential(R, S, random_matrix(rng))) == 0.0);
}

TEST_CASE("core/polar: extreme scales and non-finite input") {
  std::mt19937_64 rng(13);
  for (const double scale : {1e-200, 1e-100, 1e100, 1e200}) {
    const Mat3 F = random_matrix(rng);
    check_polar(scale * F);
    Mat3 R;
    Mat3 S;
    polar_decomposition(F, R, S);
    Mat3 Rs;
    Mat3 Ss;
    polar_decomposition(scale * F, Rs, Ss);
    CHECK(norm(Rs - R) < 1e-13);
  }
  Mat3 F = identity<double, 3>();
  F(1, 2) = NAN;
  Mat3 R;
  Mat3 S;
  polar_decomposition(F, R, S);
  CHECK(std::isnan(R(0, 0)));
  CHECK(std::isnan(S(0, 0)));
}

TEST_CASE("core/polar: rotation differential matches finite differences for random F") {
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 50; ++trial) {
    const Mat3 F = identity<double, 3>() + 0.5 * random_matrix(rng);
    const Mat3 dF = random_matrix(rng);
    CHECK(differential_matches_fd(F, dF, 1e-6, 1e-6));
  }
  for (int trial = 0; trial < 20; ++trial) {
    const Mat3 F = with_singular_values(rng, 1.7, 0.9, 0.3);
    CHECK(differential_matches_fd(F, random_matrix(rng), 1e-6, 1e-6));
  }
}

TEST_CASE("core/polar: rotation differential matches finite differences for inverted F") {
  std::mt19937_64 rng(19);
  for (int trial = 0; trial < 50; ++trial) {
    const Mat3 F = with_singular_values(rng, 2.0, 1.0, -0.4);
    CHECK(det(F) < 0.0);
    CHECK(differential_matches_fd(F, random_matrix(rng), 1e-6, 1e-6));
  }
}

TEST_CASE("core/polar: rotation differential near and at a singular tr(S) I - S") {
  std::mt19937_64 rng(23);
  // sigma_2 + sigma_3 = 1e-6: the eigenbasis path, derivatives of order 1e6. R itself is
  // ill-conditioned (errors ~ epsilon / 1e-6): the FD step 1e-9 balances round-off and
  // truncation (both ~1e-7 relative here).
  for (int trial = 0; trial < 10; ++trial) {
    const Mat3 F = with_singular_values(rng, 2.0, 1.0, -1.0 + 1e-6);
    CHECK(differential_matches_fd(F, random_matrix(rng), 1e-9, 1e-5));
  }
  // sigma_2 + sigma_3 = 0: finite, skew R^T dR, and the minimum-norm solution w of
  // (tr(S) I - S) w = a has no component along the null direction.
  for (int trial = 0; trial < 10; ++trial) {
    const Mat3 Q = random_rotation(rng);
    const Mat3 V = random_rotation(rng);
    const Mat3 F = Q * diag(2.0, 1.0, -1.0) * transpose(V);
    Mat3 R;
    Mat3 S;
    polar_decomposition(F, R, S);
    const Mat3 dR = polar_rotation_differential(R, S, random_matrix(rng));
    for (const double x : dR.a) CHECK(std::isfinite(x));
    CHECK(norm(dR) < 10.0);
    const Mat3 W = transpose(R) * dR;
    CHECK(norm(W + transpose(W)) <= 1e-12 * norm(W));
    // Null direction of tr(S) I - S: the eigenvector of S for sigma_1, i.e. V e_1.
    CHECK(std::abs(W(2, 1) * V(0, 0) + W(0, 2) * V(1, 0) + W(1, 0) * V(2, 0)) < 1e-6);
  }
}

TEST_CASE("core/polar: gradient of the sum of singular values is R") {
  std::mt19937_64 rng(29);
  const auto f = [](const Eigen::VectorXd& x) { return sum_of_singular_values(from_vec(x)); };
  for (int trial = 0; trial < 20; ++trial) {
    const bool inverted = trial % 2 == 1;
    const Mat3 F = inverted ? with_singular_values(rng, 1.5, 0.8, -0.3)
                            : identity<double, 3>() + 0.5 * random_matrix(rng);
    const Mat3 R = polar_rotation(F);
    Mat3 U;
    Mat3 V;
    double sigma[3];
    signed_svd(F, U, sigma, V);
    CHECK(sum_of_singular_values(F) == doctest::Approx(sigma[0] + sigma[1] + sigma[2]));
    CHECK(test::close(to_vec(R), test::fd_gradient(f, to_vec(F)), 1e-7));
  }
}

}  // namespace
}  // namespace softgrad
