#include <doctest/doctest.h>

#include <Eigen/SparseCholesky>
#include <string>

#include "softgrad/errors.hpp"
#include "softgrad/solvers/linear_solver.hpp"
#include "solvers/cuda_backend.hpp"
#include "solvers/spd_matrices.hpp"

namespace softgrad {
namespace {

// Solves A x = b with the named solver; checks the report and the residual.
Eigen::VectorXd solve_with(const LinearSolverOptions& options, const SparseMatrix& A,
                           const Eigen::VectorXd& b) {
  CAPTURE(options.kind);
  CAPTURE(options.preconditioner);
  const auto solver = make_linear_solver(options);
  solver->analyze(A);
  const LinearSolveReport factor = solver->factorize(A);
  REQUIRE_MESSAGE(factor.ok(), factor.message);
  Eigen::VectorXd x;
  const LinearSolveReport report = solver->solve(b, x);
  REQUIRE_MESSAGE(report.ok(), report.message);
  CHECK(test::relative_residual(A, x, b) <= 1e-9);
  CHECK(report.relative_residual <= 1e-9);
  return x;
}

// All backends agree with each other and with Eigen's SimplicialLDLT.
void check_agreement(const SparseMatrix& A, const Eigen::VectorXd& b) {
  const Eigen::SimplicialLDLT<SparseMatrix> ldlt(A);
  REQUIRE(ldlt.info() == Eigen::Success);
  const Eigen::VectorXd reference = ldlt.solve(b);
  const double scale = reference.norm();
  const std::pair<const char*, const char*> configs[] = {
      {"cholmod", "jacobi"}, {"pcg", "jacobi"}, {"pcg", "ichol"}, {"matfree", "jacobi"}};
  for (const auto& [kind, pre] : configs) {
    LinearSolverOptions options;
    options.kind = kind;
    options.preconditioner = pre;
    options.rel_tol = 1e-12;
    const Eigen::VectorXd x = solve_with(options, A, b);
    CAPTURE(options.kind);
    CAPTURE(options.preconditioner);
    CHECK((x - reference).norm() <= 1e-8 * scale);
  }
}

TEST_CASE("solvers/linear_solver: all backends agree on a 2D Laplacian plus identity") {
  const SparseMatrix A = test::laplacian_2d(24, 24, 1.0);
  check_agreement(A, test::random_vector(A.rows(), 11));
}

TEST_CASE("solvers/linear_solver: all backends agree on a 3D Laplacian plus identity") {
  const SparseMatrix A = test::laplacian_3d(9, 1.0);
  check_agreement(A, test::random_vector(A.rows(), 12));
}

TEST_CASE("solvers/linear_solver: all backends agree on a random sparse SPD matrix") {
  const SparseMatrix A = test::random_spd(600, 4, 0.5, 13);
  check_agreement(A, test::random_vector(A.rows(), 14));
}

TEST_CASE("solvers/linear_solver: the factory names its solvers") {
  LinearSolverOptions options;
  CHECK(make_linear_solver(options)->name() == "cholmod");
  options.kind = "pcg";
  CHECK(make_linear_solver(options)->name() == "pcg(jacobi)");
  options.preconditioner = "ichol";
  CHECK(make_linear_solver(options)->name() == "pcg(ichol)");
  options.kind = "matfree";
  options.preconditioner = "jacobi";
  CHECK(make_linear_solver(options)->name() == "matfree");
}

TEST_CASE("solvers/linear_solver: the factory rejects unknown names and lists the valid ones") {
  LinearSolverOptions options;
  options.kind = "lu";
  CHECK_THROWS_WITH_AS(
      make_linear_solver(options),
      "linear solver: unknown kind 'lu'; valid kinds: cholmod, pcg, amg, matfree, cuda",
      InputError);
  options.kind = "pcg";
  options.preconditioner = "ilu";
  CHECK_THROWS_WITH_AS(make_linear_solver(options),
                       "linear solver: unknown preconditioner 'ilu'; valid preconditioners: "
                       "jacobi, block_jacobi, ichol",
                       InputError);
  options.kind = "matfree";
  options.preconditioner = "ichol";
  CHECK_THROWS_AS(make_linear_solver(options), InputError);
}

TEST_CASE("solvers/linear_solver: the factory rejects invalid CG settings") {
  LinearSolverOptions options;
  options.kind = "pcg";
  options.rel_tol = std::nan("");
  CHECK_THROWS_AS(make_linear_solver(options), InputError);
  options.rel_tol = 0.0;
  CHECK_THROWS_AS(make_linear_solver(options), InputError);
  options.rel_tol = 1e-8;
  options.max_iterations = 0;
  CHECK_THROWS_WITH_AS(make_linear_solver(options),
                       "linear solver: max_iterations = 0 is invalid: need max_iterations >= 1",
                       InputError);
}

TEST_CASE("solvers/linear_solver: 'cuda' in a CPU build asks for -DSOFTGRAD_WITH_CUDA=ON") {
  if (detail::cuda_backend_built()) return;  // the module's own tests are in tests/cuda
  LinearSolverOptions options;
  options.kind = "cuda";
  CHECK_THROWS_WITH_AS(make_linear_solver(options), "backend 'cuda' needs -DSOFTGRAD_WITH_CUDA=ON",
                       InputError);
}

TEST_CASE("solvers/linear_solver: non-square and one-triangle matrices are rejected") {
  SparseMatrix rectangular(3, 2);
  for (const char* kind : {"cholmod", "pcg", "matfree"}) {
    LinearSolverOptions options;
    options.kind = kind;
    CAPTURE(kind);
    const auto solver = make_linear_solver(options);
    CHECK_THROWS_AS(solver->analyze(rectangular), InputError);
    const SparseMatrix lower = test::laplacian_2d(4, 4, 1.0).triangularView<Eigen::Lower>();
    CHECK_THROWS_AS(solver->factorize(lower), InputError);
  }
}

TEST_CASE("solvers/linear_solver: is_symmetric compares both triangles") {
  SparseMatrix A = test::random_spd(50, 3, 1.0, 15);
  CHECK(is_symmetric(A, 1e-12));
  A.coeffRef(0, 1) += 1e-3;
  CHECK_FALSE(is_symmetric(A, 1e-12));
  CHECK(detail::same_pattern(A, A));
  CHECK_FALSE(detail::same_pattern(A, test::random_spd(50, 3, 1.0, 16)));
}

TEST_CASE("solvers/linear_solver: reports name their status") {
  LinearSolveReport report;
  CHECK_FALSE(report.ok());
  report.status = LinearSolveReport::Status::Converged;
  CHECK(report.ok());
  CHECK(std::string(to_string(LinearSolveReport::Status::NotPositiveDefinite)) ==
        "NotPositiveDefinite");
}

}  // namespace
}  // namespace softgrad
