// PlannedCholesky: solutions equal a dense Cholesky's in any elimination order, the planned
// pattern is the true pattern of L (compared with Eigen's simplicial factor in the same order),
// refactorization with new values, failing pivots reported in the planned order.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <Eigen/SparseCholesky>
#include <algorithm>
#include <numeric>
#include <random>

#include "solvers/cpu/planned_cholesky.hpp"
#include "solvers/spd_matrices.hpp"

namespace softgrad {
namespace {

std::vector<std::vector<int>> orders(int n) {
  std::vector<int> natural(n), reversed(n), shuffled(n);
  std::iota(natural.begin(), natural.end(), 0);
  std::reverse_copy(natural.begin(), natural.end(), reversed.begin());
  shuffled = natural;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(5));
  return {natural, reversed, shuffled};
}

/// nnz of the lower factor of P A P^T (perm[new] = old) by Eigen's simplicial Cholesky.
long eigen_factor_nonzeros(const SparseMatrix& A, const std::vector<int>& perm) {
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> P(static_cast<int>(perm.size()));
  for (size_t k = 0; k < perm.size(); ++k) P.indices()[perm[k]] = static_cast<int>(k);
  SparseMatrix B;
  B = A.twistedBy(P);
  Eigen::SimplicialLLT<SparseMatrix, Eigen::Lower, Eigen::NaturalOrdering<int>> llt(B);
  REQUIRE(llt.info() == Eigen::Success);
  const SparseMatrix L = llt.matrixL();
  return static_cast<long>(L.nonZeros());
}

TEST_CASE("solvers/planned_cholesky: solves like a dense Cholesky in any order and block size") {
  for (SparseMatrix A : {test::laplacian_2d(6, 6, 0.3), test::random_spd(60, 4, 0.1, 3)}) {
    A.makeCompressed();
    const Eigen::MatrixXd dense = Eigen::MatrixXd(A);
    const Eigen::VectorXd b = test::random_vector(A.rows(), 4);
    const Eigen::VectorXd expected = dense.llt().solve(b);
    for (const std::vector<int>& perm : orders(static_cast<int>(A.rows())))
      for (int block = 1; block <= 3; ++block) {
        INFO("block size " << block);
        auto c = PlannedCholesky::plan(A, perm.data(), 1000000, block);
        REQUIRE(c.has_value());
        CHECK(c->block_size() == block);
        if (block == 1) CHECK(c->factor_nonzeros() == eigen_factor_nonzeros(A, perm));
        REQUIRE(c->factorize(A.valuePtr()) == -1);
        Eigen::VectorXd x;
        c->solve(b, x);
        CHECK((x - expected).norm() <= 1e-12 * expected.norm());
      }
  }
}

TEST_CASE("solvers/planned_cholesky: vertex blocks are found when the order keeps them") {
  // A 2D-Laplacian on vertices times an SPD 2 x 2 block: every vertex has two coupled dofs.
  SparseMatrix V = test::laplacian_2d(5, 4, 0.5);
  std::vector<Eigen::Triplet<double>> t;
  const double block[2][2] = {{2.0, 0.5}, {0.5, 1.0}};
  for (int j = 0; j < V.outerSize(); ++j)
    for (SparseMatrix::InnerIterator it(V, j); it; ++it)
      for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 2; ++c)
          t.emplace_back(2 * it.row() + r, 2 * j + c, it.value() * block[r][c]);
  SparseMatrix A(40, 40);
  A.setFromTriplets(t.begin(), t.end());
  A.makeCompressed();
  std::vector<int> pairs(40);  // vertices reversed, each vertex's dofs kept together
  for (int v = 0; v < 20; ++v) pairs[2 * v] = 2 * (19 - v), pairs[2 * v + 1] = 2 * (19 - v) + 1;
  auto blocked = PlannedCholesky::plan(A, pairs.data(), 1000000);
  REQUIRE(blocked.has_value());
  CHECK(blocked->block_size() == 2);
  const std::vector<int> shuffled = orders(40)[2];
  auto scalar = PlannedCholesky::plan(A, shuffled.data(), 1000000);
  REQUIRE(scalar.has_value());
  CHECK(scalar->block_size() == 1);
  const Eigen::VectorXd b = test::random_vector(40, 8);
  Eigen::VectorXd x, y;
  REQUIRE(blocked->factorize(A.valuePtr()) == -1);
  REQUIRE(scalar->factorize(A.valuePtr()) == -1);
  blocked->solve(b, x);
  scalar->solve(b, y);
  CHECK(test::relative_residual(A, x, b) <= 1e-13);
  CHECK((x - y).norm() <= 1e-12 * y.norm());
}

TEST_CASE("solvers/planned_cholesky: refactorizes new values and solves in place") {
  SparseMatrix A = test::laplacian_2d(6, 6, 1.0);
  A.makeCompressed();
  const std::vector<int> perm = orders(static_cast<int>(A.rows()))[2];
  auto c = PlannedCholesky::plan(A, perm.data(), 1000000);
  REQUIRE(c.has_value());
  REQUIRE(c->factorize(A.valuePtr()) == -1);
  SparseMatrix B = A;
  B.coeffs() *= 3.0;
  B.diagonal().array() += 1.0;
  REQUIRE(c->factorize(B.valuePtr()) == -1);
  const Eigen::VectorXd b = test::random_vector(B.rows(), 9);
  Eigen::VectorXd x = b;
  c->solve(x, x);
  CHECK(test::relative_residual(B, x, b) <= 1e-13);
}

TEST_CASE("solvers/planned_cholesky: a failing pivot is reported in the planned order") {
  // diag(1, 2, -1, 3) eliminated in the order 3, 2, 1, 0: the failing column 2 comes second.
  SparseMatrix A(4, 4);
  for (int i = 0; i < 4; ++i) A.insert(i, i) = i == 2 ? -1.0 : i + 1.0;
  A.makeCompressed();
  const std::vector<int> perm = {3, 2, 1, 0};
  auto c = PlannedCholesky::plan(A, perm.data(), 100);
  REQUIRE(c.has_value());
  CHECK(c->factorize(A.valuePtr()) == 1);
  // Forced 2 x 2 blocks: the same column, found inside the second block.
  auto blocked = PlannedCholesky::plan(A, perm.data(), 100, 2);
  REQUIRE(blocked.has_value());
  CHECK(blocked->factorize(A.valuePtr()) == 1);
  // An indefinite Laplacian fails somewhere; NaN fails too.
  SparseMatrix L = test::laplacian_2d(5, 5, -2.0);
  L.makeCompressed();
  const std::vector<int> natural = orders(25)[0];
  auto d = PlannedCholesky::plan(L, natural.data(), 1000000);
  REQUIRE(d.has_value());
  CHECK(d->factorize(L.valuePtr()) >= 0);
  L.coeffs()[0] = std::nan("");
  CHECK(d->factorize(L.valuePtr()) == 0);
}

TEST_CASE("solvers/planned_cholesky: no plan above the update limit") {
  SparseMatrix A = test::laplacian_2d(10, 10, 1.0);
  A.makeCompressed();
  const std::vector<int> natural = orders(100)[0];
  CHECK_FALSE(PlannedCholesky::plan(A, natural.data(), 50).has_value());
  auto c = PlannedCholesky::plan(A, natural.data(), 1000000);
  REQUIRE(c.has_value());
  CHECK(c->update_count() > 50);
}

}  // namespace
}  // namespace softgrad
