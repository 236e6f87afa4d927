#include <doctest/doctest.h>

#include "softgrad/errors.hpp"
#include "solvers/cpu/matrix_free_cg.hpp"
#include "solvers/spd_matrices.hpp"

namespace softgrad {
namespace {

using Status = LinearSolveReport::Status;

// The 1D stencil [-1, 2 + shift, -1] applied without a matrix, as an element loop would.
class StencilOperator final : public LinearOperator {
 public:
  StencilOperator(int n, double shift) : n_(n), shift_(shift) {}
  int size() const override { return n_; }
  void apply(const Eigen::VectorXd& in, Eigen::VectorXd& out) const override {
    for (int i = 0; i < n_; ++i) {
      out[i] = (2.0 + shift_) * in[i] - (i > 0 ? in[i - 1] : 0.0) - (i + 1 < n_ ? in[i + 1] : 0.0);
    }
  }
  void diagonal(Eigen::VectorXd& d) const override { d.setConstant(2.0 + shift_); }

 private:
  int n_;
  double shift_;
};

TEST_CASE("solvers/matrix_free_cg: solves through the operator interface") {
  const StencilOperator op(200, 0.05);
  const Eigen::VectorXd b = test::random_vector(200, 41);
  MatrixFreeCgSolver solver(CgOptions{1e-11, 0.0, 1000});
  Eigen::VectorXd x;
  const LinearSolveReport report = solver.solve(op, b, x);
  CHECK(report.ok());
  Eigen::VectorXd Ax(200);
  op.apply(x, Ax);
  CHECK((Ax - b).norm() <= 1e-11 * b.norm());
  // A second solve with another right-hand side reuses the scratch.
  const Eigen::VectorXd c = test::random_vector(200, 42);
  CHECK(solver.solve(op, c, x).ok());
}

TEST_CASE("solvers/matrix_free_cg: agrees with the assembled path") {
  const SparseMatrix A = test::laplacian_3d(7, 0.5);
  const Eigen::VectorXd b = test::random_vector(A.rows(), 43);
  MatrixFreeCgSolver solver;
  Eigen::VectorXd x_op;
  REQUIRE(solver.solve(SparseMatrixOperator(A), b, x_op).ok());
  REQUIRE(solver.factorize(A).ok());
  Eigen::VectorXd x_matrix;
  REQUIRE(solver.solve(b, x_matrix).ok());
  CHECK((x_op - x_matrix).norm() <= 1e-9 * x_op.norm());
  CHECK(test::relative_residual(A, x_matrix, b) <= 1e-10);
}

TEST_CASE("solvers/matrix_free_cg: indefinite operators and too few iterations are reported") {
  MatrixFreeCgSolver solver;
  Eigen::VectorXd x;
  // Negative diagonal: caught before iterating.
  const LinearSolveReport negative =
      solver.solve(StencilOperator(10, -3.0), Eigen::VectorXd::Ones(10), x);
  CHECK(negative.status == Status::NotPositiveDefinite);
  CHECK(negative.message.find("A(0, 0)") != std::string::npos);
  // Positive diagonal, negative curvature: found by CG.
  x.resize(0);
  const LinearSolveReport curvature =
      solver.solve(StencilOperator(50, -1.0), test::random_vector(50, 44), x);
  CHECK(curvature.status == Status::NotPositiveDefinite);
  // Iteration limit.
  solver.set_options(CgOptions{1e-12, 0.0, 2});
  x.resize(0);
  const LinearSolveReport limited =
      solver.solve(StencilOperator(50, 0.0), test::random_vector(50, 45), x);
  CHECK(limited.status == Status::MaxIterations);
  CHECK(limited.iterations == 2);
}

TEST_CASE("solvers/matrix_free_cg: misuse throws") {
  MatrixFreeCgSolver solver;
  Eigen::VectorXd x;
  CHECK_THROWS_AS(solver.solve(Eigen::VectorXd::Ones(2), x), InputError);
  CHECK_THROWS_AS(solver.solve(StencilOperator(3, 0.0), Eigen::VectorXd::Ones(2), x), InputError);
}

}  // namespace
}  // namespace softgrad
