#include <doctest/doctest.h>

#include "solvers/cpu/preconditioners.hpp"
#include "solvers/spd_matrices.hpp"

namespace softgrad {
namespace {

using Status = LinearSolveReport::Status;

TEST_CASE("solvers/preconditioners: Jacobi divides by the diagonal and rejects d_i <= 0") {
  JacobiPreconditioner jacobi;
  REQUIRE(jacobi.set_diagonal(Eigen::Vector3d(2.0, 4.0, 0.5)).ok());
  Eigen::VectorXd out(3);
  jacobi.apply(Eigen::Vector3d(1.0, 1.0, 1.0), out);
  CHECK(out.isApprox(Eigen::Vector3d(0.5, 0.25, 2.0)));
  const LinearSolveReport zero = jacobi.set_diagonal(Eigen::Vector3d(1.0, 0.0, 1.0));
  CHECK(zero.status == Status::NotPositiveDefinite);
  CHECK(zero.message.find("A(1, 1) = 0") != std::string::npos);
  CHECK(jacobi.set_diagonal(Eigen::Vector3d(1.0, std::nan(""), 1.0)).status ==
        Status::NumericalFailure);
}

TEST_CASE("solvers/preconditioners: incomplete Cholesky is exact without fill-in") {
  // A tridiagonal matrix has no fill, so IC is the exact Cholesky factor: M^-1 A x == x.
  SparseMatrix A(30, 30);
  for (int i = 0; i < 30; ++i) {
    A.insert(i, i) = 2.5;
    if (i > 0) A.insert(i, i - 1) = -1.0;
    if (i + 1 < 30) A.insert(i, i + 1) = -1.0;
  }
  A.makeCompressed();
  IncompleteCholeskyPreconditioner ichol;
  ichol.analyze(A);
  REQUIRE(ichol.factorize(A).ok());
  const Eigen::VectorXd x = test::random_vector(30, 61);
  const Eigen::VectorXd Ax = A * x;
  Eigen::VectorXd y(30);
  ichol.apply(Ax, y);
  CHECK((y - x).norm() <= 1e-10 * x.norm());
}

TEST_CASE("solvers/preconditioners: incomplete Cholesky reports a non-positive diagonal") {
  SparseMatrix A = test::laplacian_2d(3, 3, 1.0);
  A.coeffRef(2, 2) = 0.0;
  IncompleteCholeskyPreconditioner ichol;
  ichol.analyze(A);
  const LinearSolveReport report = ichol.factorize(A);
  CHECK(report.status == Status::NotPositiveDefinite);
  CHECK(report.message.find("A(2, 2)") != std::string::npos);
}

}  // namespace
}  // namespace softgrad
