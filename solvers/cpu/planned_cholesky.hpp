/// @file planned_cholesky.hpp
/// A simplicial sparse Cholesky B = L L^T (B = P A P^T) whose numeric phase is planned once per
/// pattern: every update L(i, j) -= L(i, k) L(j, k) is recorded as a position in L's value array,
/// so a refactorization is a single pass of multiply-adds with no searching, no symbolic work and
/// no allocation. It is for small factors (2D creatures: ~100 dofs, a few thousand updates), where
/// a general library's per-call overhead outweighs the arithmetic: CholmodSolver uses it for
/// simplicial factors below a size limit and CHOLMOD itself above it.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <vector>

#include "softgrad/solvers/linear_solver.hpp"

namespace softgrad {

class PlannedCholesky {
 public:
  /// Plans the factorization of the symmetric matrix A (full symmetric storage, compressed) in
  /// the order `perm` (perm[new] = old; a fill-reducing order, e.g. CHOLMOD's). Returns nothing
  /// when the numeric phase would need more than `max_updates` multiply-adds (the plan stores
  /// one index per update).
  static std::optional<PlannedCholesky> plan(const SparseMatrix& A, const int* perm,
                                             long max_updates);

  /// Numeric factorization from A's value array (A's stored order, the planned pattern).
  /// @return -1 on success, else the column (in the permuted order) whose pivot is not positive
  ///         or not finite: the matrix is not positive definite.
  int factorize(const double* a_values);

  /// x = A^-1 b with the last successful factorization (x may alias b).
  void solve(const Eigen::VectorXd& b, Eigen::VectorXd& x);

  int size() const { return n_; }
  long update_count() const { return static_cast<long>(updates_.size()); }
  long factor_nonzeros() const { return static_cast<long>(Li_.size()); }

 private:
  PlannedCholesky() = default;

  // One multiply-add L[dst] -= L[source] L[factor]: for a pair of columns k < j with
  // L(j, k) != 0 (at `factor`), one of column k's entries of rows >= j (at `source`) and the
  // position of that row in column j (`dst`). A flat list: no short inner loops, whose exits
  // the branch predictor misses.
  struct Update {
    int dst;
    int source;
    int factor;
  };

  int n_ = 0;
  std::vector<int> perm_;         // perm_[new] = old
  std::vector<int> Lp_, Li_;      // L in compressed columns, rows sorted, diagonal first
  std::vector<double> Lx_;        // L's values
  std::vector<double> inv_diag_;  // 1 / L(j, j)
  std::vector<int> a_source_;     // B's lower triangle: A's value index of each entry ...
  std::vector<int> a_dest_;       // ... and its position in Lx_ (the rest of L starts at 0)
  std::vector<int> col_updates_;  // per column j: its updates are [col_updates_[j], [j + 1])
  std::vector<Update> updates_;
  Eigen::VectorXd work_;  // permuted right-hand side
};

}  // namespace softgrad
