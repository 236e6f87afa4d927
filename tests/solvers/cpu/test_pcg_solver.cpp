#include <doctest/doctest.h>

#include "softgrad/errors.hpp"
#include "solvers/cpu/pcg_solver.hpp"
#include "solvers/spd_matrices.hpp"

namespace softgrad {
namespace {

using Status = LinearSolveReport::Status;

// CG iterations to solve A x = b to 1e-10 with `pre`, checking the solution.
int iterations_to_solve(PcgPreconditioner pre, const SparseMatrix& A, const Eigen::VectorXd& b) {
  PcgSolver solver(pre, CgOptions{1e-10, 0.0, 5000});
  solver.analyze(A);
  REQUIRE(solver.factorize(A).ok());
  Eigen::VectorXd x;
  const LinearSolveReport report = solver.solve(b, x);
  CAPTURE(solver.name());
  CHECK(report.ok());
  CHECK(test::relative_residual(A, x, b) <= 1e-10);
  return report.iterations;
}

TEST_CASE("solvers/pcg_solver: Jacobi and incomplete Cholesky solve to the tolerance") {
  const SparseMatrix A = test::laplacian_2d(30, 30, 0.01);
  const Eigen::VectorXd b = test::random_vector(A.rows(), 31);
  const int jacobi = iterations_to_solve(PcgPreconditioner::Jacobi, A, b);
  const int ichol = iterations_to_solve(PcgPreconditioner::IncompleteCholesky, A, b);
  // Incomplete Cholesky is the stronger preconditioner.
  CHECK(ichol < jacobi);
}

TEST_CASE(
    "solvers/pcg_solver: block Jacobi solves strongly coupled vertex dofs in fewer iterations") {
  // Each vertex's three dofs coupled as in a nearly incompressible material (K: eigenvalues
  // from 0.05 to 2.9): Jacobi sees only K's diagonal, block Jacobi inverts K.
  Eigen::Matrix3d K;
  K << 1.0, 0.95, 0.95, 0.95, 1.0, 0.95, 0.95, 0.95, 1.0;
  const SparseMatrix A = test::block_kronecker(test::laplacian_3d(8, 0.01), K);
  const Eigen::VectorXd b = test::random_vector(A.rows(), 34);
  const int jacobi = iterations_to_solve(PcgPreconditioner::Jacobi, A, b);
  const int block_jacobi = iterations_to_solve(PcgPreconditioner::BlockJacobi, A, b);
  CAPTURE(jacobi);
  CAPTURE(block_jacobi);
  CHECK(block_jacobi < jacobi / 2);
}

TEST_CASE("solvers/pcg_solver: refactorizing and warm-started repeated solves") {
  const SparseMatrix A = test::random_spd(400, 4, 0.1, 32);
  for (const auto pre : {PcgPreconditioner::Jacobi, PcgPreconditioner::BlockJacobi,
                         PcgPreconditioner::IncompleteCholesky}) {
    PcgSolver solver(pre);
    CAPTURE(solver.name());
    solver.analyze(A);
    Eigen::VectorXd x;
    const Eigen::VectorXd b = test::random_vector(A.rows(), 33);
    for (const double scale : {1.0, 2.0}) {
      const SparseMatrix As = scale * A;
      REQUIRE(solver.factorize(As).ok());
      x.resize(0);
      REQUIRE(solver.solve(b, x).ok());
      CHECK(test::relative_residual(As, x, b) <= 1e-10);
      // Solving again from the solution needs no iteration.
      const LinearSolveReport again = solver.solve(b, x);
      CHECK(again.ok());
      CHECK(again.iterations == 0);
    }
  }
}

TEST_CASE("solvers/pcg_solver: its matrix operator multiplies by the factorized matrix") {
  PcgSolver solver;
  CHECK(solver.matrix_operator() == nullptr);  // nothing factorized yet
  const SparseMatrix A = test::random_spd(60, 4, 0.2, 31);
  solver.analyze(A);
  CHECK(solver.matrix_operator() == nullptr);
  REQUIRE(solver.factorize(A).ok());
  const LinearOperator* op = solver.matrix_operator();
  REQUIRE(op != nullptr);
  CHECK(op->size() == A.rows());
  const Eigen::VectorXd v = test::random_vector(A.rows(), 32);
  Eigen::VectorXd Av(A.rows());
  op->apply(v, Av);
  const Eigen::VectorXd expected = A * v;
  CHECK((Av - expected).norm() <= 1e-14 * expected.norm());
  // New values, same pattern: the operator follows them.
  const SparseMatrix B = 2.0 * A;
  REQUIRE(solver.factorize(B).ok());
  solver.matrix_operator()->apply(v, Av);
  CHECK((Av - 2.0 * expected).norm() <= 1e-14 * expected.norm());
}

TEST_CASE("solvers/pcg_solver: an indefinite matrix is NotPositiveDefinite") {
  const SparseMatrix A = test::laplacian_2d(12, 12, -2.0);
  for (const auto pre : {PcgPreconditioner::Jacobi, PcgPreconditioner::IncompleteCholesky}) {
    PcgSolver solver(pre);
    CAPTURE(solver.name());
    REQUIRE(solver.factorize(A).ok());  // the diagonal is positive, the preconditioner exists
    Eigen::VectorXd x;
    const LinearSolveReport report = solver.solve(test::random_vector(A.rows(), 34), x);
    CHECK(report.status == Status::NotPositiveDefinite);
  }
  // A non-positive diagonal entry is caught when factorizing.
  SparseMatrix B = test::laplacian_2d(4, 4, 1.0);
  B.coeffRef(5, 5) = -1.0;
  PcgSolver solver;
  const LinearSolveReport report = solver.factorize(B);
  CHECK(report.status == Status::NotPositiveDefinite);
  CHECK(report.message.find("A(5, 5)") != std::string::npos);
}

TEST_CASE("solvers/pcg_solver: too few iterations are MaxIterations") {
  const SparseMatrix A = test::laplacian_2d(20, 20, 0.0);
  PcgSolver solver(PcgPreconditioner::Jacobi, CgOptions{1e-10, 0.0, 5});
  REQUIRE(solver.factorize(A).ok());
  Eigen::VectorXd x;
  const LinearSolveReport report = solver.solve(test::random_vector(A.rows(), 35), x);
  CHECK(report.status == Status::MaxIterations);
  CHECK(report.iterations == 5);
}

TEST_CASE("solvers/pcg_solver: misuse throws") {
  PcgSolver solver;
  Eigen::VectorXd x;
  CHECK_THROWS_WITH_AS(solver.solve(Eigen::VectorXd::Ones(2), x),
                       "PcgSolver::solve() called before factorize()", InputError);
  REQUIRE(solver.factorize(test::laplacian_2d(2, 2, 1.0)).ok());
  CHECK_THROWS_AS(solver.solve(Eigen::VectorXd::Ones(3), x), InputError);
}

}  // namespace
}  // namespace softgrad
