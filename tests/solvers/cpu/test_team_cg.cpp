// TeamCg, the Jacobi and block-Jacobi CG whose threads stay in one team for a solve: the same
// result bit for bit on one thread and on two, and the same solution, reports and failures as
// conjugate_gradient (cg.hpp).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "solvers/cg.hpp"
#include "solvers/cpu/preconditioners.hpp"
#include "solvers/cpu/team_cg.hpp"
#include "solvers/spd_matrices.hpp"

namespace softgrad {
namespace {

using Status = LinearSolveReport::Status;

struct Solved {
  LinearSolveReport report;
  Eigen::VectorXd x;
  int team = 0;
};

// TeamCg on `threads` threads from x = 0.
template <class Preconditioner>
Solved team_solve(int threads, const SparseMatrixOperator& op, const Preconditioner& M,
                  const Eigen::VectorXd& b, const CgOptions& options) {
  TeamCg cg;
  CgScratch<Eigen::VectorXd> scratch;
  resize_cg_scratch(scratch, b.size());
  Solved s;
  s.x.setZero(b.size());
  s.report = cg.solve_on(threads, op, M, b, s.x, scratch, options);
  s.team = cg.last_team();
  return s;
}

// conjugate_gradient from x = 0.
template <class Preconditioner>
Solved reference_solve(const SparseMatrixOperator& op, const Preconditioner& M,
                       const Eigen::VectorXd& b, const CgOptions& options) {
  CgScratch<Eigen::VectorXd> scratch;
  resize_cg_scratch(scratch, b.size());
  Solved s;
  s.x.setZero(b.size());
  s.report = conjugate_gradient(op, M, b, s.x, scratch, options);
  return s;
}

// One and two threads agree bit for bit; both solve to the tolerance as conjugate_gradient does.
template <class Preconditioner>
void check_against_reference(const SparseMatrix& A, const SparseMatrixOperator& op,
                             const Preconditioner& M) {
  const Eigen::VectorXd b = test::random_vector(A.rows(), 71);
  const CgOptions options{1e-10, 0.0, 5000};
  const Solved one = team_solve(1, op, M, b, options);
  const Solved two = team_solve(2, op, M, b, options);
  const Solved reference = reference_solve(op, M, b, options);
  CHECK(one.team == 1);
  CHECK(two.team == 2);
  REQUIRE(one.report.ok());
  REQUIRE(reference.report.ok());
  CHECK(two.report.status == one.report.status);
  CHECK(two.report.iterations == one.report.iterations);
  CHECK(two.report.residual_norm == one.report.residual_norm);
  CHECK((one.x.array() == two.x.array()).all());
  // The same iteration up to the rounding of its dot products: the same count within a couple
  // of iterations, solutions that agree to the tolerance's order.
  CAPTURE(one.report.iterations);
  CAPTURE(reference.report.iterations);
  CHECK(std::abs(one.report.iterations - reference.report.iterations) <= 2);
  CHECK(test::relative_residual(A, one.x, b) <= 1e-10);
  CHECK(one.report.relative_residual <= 1e-10);
  CHECK((one.x - reference.x).norm() <= 1e-7 * reference.x.norm());
}

}  // namespace

TEST_CASE("solvers/team_cg: block Jacobi on 3 x 3 vertex blocks, one and two threads") {
  Eigen::Matrix3d K;
  K << 1.0, 0.5, 0.2, 0.5, 1.0, 0.3, 0.2, 0.3, 1.0;
  const SparseMatrix A = test::block_kronecker(test::laplacian_3d(12, 0.01), K);
  REQUIRE(A.rows() >= TeamCg::kMinTeamRows);
  const SparseMatrixOperator op(A);
  REQUIRE(op.layout().block() == 3);
  BlockJacobiPreconditioner block_jacobi;
  REQUIRE(block_jacobi.set(A, op.layout()).ok());
  check_against_reference(A, op, block_jacobi);
  JacobiPreconditioner jacobi;
  REQUIRE(jacobi.set_diagonal(A.diagonal()).ok());
  check_against_reference(A, op, jacobi);
}

TEST_CASE("solvers/team_cg: Jacobi on a matrix without vertex blocks (scalar product)") {
  const SparseMatrix A = test::laplacian_2d(70, 70, 0.01);
  const SparseMatrixOperator op(A);
  REQUIRE(op.layout().block() == 1);
  JacobiPreconditioner jacobi;
  REQUIRE(jacobi.set_diagonal(A.diagonal()).ok());
  check_against_reference(A, op, jacobi);
}

TEST_CASE("solvers/team_cg: the same failures and limits as conjugate_gradient, on any team") {
  const SparseMatrix A = test::laplacian_2d(70, 70, 0.01);
  const SparseMatrixOperator op(A);
  JacobiPreconditioner jacobi;
  REQUIRE(jacobi.set_diagonal(A.diagonal()).ok());
  const Eigen::VectorXd b = test::random_vector(A.rows(), 72);

  SUBCASE("an iteration limit stops at it, with the true residual") {
    const CgOptions options{1e-12, 0.0, 7};
    const Solved reference = reference_solve(op, jacobi, b, options);
    for (int threads : {1, 2}) {
      const Solved s = team_solve(threads, op, jacobi, b, options);
      CHECK(s.report.status == Status::MaxIterations);
      CHECK(s.report.iterations == 7);
      CHECK(s.report.residual_norm == doctest::Approx((b - A * s.x).norm()).epsilon(1e-12));
      CHECK(s.report.residual_norm ==
            doctest::Approx(reference.report.residual_norm).epsilon(1e-9));
      CHECK(s.report.message.find("iteration limit reached") != std::string::npos);
      CHECK(s.report.message.find("at iteration 7") != std::string::npos);
    }
  }
  SUBCASE("b = 0 gives x = 0 at once") {
    for (int threads : {1, 2}) {
      TeamCg cg;
      CgScratch<Eigen::VectorXd> scratch;
      resize_cg_scratch(scratch, A.rows());
      Eigen::VectorXd x = Eigen::VectorXd::Ones(A.rows());
      const LinearSolveReport r =
          cg.solve_on(threads, op, jacobi, Eigen::VectorXd::Zero(A.rows()), x, scratch, {});
      CHECK(r.status == Status::Converged);
      CHECK(r.iterations == 0);
      CHECK(x.isZero(0.0));
    }
  }
  SUBCASE("a right-hand side with NaN is a numerical failure") {
    Eigen::VectorXd bad = b;
    bad[4321] = std::numeric_limits<double>::quiet_NaN();
    for (int threads : {1, 2}) {
      const Solved s = team_solve(threads, op, jacobi, bad, CgOptions{});
      CHECK(s.report.status == Status::NumericalFailure);
      CHECK(s.report.message.find("right-hand side is not finite") != std::string::npos);
    }
  }
  SUBCASE("an indefinite matrix with a positive diagonal: non-positive curvature") {
    // The Laplacian's smallest eigenvalue is ~2e-3 at 70 x 70: -0.5 I makes it indefinite.
    const SparseMatrix indefinite = test::laplacian_2d(70, 70, -0.5);
    const SparseMatrixOperator iop(indefinite);
    JacobiPreconditioner ij;
    REQUIRE(ij.set_diagonal(indefinite.diagonal()).ok());
    const Solved reference = reference_solve(iop, ij, b, CgOptions{});
    REQUIRE(reference.report.status == Status::NotPositiveDefinite);
    const Solved one = team_solve(1, iop, ij, b, CgOptions{});
    const Solved two = team_solve(2, iop, ij, b, CgOptions{});
    CHECK(one.report.status == Status::NotPositiveDefinite);
    CHECK(one.report.message.find("non-positive curvature") != std::string::npos);
    CHECK(two.report.status == one.report.status);
    CHECK(two.report.iterations == one.report.iterations);
    CHECK(two.report.message == one.report.message);
    CHECK(std::abs(one.report.iterations - reference.report.iterations) <= 2);
  }
}

}  // namespace softgrad
