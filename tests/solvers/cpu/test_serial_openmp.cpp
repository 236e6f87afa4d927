#include <doctest/doctest.h>

#include "solvers/cpu/cholmod_solver.hpp"
#include "solvers/cpu/import_redirect.hpp"
#include "solvers/cpu/serial_openmp.hpp"
#include "solvers/spd_matrices.hpp"

namespace softgrad {
namespace {

// A 3D Laplacian big enough for CHOLMOD's supernodal factorization (which starts OpenMP regions
// per supernode): factorized and solved, with regions inline or not.
Eigen::VectorXd factorize_and_solve(const SparseMatrix& A, const Eigen::VectorXd& b) {
  CholmodSolver solver;
  solver.analyze(A);
  REQUIRE(solver.factorize(A).ok());
  Eigen::VectorXd x;
  REQUIRE(solver.solve(b, x).ok());
  return x;
}

TEST_CASE("solvers/serial_openmp: CHOLMOD's regions run inline, bit for bit as in the runtime") {
  CholmodSolver constructed;  // redirects CHOLMOD's import once per process
  REQUIRE(inline_cholmod_openmp_regions());
  const SparseMatrix A = test::laplacian_3d(16, 0.5);
  const Eigen::VectorXd b = test::random_vector(A.rows(), 5);

  const long before = inlined_openmp_regions();
  const Eigen::VectorXd inline_x = factorize_and_solve(A, b);
  const long inline_regions = inlined_openmp_regions() - before;
  CHECK(inline_regions > 0);  // the factorization is supernodal and its regions came here
  CHECK(test::relative_residual(A, inline_x, b) <= 1e-12);

  set_openmp_regions_inline(false);
  const long before_runtime = inlined_openmp_regions();
  const Eigen::VectorXd runtime_x = factorize_and_solve(A, b);
  CHECK(inlined_openmp_regions() == before_runtime);  // every region went to libgomp
  set_openmp_regions_inline(true);
  CHECK(runtime_x == inline_x);  // one thread either way: the same arithmetic

  // Regions outside a SerialOpenMP scope are never inlined (this one is softgrad's own).
  int threads_seen = 0;
#pragma omp parallel num_threads(1)
  threads_seen = 1;
  CHECK(threads_seen == 1);
  CHECK(inlined_openmp_regions() == before + inline_regions);
}

TEST_CASE("solvers/import_redirect: changes nothing for a library or symbol that is not there") {
  int dummy = 0;
  CHECK(redirect_import("libsoftgrad-not-loaded.so", "GOMP_parallel", &dummy) == nullptr);
  CHECK(redirect_import("libcholmod.so", "softgrad_no_such_import", &dummy) == nullptr);
}

}  // namespace
}  // namespace softgrad
