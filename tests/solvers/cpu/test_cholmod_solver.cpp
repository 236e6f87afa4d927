#include <doctest/doctest.h>

#include <cmath>

#include "softgrad/errors.hpp"
#include "solvers/cpu/cholmod_solver.hpp"
#include "solvers/spd_matrices.hpp"

namespace softgrad {
namespace {

using Status = LinearSolveReport::Status;

TEST_CASE("solvers/cholmod_solver: solves SPD systems to round-off") {
  for (const SparseMatrix& A : {test::laplacian_2d(30, 30, 1.0), test::laplacian_3d(8, 0.5),
                                test::random_spd(500, 5, 0.1, 21)}) {
    CholmodSolver solver;
    solver.analyze(A);
    REQUIRE(solver.factorize(A).ok());
    const Eigen::VectorXd b = test::random_vector(A.rows(), 22);
    Eigen::VectorXd x;
    const LinearSolveReport report = solver.solve(b, x);
    CHECK(report.ok());
    CHECK(report.iterations == 0);
    CHECK(report.relative_residual <= 1e-12);
    CHECK(test::relative_residual(A, x, b) <= 1e-12);
    // Unmeasured: the same solution, no residual.
    Eigen::VectorXd y;
    const LinearSolveReport quick = solver.solve_unmeasured(b, y);
    CHECK(quick.ok());
    CHECK(std::isnan(quick.relative_residual));
    CHECK(y == x);
  }
}

TEST_CASE("solvers/cholmod_solver: an indefinite matrix is NotPositiveDefinite with its column") {
  const SparseMatrix A = test::laplacian_2d(10, 10, -2.0);
  CholmodSolver solver;
  solver.analyze(A);
  const LinearSolveReport report = solver.factorize(A);
  CHECK(report.status == Status::NotPositiveDefinite);
  CHECK(report.message.find("not positive definite") != std::string::npos);
  CHECK(report.message.find("column") != std::string::npos);
  // solve() returns the failed factorization's report and leaves x alone.
  Eigen::VectorXd x = Eigen::VectorXd::Constant(A.rows(), 7.0);
  CHECK(solver.solve(test::random_vector(A.rows(), 23), x).status == Status::NotPositiveDefinite);
  CHECK(x.isConstant(7.0));
  // The same pattern with SPD values factorizes again, reusing the analysis.
  const SparseMatrix B = test::laplacian_2d(10, 10, 1.0);
  REQUIRE(solver.factorize(B).ok());
  const Eigen::VectorXd b = test::random_vector(B.rows(), 28);
  REQUIRE(solver.solve(b, x).ok());
  CHECK(test::relative_residual(B, x, b) <= 1e-12);
  CHECK(solver.analysis_count() == 1);
}

TEST_CASE("solvers/cholmod_solver: the failing column is reported in the matrix numbering") {
  // diag(1, 2, -1, 3): column 2 fails whatever the ordering.
  SparseMatrix A(4, 4);
  A.insert(0, 0) = 1.0;
  A.insert(1, 1) = 2.0;
  A.insert(2, 2) = -1.0;
  A.insert(3, 3) = 3.0;
  A.makeCompressed();
  CholmodSolver solver;
  const LinearSolveReport report = solver.factorize(A);
  CHECK(report.status == Status::NotPositiveDefinite);
  CHECK(report.message.find("(column 2 of the matrix)") != std::string::npos);
}

TEST_CASE("solvers/cholmod_solver: refactorizing with the same pattern reuses the analysis") {
  SparseMatrix A = test::laplacian_2d(16, 16, 1.0);
  CholmodSolver solver;
  solver.analyze(A);
  const Eigen::VectorXd b = test::random_vector(A.rows(), 24);
  Eigen::VectorXd x;
  for (const double scale : {1.0, 3.0, 0.25}) {
    const SparseMatrix As = scale * A;
    REQUIRE(solver.factorize(As).ok());
    REQUIRE(solver.solve(b, x).ok());
    CHECK(test::relative_residual(As, x, b) <= 1e-12);
  }
  CHECK(solver.analysis_count() == 1);
  // A new pattern is detected and re-analyzed.
  const SparseMatrix B = test::laplacian_2d(10, 12, 1.0);
  REQUIRE(solver.factorize(B).ok());
  const Eigen::VectorXd c = test::random_vector(B.rows(), 25);
  REQUIRE(solver.solve(c, x).ok());
  CHECK(test::relative_residual(B, x, c) <= 1e-12);
  CHECK(solver.analysis_count() == 2);
}

TEST_CASE("solvers/cholmod_solver: one factorization serves many solves, after A is gone") {
  CholmodSolver solver;
  SparseMatrix copy;
  {
    const SparseMatrix A = test::random_spd(300, 4, 0.2, 26);
    copy = A;
    REQUIRE(solver.factorize(A).ok());
  }
  Eigen::VectorXd x;
  for (int k = 0; k < 4; ++k) {
    const Eigen::VectorXd b = test::random_vector(copy.rows(), 27 + k);
    const LinearSolveReport report = solver.solve(b, x);
    REQUIRE(report.ok());
    CHECK(test::relative_residual(copy, x, b) <= 1e-12);
  }
}

TEST_CASE("solvers/cholmod_solver: misuse throws, non-finite values are reported") {
  CholmodSolver solver;
  Eigen::VectorXd x;
  CHECK_THROWS_WITH_AS(solver.solve(Eigen::VectorXd::Ones(3), x),
                       "CholmodSolver::solve() called before factorize()", InputError);
  SparseMatrix A = test::laplacian_2d(3, 3, 1.0);
  REQUIRE(solver.factorize(A).ok());
  CHECK_THROWS_AS(solver.solve(Eigen::VectorXd::Ones(4), x), InputError);
  A.coeffRef(4, 4) = std::nan("");
  CHECK(solver.factorize(A).status == Status::NumericalFailure);
}

TEST_CASE("solvers/cholmod_solver: a factorization's cost in solves follows its flop count") {
  // CHOLMOD counts sum_j nnz(L(:, j))^2 flops for a factorization and a solve takes 4 nnz(L):
  // a diagonal matrix costs a quarter of a solve, a dense one of size n (2n + 1) / 12 solves,
  // and a 3D grid's nested fill makes the ratio grow with the grid (what Newton's chord steps
  // use to tell an expensive factorization).
  CholmodSolver solver;
  CHECK(solver.factorization_cost_in_solves() == 0.0);  // nothing analysed yet
  SparseMatrix diagonal(50, 50);
  diagonal.setIdentity();
  solver.analyze(diagonal);
  CHECK(solver.factorization_cost_in_solves() == doctest::Approx(0.25));
  const int n = 60;
  Eigen::MatrixXd M = Eigen::MatrixXd::Random(n, n);
  const Eigen::MatrixXd dense = M * M.transpose() + n * Eigen::MatrixXd::Identity(n, n);
  solver.analyze(dense.sparseView());
  CHECK(solver.factorization_cost_in_solves() == doctest::Approx((2.0 * n + 1.0) / 12.0));
  double previous = 0.0;
  for (int size : {4, 8, 16}) {
    solver.analyze(test::laplacian_3d(size, 0.5));
    const double cost = solver.factorization_cost_in_solves();
    CAPTURE(size);
    CHECK(cost > previous);
    previous = cost;
  }
}

}  // namespace
}  // namespace softgrad
