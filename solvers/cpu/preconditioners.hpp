/// @file preconditioners.hpp
/// CPU preconditioners for conjugate_gradient() (cg.hpp): each has
/// `apply(const Eigen::VectorXd& in, Eigen::VectorXd& out) const` computing out = M^-1 in.
#pragma once

#include <Eigen/Core>
#include <Eigen/IterativeLinearSolvers>
#include <Eigen/OrderingMethods>
#include <vector>

#include "softgrad/solvers/linear_solver.hpp"
#include "solvers/cpu/linear_operator.hpp"

namespace softgrad {

/// Jacobi: M = diag(A).
class JacobiPreconditioner {
 public:
  /// Sets M = diag(d) for the diagonal d of A.
  /// @return Converged; NotPositiveDefinite if some d_i <= 0 (then e_i^T A e_i <= 0, so A is
  ///         not positive definite; the message names i); NumericalFailure if some d_i is NaN/Inf.
  ///         On failure the preconditioner must not be applied.
  LinearSolveReport set_diagonal(const Eigen::VectorXd& d);
  /// out <- diag(A)^-1 in. @pre set_diagonal() succeeded with d.size() == in.size().
  void apply(const Eigen::VectorXd& in, Eigen::VectorXd& out) const;
  /// Entries [first, last) of apply(): for solvers whose threads share out the rows.
  void apply_rows(const Eigen::VectorXd& in, Eigen::VectorXd& out, Eigen::Index first,
                  Eigen::Index last) const;
  /// Size of the last diagonal given.
  Eigen::Index size() const { return inv_diag_.size(); }

 private:
  Eigen::VectorXd inv_diag_;
};

/// Block Jacobi: M = the b x b diagonal blocks of A (one per vertex), for a matrix with a
/// BlockLayout; the scalar diagonal when it has none. Elasticity couples a vertex's own dofs
/// strongly, so this takes fewer CG iterations than Jacobi at the same cost per iteration.
class BlockJacobiPreconditioner {
 public:
  /// Inverts A's diagonal blocks (by Cholesky).
  /// @return Converged; NotPositiveDefinite if a block is not positive definite (then neither
  ///         is A; the message names the block's first dof); NumericalFailure on NaN/Inf.
  ///         On failure the preconditioner must not be applied.
  LinearSolveReport set(const SparseMatrix& A, const BlockLayout& layout);
  /// out <- M^-1 in. @pre set() succeeded for a matrix of in.size() rows.
  void apply(const Eigen::VectorXd& in, Eigen::VectorXd& out) const;
  /// Entries [first, last) of apply(), first and last multiples of block(): for solvers whose
  /// threads share out the rows.
  void apply_rows(const Eigen::VectorXd& in, Eigen::VectorXd& out, Eigen::Index first,
                  Eigen::Index last) const;

 private:
  int block_ = 1;
  std::vector<double> inverse_;  ///< b x b inverse per block, row-major
};

/// Incomplete Cholesky with AMD ordering and the Lin-More diagonal shift (Eigen's
/// IncompleteCholesky): M = P^T S^-1 L L^T S^-1 P with the fill of L limited to that of A.
class IncompleteCholeskyPreconditioner {
 public:
  /// Computes the fill-reducing ordering of A's pattern. @pre A square, full symmetric storage.
  void analyze(const SparseMatrix& A);
  /// Computes L for the values of A (same pattern as analyze()).
  /// @return Converged; NotPositiveDefinite if a diagonal entry of A is <= 0 (message names it);
  ///         NumericalFailure if Eigen fails even after its diagonal shifts, or on NaN/Inf.
  LinearSolveReport factorize(const SparseMatrix& A);
  /// out <- M^-1 in, allocation-free. @pre factorize() succeeded; in.size() == A.rows().
  void apply(const Eigen::VectorXd& in, Eigen::VectorXd& out) const;

 private:
  Eigen::IncompleteCholesky<double, Eigen::Lower, Eigen::AMDOrdering<int>> ic_;
  mutable Eigen::VectorXd work_;  // permuted and scaled copy of `in` during apply()
};

namespace detail {
/// Checks that every d_i is finite and > 0; returns Converged or the failing report.
LinearSolveReport check_positive_diagonal(const Eigen::VectorXd& d);
}  // namespace detail

}  // namespace softgrad
