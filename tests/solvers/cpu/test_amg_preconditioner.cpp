#include <doctest/doctest.h>

#include "softgrad/errors.hpp"
#include "solvers/cpu/amg_preconditioner.hpp"
#include "solvers/cpu/pcg_solver.hpp"
#include "solvers/spd_matrices.hpp"

namespace softgrad {
namespace {

using Status = LinearSolveReport::Status;

// The vertex-block layout of a 3D elasticity Hessian: a 3D Laplacian's pattern with each vertex's
// three dofs coupled by K (eigenvalues 0.4 to 2.2).
SparseMatrix elastic_like(int n, double coupling, double shift = 0.01) {
  Eigen::Matrix3d K;
  K << 1.0, coupling, coupling, coupling, 1.0, coupling, coupling, coupling, 1.0;
  return test::block_kronecker(test::laplacian_3d(n, shift), K);
}

const bool kNoHypre = !amg_available();

}  // namespace

TEST_CASE("solvers/amg: one V-cycle is a symmetric positive definite operator" *
          doctest::skip(kNoHypre)) {
  // CG needs M^-1 symmetric and positive definite: forward Gauss-Seidel down and backward up.
  const SparseMatrix A = elastic_like(9, 0.6);
  AmgPreconditioner amg;
  REQUIRE(amg.setup(A, 3).ok());
  Eigen::VectorXd Mu(A.rows()), Mv(A.rows());
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const Eigen::VectorXd u = test::random_vector(A.rows(), seed);
    const Eigen::VectorXd v = test::random_vector(A.rows(), seed + 10);
    amg.apply(u, Mu);
    amg.apply(v, Mv);
    CHECK(std::abs(v.dot(Mu) - u.dot(Mv)) <= 1e-12 * Mu.norm() * v.norm());
    CHECK(u.dot(Mu) > 0.0);
    CHECK(v.dot(Mv) > 0.0);
  }
  // The same input gives the same output (no state carried from one apply to the next).
  const Eigen::VectorXd u = test::random_vector(A.rows(), 1);
  Eigen::VectorXd again(A.rows());
  amg.apply(u, again);
  amg.apply(test::random_vector(A.rows(), 2), Mv);
  amg.apply(u, Mu);
  CHECK(Mu == again);
}

TEST_CASE("solvers/amg: multigrid CG solves to the tolerance in a few iterations at every size" *
          doctest::skip(kNoHypre)) {
  // Jacobi's iteration count grows with the mesh (as 1/h); multigrid's stays about the same.
  int previous_amg = 0;
  for (int n : {8, 16}) {
    CAPTURE(n);
    const SparseMatrix A = elastic_like(n, 0.6);
    const Eigen::VectorXd b = test::random_vector(A.rows(), 41);
    int iterations[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
      PcgSolver solver(k == 0 ? PcgPreconditioner::Jacobi : PcgPreconditioner::Amg,
                       CgOptions{1e-10, 0.0, 5000});
      REQUIRE(solver.factorize(A).ok());
      Eigen::VectorXd x;
      const LinearSolveReport report = solver.solve(b, x);
      CHECK(report.ok());
      CHECK(test::relative_residual(A, x, b) <= 1e-10);
      iterations[k] = report.iterations;
    }
    CAPTURE(iterations[0]);
    CAPTURE(iterations[1]);
    CHECK(iterations[1] * 4 < iterations[0]);
    if (previous_amg > 0) CHECK(iterations[1] <= previous_amg + 5);
    previous_amg = iterations[1];
  }
}

TEST_CASE("solvers/amg: the hierarchy is kept while CG stays fast and set up again otherwise" *
          doctest::skip(kNoHypre)) {
  const SparseMatrix A = elastic_like(10, 0.3);
  const Eigen::VectorXd b = test::random_vector(A.rows(), 42);
  PcgSolver solver(PcgPreconditioner::Amg, CgOptions{1e-10, 0.0, 5000});
  CHECK(solver.name() == "amg");
  Eigen::VectorXd x;
  REQUIRE(solver.factorize(A).ok());
  REQUIRE(solver.solve(b, x).ok());
  CHECK(solver.amg_setups() == 1);
  // A Newton-like neighbour: the kept hierarchy serves, and the solution is exact for it.
  const SparseMatrix A2 = 1.02 * A;
  REQUIRE(solver.factorize(A2).ok());
  x.setZero();
  REQUIRE(solver.solve(b, x).ok());
  CHECK(test::relative_residual(A2, x, b) <= 1e-10);
  CHECK(solver.amg_setups() == 1);
  // A matrix far from the hierarchy's (same pattern, dofs strongly coupled, stiffer): still
  // solved, but slowly, so the next factorize() sets up again.
  const SparseMatrix far = elastic_like(10, 0.95, 5.0) + 1e3 * elastic_like(10, 0.0, 0.0);
  REQUIRE(solver.factorize(far).ok());
  x.setZero();
  const LinearSolveReport slow = solver.solve(b, x);
  REQUIRE(slow.ok());
  CHECK(test::relative_residual(far, x, b) <= 1e-10);
  CHECK(solver.amg_setups() == 1);
  REQUIRE(solver.factorize(far).ok());
  CHECK(solver.amg_setups() == 2);
  x.setZero();
  const LinearSolveReport fresh = solver.solve(b, x);
  REQUIRE(fresh.ok());
  CAPTURE(slow.iterations);
  CAPTURE(fresh.iterations);
  CHECK(fresh.iterations < slow.iterations);
  // A new pattern always gets its own hierarchy.
  REQUIRE(solver.factorize(elastic_like(7, 0.3)).ok());
  CHECK(solver.amg_setups() == 3);
}

