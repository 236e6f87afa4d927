// RecycledGuess: the Galerkin projection onto earlier solutions is the A-norm-closest point of
// their span, never worse than the warm start, and harmless on dependent or indefinite input.
#include <doctest/doctest.h>

#include <Eigen/SparseCholesky>
#include <cmath>

#include "solvers/cpu/recycled_guess.hpp"
#include "solvers/spd_matrices.hpp"

namespace softgrad {
namespace {

double a_norm(const SparseMatrix& A, const Eigen::VectorXd& e) { return std::sqrt(e.dot(A * e)); }

Eigen::VectorXd solve(const SparseMatrix& A, const Eigen::VectorXd& b) {
  Eigen::SimplicialLDLT<SparseMatrix> ldlt(A);
  return ldlt.solve(b);
}

}  // namespace

TEST_CASE("solvers/recycled_guess: a solution in the span is found exactly") {
  const SparseMatrix A = test::laplacian_2d(12, 10, 0.1);
  const SparseMatrixOperator op(A);
  const Eigen::VectorXd b = test::random_vector(120, 71);
  const Eigen::VectorXd exact = solve(A, b);
  const Eigen::VectorXd v = test::random_vector(120, 72);
  RecycledGuess recycled(4);
  recycled.add(v);
  recycled.add(exact - 0.3 * v);  // the span of the two holds the solution
  Eigen::VectorXd x = Eigen::VectorXd::Zero(120);
  recycled.guess(op, b, x);
  CHECK((x - exact).norm() <= 1e-10 * exact.norm());
}

TEST_CASE("solvers/recycled_guess: the guess is the A-norm-closest point of the span") {
  const SparseMatrix A = test::random_spd(200, 4, 1.0, 73);
  const SparseMatrixOperator op(A);
  const Eigen::VectorXd b = test::random_vector(200, 74);
  const Eigen::VectorXd exact = solve(A, b);
  // Earlier "solutions": the exact one perturbed, as the previous steps' would be.
  RecycledGuess recycled(3);
  std::vector<Eigen::VectorXd> kept;
  for (int k = 0; k < 5; ++k) {
    kept.push_back(exact + 0.2 * test::random_vector(200, 80 + k));
    recycled.add(kept.back());
  }
  CHECK(recycled.size() == 3);  // the oldest two are gone
  const Eigen::VectorXd warm = exact + 0.5 * test::random_vector(200, 90);
  Eigen::VectorXd x = warm;
  recycled.guess(op, b, x);
  const double error = a_norm(A, x - exact);
  // Better than the warm start and than each kept solution alone...
  CHECK(error < a_norm(A, warm - exact));
  for (int k = 2; k < 5; ++k) CHECK(error < a_norm(A, kept[k] - exact));
  // ...and optimal: the residual is A-orthogonal to the span (Galerkin condition).
  const Eigen::VectorXd residual = b - A * x;
  for (const Eigen::VectorXd& v : {kept[2], kept[3], kept[4], warm})
    CHECK(std::abs(v.dot(residual)) <= 1e-10 * v.norm() * b.norm());
}

TEST_CASE("solvers/recycled_guess: dependent, indefinite and mismatched input changes nothing") {
  const SparseMatrix A = test::laplacian_2d(6, 5, 0.2);
  const SparseMatrixOperator op(A);
  const Eigen::VectorXd b = test::random_vector(30, 75);
  const Eigen::VectorXd v = test::random_vector(30, 76);
  SUBCASE("parallel vectors count once") {
    RecycledGuess recycled(4);
    recycled.add(v);
    recycled.add(v * (1.0 + 1e-15));
    recycled.add(2.0 * v);
    Eigen::VectorXd x = v;
    recycled.guess(op, b, x);
    REQUIRE(x.allFinite());
    // The best multiple of v: (v.b / v.Av) v.
    const Eigen::VectorXd best = (v.dot(b) / v.dot(A * v)) * v;
    CHECK((x - best).norm() <= 1e-12 * best.norm());
  }
  SUBCASE("capacity 0 keeps nothing") {
    RecycledGuess recycled(0);
    recycled.add(v);
    CHECK(recycled.size() == 0);
    Eigen::VectorXd x = Eigen::VectorXd::Ones(30);
    recycled.guess(op, b, x);
    CHECK(x == Eigen::VectorXd::Ones(30));
  }
  SUBCASE("a matrix not positive on the span leaves the warm start") {
    const SparseMatrix N = -A;
    RecycledGuess recycled(2);
    recycled.add(v);
    Eigen::VectorXd x = Eigen::VectorXd::Ones(30);
    recycled.guess(SparseMatrixOperator(N), b, x);
    CHECK(x == Eigen::VectorXd::Ones(30));
  }
  SUBCASE("solutions of another size are dropped") {
    RecycledGuess recycled(2);
    recycled.add(Eigen::VectorXd::Ones(7));
    Eigen::VectorXd x = v;
    recycled.guess(op, b, x);
    CHECK(x == v);
    CHECK(recycled.size() == 0);
  }
}

}  // namespace softgrad
