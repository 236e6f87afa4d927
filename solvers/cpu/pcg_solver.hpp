/// @file pcg_solver.hpp
/// Preconditioned conjugate gradient on an assembled sparse matrix (the cg.hpp template with an
/// OpenMP sparse product), behind the LinearSolver interface.
#pragma once

#include <string>

#include "softgrad/solvers/linear_solver.hpp"
#include "solvers/cg.hpp"
#include "solvers/cpu/amg_preconditioner.hpp"
#include "solvers/cpu/linear_operator.hpp"
#include "solvers/cpu/preconditioners.hpp"
#include "solvers/cpu/team_cg.hpp"

namespace softgrad {

/// Preconditioner of PcgSolver.
enum class PcgPreconditioner {
  Jacobi,              ///< M = diag(A) (scene name "jacobi").
  IncompleteCholesky,  ///< Eigen's IncompleteCholesky with AMD ordering ("ichol").
  BlockJacobi,         ///< M = the vertices' diagonal blocks of A ("block_jacobi").
  Amg,                 ///< M^-1 = one BoomerAMG V-cycle, kept across matrices (kind "amg").
};

/// CG on an assembled matrix.
///  - analyze(): the incomplete Cholesky ordering (nothing for Jacobi).
///  - factorize(): copies A and builds the preconditioner (AMG: only when the pattern is new,
///    the kept hierarchy has become slow (see AmgRefresh) or after forget_history()).
///  - solve(): warm-started CG with the stored matrix and preconditioner.
class PcgSolver final : public LinearSolver {
 public:
  /// @param options stopping rules; see CgOptions.
  explicit PcgSolver(PcgPreconditioner preconditioner = PcgPreconditioner::Jacobi,
                     const CgOptions& options = {});

  /// "pcg(jacobi)", "pcg(block_jacobi)", "pcg(ichol)" or "amg".
  std::string name() const override;
  /// @throws InputError if A is not square and symmetric.
  void analyze(const SparseMatrix& A) override;
  /// @return Converged; NotPositiveDefinite if a diagonal entry is <= 0 (message names it);
  ///         NumericalFailure if the incomplete Cholesky fails or A has NaN/Inf on the diagonal.
  LinearSolveReport factorize(const SparseMatrix& A) override;
  /// Runs conjugate_gradient() (see cg.hpp for the statuses). @throws InputError before any
  /// factorize() or for a wrong b size.
  LinearSolveReport solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) override;
  /// solve() stopping at max(rel_tol, options().rel_tol) (inexact Newton).
  LinearSolveReport solve_inexact(const Eigen::VectorXd& b, Eigen::VectorXd& x,
                                  double rel_tol) override;

  /// AMG: the next factorize() sets a hierarchy up for its own matrix.
  void forget_history() override { amg_refresh_.invalidate(); }
  /// The block operator CG multiplies with (its layout analysed once per pattern).
  const LinearOperator* matrix_operator() const override { return factorized_ ? &op_ : nullptr; }

  /// The stopping rules.
  const CgOptions& options() const { return options_; }
  /// Changes the stopping rules for the next solve().
  void set_options(const CgOptions& options) { options_ = options; }
  /// AMG hierarchies set up so far (0 for the other preconditioners).
  int amg_setups() const { return amg_.setups(); }

 private:
  LinearSolveReport solve_with(const Eigen::VectorXd& b, Eigen::VectorXd& x,
                               const CgOptions& options);

  PcgPreconditioner preconditioner_;
  CgOptions options_;
  SparseMatrix A_;  // own copy: the caller may reassemble its matrix before a later solve
  detail::SymmetryCheck symmetry_;
  SparseMatrixOperator op_;
  JacobiPreconditioner jacobi_;
  BlockJacobiPreconditioner block_jacobi_;
  IncompleteCholeskyPreconditioner ichol_;
  AmgPreconditioner amg_;
  AmgRefresh amg_refresh_;
  CgScratch<Eigen::VectorXd> scratch_;
  TeamCg team_cg_;  // the Jacobi and block-Jacobi solves
  LinearSolveReport factor_report_;
  bool analyzed_ = false;
  bool factorized_ = false;
};

}  // namespace softgrad
