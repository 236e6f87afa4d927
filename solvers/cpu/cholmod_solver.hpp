/// @file cholmod_solver.hpp
/// Sparse direct solver: CHOLMOD's supernodal Cholesky A = P^T L L^T P (SuiteSparse), behind the
/// LinearSolver interface. CHOLMOD's types stay in the .cpp file.
#pragma once

#include <memory>
#include <string>

#include "softgrad/solvers/linear_solver.hpp"

namespace softgrad {

/// Sparse Cholesky through CHOLMOD's int API.
///  - analyze(): fill-reducing ordering and symbolic factorization (cholmod_analyze; supernodal
///    for large 3D Hessians, simplicial for small ones). A small simplicial factor (at most
///    200,000 multiply-adds) is then planned by PlannedCholesky, which does the numeric phase and
///    the solves in CHOLMOD's order: for a 2D creature's 110 dofs CHOLMOD's per-call overhead
///    was several times the arithmetic.
///  - factorize(): numeric factorization (cholmod_factorize) reusing the analysis as long as the
///    pattern (dimensions and every index) is unchanged; a changed pattern is re-analyzed.
///  - solve(): cholmod_solve2 with workspace kept between calls; the reported residual is the
///    true ||b - A x|| (one sparse product per solve).
/// Only the lower triangle of A is read by CHOLMOD; a copy of A is kept for the residual.
class CholmodSolver final : public LinearSolver {
 public:
  CholmodSolver();
  ~CholmodSolver() override;
  CholmodSolver(const CholmodSolver&) = delete;
  CholmodSolver& operator=(const CholmodSolver&) = delete;

  /// "cholmod".
  std::string name() const override;
  /// @throws InputError if A is not square; InternalError if CHOLMOD's analysis fails.
  void analyze(const SparseMatrix& A) override;
  /// @return Converged; NotPositiveDefinite naming the failing pivot column (in the fill-reducing
  ///         order and in A's numbering); NumericalFailure for NaN/Inf entries or a CHOLMOD error.
  LinearSolveReport factorize(const SparseMatrix& A) override;
  /// @return Converged; NumericalFailure if the solution is not finite; the factorize() report
  ///         if that failed. @throws InputError before any factorize() or for a wrong b size.
  LinearSolveReport solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) override;
  /// solve() without the residual's sparse product (a 2D creature's Newton step: 5% of it).
  LinearSolveReport solve_unmeasured(const Eigen::VectorXd& b, Eigen::VectorXd& x) override;

  bool is_direct() const override { return true; }
  /// CHOLMOD's flop count of the factorization over 4 nnz(L) (a forward and a backward solve).
  double factorization_cost_in_solves() const override;

  /// How many symbolic analyses ran so far (tests use it to check the analysis is reused).
  int analysis_count() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;

  LinearSolveReport solve(const Eigen::VectorXd& b, Eigen::VectorXd& x, bool measure);
};

}  // namespace softgrad
