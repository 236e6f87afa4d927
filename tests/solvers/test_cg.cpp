#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "solvers/cg.hpp"
#include "solvers/cpu/linear_operator.hpp"
#include "solvers/spd_matrices.hpp"

// A vector type outside softgrad, with its operations found by argument-dependent lookup: the
// way the CUDA backend plugs its device vector into conjugate_gradient().
namespace other_backend {

struct HostVector {
  std::vector<double> v;
};
std::ptrdiff_t vector_size(const HostVector& a) { return static_cast<std::ptrdiff_t>(a.v.size()); }
double dot(const HostVector& a, const HostVector& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.v.size(); ++i) s += a.v[i] * b.v[i];
  return s;
}
double norm(const HostVector& a) { return std::sqrt(dot(a, a)); }
void axpy(double alpha, const HostVector& x, HostVector& y) {
  for (std::size_t i = 0; i < x.v.size(); ++i) y.v[i] += alpha * x.v[i];
}
void axpby(double alpha, const HostVector& x, double beta, HostVector& y) {
  for (std::size_t i = 0; i < x.v.size(); ++i) y.v[i] = alpha * x.v[i] + beta * y.v[i];
}
void copy(const HostVector& src, HostVector& dst) { dst.v = src.v; }
void set_zero(HostVector& a) { std::fill(a.v.begin(), a.v.end(), 0.0); }

// Tridiagonal [-1, 2 + shift, -1] operator.
struct TridiagonalOperator {
  double shift;
  void apply(const HostVector& in, HostVector& out) const {
    const std::size_t n = in.v.size();
    for (std::size_t i = 0; i < n; ++i) {
      out.v[i] =
          (2.0 + shift) * in.v[i] - (i > 0 ? in.v[i - 1] : 0.0) - (i + 1 < n ? in.v[i + 1] : 0.0);
    }
  }
};

}  // namespace other_backend

