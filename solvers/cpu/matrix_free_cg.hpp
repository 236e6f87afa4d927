/// @file matrix_free_cg.hpp
/// Jacobi-preconditioned CG on a LinearOperator (e.g. the sum of element Hessian-vector
/// products), so that the Hessian is never assembled. Also usable as a LinearSolver ("matfree")
/// on an assembled matrix, through SparseMatrixOperator.
#pragma once

#include <string>

#include "softgrad/solvers/linear_solver.hpp"
#include "solvers/cg.hpp"
#include "solvers/cpu/linear_operator.hpp"
#include "solvers/cpu/preconditioners.hpp"

namespace softgrad {

/// CG with M = diag(A) from LinearOperator::diagonal().
class MatrixFreeCgSolver final : public LinearSolver {
 public:
  /// @param options stopping rules; see CgOptions.
  explicit MatrixFreeCgSolver(const CgOptions& options = {});

  /// Solves A x = b, warm-started from x when x.size() == A.size() (else from 0). Scratch is
  /// kept between calls and resized only when the size changes. A `rel_tol` looser than the
  /// options' stops this solve earlier (inexact Newton's forcing term); 0: the options'.
  /// @return as conjugate_gradient() (cg.hpp); also NotPositiveDefinite if a diagonal entry of
  ///         A is <= 0 (the message names it). @throws InputError if b.size() != A.size().
  LinearSolveReport solve(const LinearOperator& A, const Eigen::VectorXd& b, Eigen::VectorXd& x,
                          double rel_tol = 0.0);

  /// "matfree".
  std::string name() const override;
  /// Only validates A (square and symmetric): there is nothing to analyze.
  void analyze(const SparseMatrix& A) override;
  /// Stores a copy of A for solve(b, x); always Converged.
  LinearSolveReport factorize(const SparseMatrix& A) override;
  /// solve(SparseMatrixOperator(stored A), b, x). @throws InputError before any factorize().
  LinearSolveReport solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) override;
  /// solve(SparseMatrixOperator(stored A), b, x, rel_tol).
  LinearSolveReport solve_inexact(const Eigen::VectorXd& b, Eigen::VectorXd& x,
                                  double rel_tol) override;

  /// The stopping rules.
  const CgOptions& options() const { return options_; }
  /// Changes the stopping rules for the next solve.
  void set_options(const CgOptions& options) { options_ = options; }

 private:
  CgOptions options_;
  SparseMatrix A_;
  SparseMatrixOperator op_;
  bool factorized_ = false;
  JacobiPreconditioner jacobi_;
  Eigen::VectorXd diagonal_;
  CgScratch<Eigen::VectorXd> scratch_;
};

}  // namespace softgrad
