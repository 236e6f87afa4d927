#include <doctest/doctest.h>

#include <random>

#include "softgrad/assembly.hpp"
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
  BlockLayout layout;
  layout.analyze(A);
  CHECK(layout.block() == 1);  // a random pattern has no vertex blocks
  AdaptiveSpmv spmv;
  for (int call = 0; call < 3 * AdaptiveSpmv::kProbeEvery; ++call) {
    spmv.apply(A, layout, x, y);
    CAPTURE(call);
    REQUIRE(y == reference);  // bit for bit: each entry is summed the same way
  }
}

// A matrix as HessianAssembler builds it: random 4-vertex stencils with random symmetric
// blocks, plus a diagonal.
SparseMatrix assembled(int n_verts, int dim, int n_stencils, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> vertex(0, n_verts - 1);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<int> verts;
  for (int s = 0; s < n_stencils; ++s)
    for (int a = 0; a < 4; ++a) verts.push_back(vertex(rng));
  SparsityBuilder builder(n_verts, dim);
  const int id = builder.add_stencils(verts.data(), n_stencils, 4);
  HessianAssembler assembler(builder);
  const int m = 4 * dim;
  std::vector<double> local(static_cast<size_t>(n_stencils) * m * m);
  for (int s = 0; s < n_stencils; ++s)
    for (int r = 0; r < m; ++r)
      for (int c = 0; c <= r; ++c)
        local[(static_cast<size_t>(s) * m + r) * m + c] =
            local[(static_cast<size_t>(s) * m + c) * m + r] = value(rng);
  assembler.add_stencils(id, local.data());
  assembler.add_scaled_identity(10.0);
  return assembler.matrix();
}

TEST_CASE("solvers/linear_operator: the block product equals the scalar one bit for bit") {
  // 3D and 2D; 900 dofs runs serially, 7500 (3D) in parallel.
  for (const auto& size : {std::pair{300, 3}, std::pair{2500, 3}, std::pair{450, 2}}) {
    const int n_verts = size.first;
    const int dim = size.second;
    const SparseMatrix A = assembled(n_verts, dim, 2 * n_verts, 56);
    BlockLayout layout;
    layout.analyze(A);
    CAPTURE(n_verts);
    CAPTURE(dim);
    REQUIRE(layout.block() == dim);
    CHECK(layout.begin().size() == static_cast<size_t>(n_verts) + 1);
    CHECK(layout.rows().size() * dim * dim == static_cast<size_t>(A.nonZeros()));
    const Eigen::VectorXd x = test::random_vector(n_verts * dim, 57);
    Eigen::VectorXd scalar, blocked;
    symmetric_spmv(A, x, scalar);
    symmetric_spmv(A, layout, x, blocked);
    CHECK((scalar - A * x).norm() <= 1e-13 * scalar.norm());
    CHECK(blocked == scalar);
    // The operator finds the layout itself.
    Eigen::VectorXd y(A.rows());
    SparseMatrixOperator(A).apply(x, y);
    CHECK(y == scalar);
  }
}

TEST_CASE("solvers/linear_operator: a matrix whose vertex columns differ has no block layout") {
  SparseMatrix A = assembled(40, 3, 60, 58);
  BlockLayout layout;
  layout.analyze(A);
  REQUIRE(layout.block() == 3);
  // Drop one off-diagonal entry of column 1 (and its mirror): columns 0, 1, 2 now differ.
  std::vector<Eigen::Triplet<double>> entries;
  for (int col = 0; col < A.outerSize(); ++col)
    for (SparseMatrix::InnerIterator it(A, col); it; ++it)
      if (!((it.row() == 1 && it.col() == 0) || (it.row() == 0 && it.col() == 1)))
        entries.emplace_back(static_cast<int>(it.row()), static_cast<int>(it.col()), it.value());
  SparseMatrix B(A.rows(), A.cols());
  B.setFromTriplets(entries.begin(), entries.end());
  B.makeCompressed();
  layout.analyze(B);
  CHECK(layout.block() == 1);
  const Eigen::VectorXd x = test::random_vector(120, 59);
  Eigen::VectorXd y;
  symmetric_spmv(B, layout, x, y);
  CHECK((y - B * x).norm() <= 1e-13 * y.norm());
  // Not compressed: no layout either.
  B.uncompress();
  layout.analyze(B);
  CHECK(layout.block() == 1);
}

}  // namespace
}  // namespace softgrad