TEST_CASE("solvers/amg: the refresh rule compares decades per iteration") {
  AmgRefresh refresh;
  CHECK(refresh.stale());  // nothing set up yet
  refresh.set_up();
  CHECK_FALSE(refresh.stale());
  refresh.observe(10, 1e-10);  // 1 decade per iteration when fresh
  refresh.observe(3, 1e-2);    // a loose solve at 0.67 decades per iteration: still fine
  CHECK_FALSE(refresh.stale());
  refresh.observe(0, 1.0);  // nothing to learn from a warm start already converged
  CHECK_FALSE(refresh.stale());
  refresh.observe(20, 1e-10);  // 0.5 decades per iteration, below 0.6 of the fresh rate
  CHECK(refresh.stale());
  refresh.set_up();
  CHECK_FALSE(refresh.stale());
  refresh.invalidate();
  CHECK(refresh.stale());
}

TEST_CASE("solvers/amg: bad matrices are reported, and an indefinite one is set up again" *
          doctest::skip(kNoHypre)) {
  SparseMatrix A = elastic_like(5, 0.3);
  PcgSolver solver(PcgPreconditioner::Amg);
  SparseMatrix zero_diagonal = A;
  zero_diagonal.coeffRef(7, 7) = 0.0;
  const LinearSolveReport npd = solver.factorize(zero_diagonal);
  CHECK(npd.status == Status::NotPositiveDefinite);
  CHECK(npd.message.find("A(7, 7)") != std::string::npos);
  Eigen::VectorXd x;
  CHECK(solver.solve(test::random_vector(A.rows(), 1), x).status == Status::NotPositiveDefinite);
  SparseMatrix nan = A;
  nan.coeffRef(3, 4) = std::nan("");
  nan.coeffRef(4, 3) = std::nan("");
  CHECK(solver.factorize(nan).status == Status::NumericalFailure);
  // A healthy matrix afterwards works again.
  REQUIRE(solver.factorize(A).ok());
  x.resize(0);
  CHECK(solver.solve(test::random_vector(A.rows(), 1), x).ok());
  const int setups = solver.amg_setups();
  // Indefinite with a positive diagonal: CG proves it (or its preconditioner breaks down), and
  // the next matrix (Newton's projected one) gets a hierarchy of its own.
  const SparseMatrix indefinite = test::laplacian_2d(12, 12, -2.0);
  REQUIRE(solver.factorize(indefinite).ok());
  x.resize(0);
  const LinearSolveReport r = solver.solve(test::random_vector(indefinite.rows(), 2), x);
  CHECK((r.status == Status::NotPositiveDefinite || r.status == Status::Breakdown));
  const SparseMatrix definite = test::laplacian_2d(12, 12, 0.1);
  REQUIRE(solver.factorize(definite).ok());
  CHECK(solver.amg_setups() == setups + 2);
  x.resize(0);
  CHECK(solver.solve(test::random_vector(definite.rows(), 2), x).ok());
}

TEST_CASE("solvers/amg: the factory builds it by name and refuses other preconditioners") {
  LinearSolverOptions options;
  options.kind = "amg";
  if (amg_available()) {
    CHECK(make_linear_solver(options)->name() == "amg");
  } else {
    CHECK_THROWS_WITH_AS(make_linear_solver(options),
                         doctest::Contains("needs hypre: install libhypre-dev"), InputError);
  }
  options.preconditioner = "ichol";
  CHECK_THROWS_WITH_AS(make_linear_solver(options),
                       "linear solver: preconditioner 'ichol' does not apply to kind 'amg', whose "
                       "preconditioner is algebraic multigrid (use kind 'pcg' for 'ichol')",
                       InputError);
}

}  // namespace softgrad
