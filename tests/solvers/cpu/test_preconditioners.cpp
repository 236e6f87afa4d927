#include <doctest/doctest.h>

#include <cmath>

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

TEST_CASE("solvers/preconditioners: block Jacobi inverts each vertex's diagonal block") {
  Eigen::Matrix3d K;
  K << 4.0, 1.5, -0.5, 1.5, 3.0, 1.0, -0.5, 1.0, 2.0;
  const SparseMatrix A = test::block_kronecker(test::laplacian_2d(4, 3, 0.5), K);
  BlockLayout layout;
  layout.analyze(A);
  REQUIRE(layout.block() == 3);
  BlockJacobiPreconditioner block_jacobi;
  REQUIRE(block_jacobi.set(A, layout).ok());
  const Eigen::VectorXd in = test::random_vector(A.rows(), 71);
  Eigen::VectorXd out(A.rows());
  block_jacobi.apply(in, out);
  const Eigen::MatrixXd dense = A;
  for (int V = 0; V < A.rows() / 3; ++V) {
    const Eigen::Matrix3d block = dense.block<3, 3>(3 * V, 3 * V);
    CAPTURE(V);
    CHECK((block * out.segment<3>(3 * V) - in.segment<3>(3 * V)).norm() <=
          1e-13 * in.segment<3>(3 * V).norm());
  }
  // A block that is not positive definite (its diagonal is) is refused, naming its dofs.
  SparseMatrix bad = A;
  bad.coeffRef(4, 3) = bad.coeffRef(3, 4) = 100.0;
  const LinearSolveReport report = block_jacobi.set(bad, layout);
  CHECK(report.status == Status::NotPositiveDefinite);
  CHECK(report.message.find("dofs 3 to 5") != std::string::npos);
  bad.coeffRef(4, 4) = std::nan("");
  CHECK(block_jacobi.set(bad, layout).status == Status::NumericalFailure);
  // Without blocks it is Jacobi.
  const SparseMatrix scalar = test::laplacian_2d(4, 3, 0.5);
  BlockLayout none;
  none.analyze(scalar);
  REQUIRE(none.block() == 1);
  REQUIRE(block_jacobi.set(scalar, none).ok());
  Eigen::VectorXd y(12);
  block_jacobi.apply(Eigen::VectorXd::Ones(12), y);
  CHECK(y.isApprox(scalar.diagonal().cwiseInverse()));
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
