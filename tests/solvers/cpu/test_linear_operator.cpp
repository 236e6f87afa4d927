#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <string>

#include "softgrad/detail/assembly.hpp"
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

// Whether two products of A and x agree to rounding: a sum of m products, in any order, with
// or without fused multiply-adds, is within m eps (|A| |x|)_i of the exact one (m: the most
// entries of a column), so two of them are within 2 m eps of each other.
bool equal_to_rounding(const SparseMatrix& A, const Eigen::VectorXd& x, const Eigen::VectorXd& a,
                       const Eigen::VectorXd& b) {
  Eigen::Index m = 0;
  for (Eigen::Index j = 0; j < A.outerSize(); ++j)
    m = std::max<Eigen::Index>(m, A.outerIndexPtr()[j + 1] - A.outerIndexPtr()[j]);
  const Eigen::VectorXd bound =
      (2.0 * static_cast<double>(m) * std::numeric_limits<double>::epsilon()) *
      (A.cwiseAbs() * x.cwiseAbs());
  return ((a - b).cwiseAbs().array() <= bound.array()).all();
}

TEST_CASE("solvers/linear_operator: the block product equals the scalar one") {
  // 3D and 2D; 900 dofs runs serially, 7500 (3D) in parallel. The portable kernel sums each
  // entry in the scalar product's order (bit for bit); the AVX2 kernel (3D, where the CPU has
  // it) sums in 4 lanes with fused multiply-adds: equal to rounding (a wrong index or a lost
  // block is off by O(|A| |x|)).
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
    Eigen::VectorXd scalar, portable, fastest;
    symmetric_spmv(A, x, scalar);
    CHECK((scalar - A * x).norm() <= 1e-13 * scalar.norm());
    detail::force_portable_block_product(true);
    CHECK(std::string(block_product_kernel()) == "portable");
    symmetric_spmv(A, layout, x, portable);
    detail::force_portable_block_product(false);
    CHECK(portable == scalar);
    symmetric_spmv(A, layout, x, fastest);
    CAPTURE(block_product_kernel());
    CHECK(equal_to_rounding(A, x, fastest, scalar));
    // The operator finds the layout itself and uses the same kernel.
    Eigen::VectorXd y(A.rows());
    SparseMatrixOperator(A).apply(x, y);
    CHECK(y == fastest);
  }
}

TEST_CASE(
    "solvers/linear_operator: the block product handles columns of one, two and three blocks") {
  // The AVX2 kernel takes blocks in pairs and masks each column's last block: columns of
  // 1, 2 and 3 blocks (a diagonal block, plus 0, 1 or 2 neighbours) cover each branch.
  const int n_verts = 4;
  std::vector<Eigen::Triplet<double>> entries;
  const std::vector<std::pair<int, int>> edges = {{0, 1}, {0, 2}};  // vertex 3: diagonal only
  std::mt19937 rng(60);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  auto add_block = [&](int a, int b) {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const double v = value(rng);
        entries.emplace_back(3 * a + i, 3 * b + j, v);
        if (a != b) entries.emplace_back(3 * b + j, 3 * a + i, v);
      }
  };
  for (int v = 0; v < n_verts; ++v) add_block(v, v);
  for (const auto& [a, b] : edges) add_block(a, b);
  // Symmetrise the diagonal blocks.
  SparseMatrix A(3 * n_verts, 3 * n_verts);
  A.setFromTriplets(entries.begin(), entries.end());
  A = SparseMatrix(0.5 * (A + SparseMatrix(A.transpose())));
  A.makeCompressed();
  BlockLayout layout;
  layout.analyze(A);
  REQUIRE(layout.block() == 3);
  const Eigen::VectorXd x = test::random_vector(3 * n_verts, 61);
  Eigen::VectorXd y;
  symmetric_spmv(A, layout, x, y);
  const Eigen::VectorXd expected = A * x;
  CAPTURE(block_product_kernel());
  CHECK(equal_to_rounding(A, x, y, expected));
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
