#include <doctest/doctest.h>

#include "solvers/cpu/linear_operator.hpp"
#include "solvers/spd_matrices.hpp"

namespace softgrad {
namespace {

TEST_CASE("solvers/linear_operator: the symmetric product equals Eigen's, serial and parallel") {
  // 300 rows runs serially, 6000 rows in parallel.
  for (const int n : {300, 6000}) {
    const SparseMatrix A = test::random_spd(n, 3, 1.0, 51);
    const Eigen::VectorXd x = test::random_vector(n, 52);
    Eigen::VectorXd y;
    symmetric_spmv(A, x, y);
    const Eigen::VectorXd expected = A * x;
    CAPTURE(n);
    CHECK((y - expected).norm() <= 1e-13 * expected.norm());
  }
}

TEST_CASE("solvers/linear_operator: SparseMatrixOperator applies A and gives its diagonal") {
  const SparseMatrix A = test::laplacian_2d(5, 4, 0.5);
  const SparseMatrixOperator op(A);
  CHECK(op.size() == 20);
  const Eigen::VectorXd x = test::random_vector(20, 53);
  Eigen::VectorXd y(20);
  op.apply(x, y);
  CHECK(y.isApprox(A * x));
  Eigen::VectorXd d(20);
  op.diagonal(d);
  CHECK(d.isApprox(Eigen::VectorXd::Constant(20, 4.5)));
  CHECK(SparseMatrixOperator().size() == 0);
}

TEST_CASE(
    "solvers/linear_operator: the adaptive product gives the same vector whichever way it runs") {
  // 6000 rows: both the serial and the parallel form run (the first two calls, then probes).
  const int n = 6000;
  const SparseMatrix A = test::random_spd(n, 3, 1.0, 54);
  const Eigen::VectorXd x = test::random_vector(n, 55);
  Eigen::VectorXd reference, y;
  symmetric_spmv(A, x, reference);
  CHECK((reference - A * x).norm() <= 1e-13 * reference.norm());
  AdaptiveSpmv spmv;
  for (int call = 0; call < 3 * AdaptiveSpmv::kProbeEvery; ++call) {
    spmv.apply(A, x, y);
    CAPTURE(call);
    REQUIRE(y == reference);  // bit for bit: each entry is summed the same way
  }
}

}  // namespace
}  // namespace softgrad