namespace softgrad {
namespace {

using Status = LinearSolveReport::Status;

// A dense operator for tiny hand-made systems.
struct DenseOperator {
  Eigen::MatrixXd A;
  void apply(const Eigen::VectorXd& in, Eigen::VectorXd& out) const { out = A * in; }
};

// M^-1 = -I: not positive definite.
struct NegativePreconditioner {
  void apply(const Eigen::VectorXd& in, Eigen::VectorXd& out) const { out = -in; }
};

CgScratch<Eigen::VectorXd> scratch_of_size(Eigen::Index n) {
  CgScratch<Eigen::VectorXd> scratch;
  resize_cg_scratch(scratch, n);
  return scratch;
}

TEST_CASE("solvers/cg: solves an SPD Laplacian to the relative tolerance") {
  const SparseMatrix A = test::laplacian_2d(20, 20, 0.1);
  const Eigen::VectorXd b = test::random_vector(A.rows(), 1);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(A.rows());
  auto scratch = scratch_of_size(A.rows());
  const CgOptions options{1e-10, 0.0, 1000};
  const LinearSolveReport report =
      conjugate_gradient(SparseMatrixOperator(A), IdentityPreconditioner{}, b, x, scratch, options);
  CHECK(report.ok());
  CHECK(report.iterations > 0);
  CHECK(report.relative_residual <= 1e-10);
  // The reported residual is the true one.
  CHECK(report.residual_norm == doctest::Approx((A * x - b).norm()).epsilon(1e-6));
  CHECK(test::relative_residual(A, x, b) <= 1e-10);
}

TEST_CASE("solvers/cg: a warm start at the solution takes no iteration") {
  const SparseMatrix A = test::laplacian_2d(10, 10, 1.0);
  const Eigen::VectorXd b = test::random_vector(A.rows(), 2);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(A.rows());
  auto scratch = scratch_of_size(A.rows());
  const SparseMatrixOperator op(A);
  REQUIRE(conjugate_gradient(op, IdentityPreconditioner{}, b, x, scratch, CgOptions{}).ok());
  const LinearSolveReport again =
      conjugate_gradient(op, IdentityPreconditioner{}, b, x, scratch, CgOptions{1e-8, 0.0, 100});
  CHECK(again.ok());
  CHECK(again.iterations == 0);
}

TEST_CASE("solvers/cg: the absolute tolerance stops early") {
  const SparseMatrix A = test::laplacian_2d(15, 15, 0.0);
  const Eigen::VectorXd b = test::random_vector(A.rows(), 3);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(A.rows());
  auto scratch = scratch_of_size(A.rows());
  const LinearSolveReport report = conjugate_gradient(
      SparseMatrixOperator(A), IdentityPreconditioner{}, b, x, scratch, CgOptions{0.0, 1e-2, 1000});
  CHECK(report.ok());
  CHECK(report.residual_norm <= 1e-2);
  CHECK(report.residual_norm > 1e-8);
}

TEST_CASE("solvers/cg: a zero right-hand side gives x = 0") {
  DenseOperator op{Eigen::Matrix2d{{2.0, 0.0}, {0.0, 3.0}}};
  Eigen::VectorXd x(2);
  x << 5.0, -1.0;
  auto scratch = scratch_of_size(2);
  const LinearSolveReport report = conjugate_gradient(
      op, IdentityPreconditioner{}, Eigen::VectorXd::Zero(2).eval(), x, scratch, CgOptions{});
  CHECK(report.ok());
  CHECK(x.isZero(0.0));
}

TEST_CASE("solvers/cg: non-positive curvature is reported as NotPositiveDefinite") {
  // diag(1, -1) with b = (1, 1): the first direction has p^T A p = 0.
  DenseOperator op{Eigen::Matrix2d{{1.0, 0.0}, {0.0, -1.0}}};
  Eigen::VectorXd x = Eigen::VectorXd::Zero(2);
  auto scratch = scratch_of_size(2);
  const LinearSolveReport report =
      conjugate_gradient(op, IdentityPreconditioner{}, Eigen::VectorXd(Eigen::Vector2d(1.0, 1.0)),
                         x, scratch, CgOptions{});
  CHECK(report.status == Status::NotPositiveDefinite);
  CHECK(report.message.find("not positive definite") != std::string::npos);

  // An indefinite Laplacian (shift -2 < -lambda_min) with a random right-hand side.
  const SparseMatrix A = test::laplacian_2d(12, 12, -2.0);
  const Eigen::VectorXd b = test::random_vector(A.rows(), 4);
  Eigen::VectorXd y = Eigen::VectorXd::Zero(A.rows());
  auto big = scratch_of_size(A.rows());
  const LinearSolveReport indefinite =
      conjugate_gradient(SparseMatrixOperator(A), IdentityPreconditioner{}, b, y, big, CgOptions{});
  CHECK(indefinite.status == Status::NotPositiveDefinite);
  CHECK(indefinite.iterations >= 1);
}

TEST_CASE("solvers/cg: too few iterations are reported as MaxIterations") {
  const SparseMatrix A = test::laplacian_2d(20, 20, 0.0);
  const Eigen::VectorXd b = test::random_vector(A.rows(), 5);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(A.rows());
  auto scratch = scratch_of_size(A.rows());
  const LinearSolveReport report = conjugate_gradient(
      SparseMatrixOperator(A), IdentityPreconditioner{}, b, x, scratch, CgOptions{1e-12, 0.0, 3});
  CHECK(report.status == Status::MaxIterations);
  CHECK(report.iterations == 3);
  CHECK(report.relative_residual > 1e-12);
  CHECK(report.residual_norm == doctest::Approx((A * x - b).norm()).epsilon(1e-6));
}

TEST_CASE("solvers/cg: an indefinite preconditioner is a Breakdown and NaN a NumericalFailure") {
  DenseOperator op{Eigen::Matrix2d{{2.0, 0.0}, {0.0, 3.0}}};
  Eigen::VectorXd x = Eigen::VectorXd::Zero(2);
  auto scratch = scratch_of_size(2);
  const Eigen::VectorXd b = Eigen::Vector2d(1.0, 2.0);
  CHECK(conjugate_gradient(op, NegativePreconditioner{}, b, x, scratch, CgOptions{}).status ==
        Status::Breakdown);
  const Eigen::VectorXd nan_b = Eigen::Vector2d(1.0, std::nan(""));
  CHECK(conjugate_gradient(op, IdentityPreconditioner{}, nan_b, x, scratch, CgOptions{}).status ==
        Status::NumericalFailure);
}

TEST_CASE("solvers/cg: runs on another vector type through argument-dependent lookup") {
  using other_backend::HostVector;
  const std::size_t n = 50;
  const other_backend::TridiagonalOperator op{0.5};
  HostVector b{std::vector<double>(n, 1.0)};
  HostVector x{std::vector<double>(n, 0.0)};
  CgScratch<HostVector> scratch{b, b, b, b};
  const LinearSolveReport report =
      conjugate_gradient(op, IdentityPreconditioner{}, b, x, scratch, CgOptions{1e-12, 0.0, 200});
  CHECK(report.ok());
  HostVector r{std::vector<double>(n)};
  op.apply(x, r);
  axpby(1.0, b, -1.0, r);
  CHECK(norm(r) <= 1e-12 * norm(b));
}

}  // namespace

TEST_CASE("solvers/cg: a solve that cannot reach its tolerance within the limit gives up early") {
  SUBCASE("too slow: the rate of its last window would need more than twice the limit") {
    const SparseMatrix A = test::laplacian_2d(200, 200, 0.0);  // condition number ~1.6e4
    const Eigen::VectorXd b = test::random_vector(A.rows(), 6);
    Eigen::VectorXd x = Eigen::VectorXd::Zero(A.rows());
    auto scratch = scratch_of_size(A.rows());
    const LinearSolveReport report =
        conjugate_gradient(SparseMatrixOperator(A), IdentityPreconditioner{}, b, x, scratch,
                           CgOptions{1e-12, 0.0, 500});
    CHECK(report.status == Status::MaxIterations);
    CHECK(report.iterations < 500);
    CHECK(report.message.find("given up") != std::string::npos);
    CHECK(report.residual_norm == doctest::Approx((A * x - b).norm()).epsilon(1e-6));
    // With room, the same solve converges: nothing is given up that would have converged.
    x.setZero();
    const LinearSolveReport room =
        conjugate_gradient(SparseMatrixOperator(A), IdentityPreconditioner{}, b, x, scratch,
                           CgOptions{1e-12, 0.0, 5000});
    CHECK(room.status == Status::Converged);
    CHECK(room.iterations > 500);
  }
  SUBCASE("stagnant: a tolerance below round-off") {
    const SparseMatrix A = test::laplacian_2d(20, 20, 1.0);
    const Eigen::VectorXd b = test::random_vector(A.rows(), 7);
    Eigen::VectorXd x = Eigen::VectorXd::Zero(A.rows());
    auto scratch = scratch_of_size(A.rows());
    const LinearSolveReport report =
        conjugate_gradient(SparseMatrixOperator(A), IdentityPreconditioner{}, b, x, scratch,
                           CgOptions{1e-30, 0.0, 2000});
    CHECK(report.status == Status::MaxIterations);
    CHECK(report.iterations <= 600);
    CHECK(report.message.find("given up") != std::string::npos);
  }
}

}  // namespace softgrad
