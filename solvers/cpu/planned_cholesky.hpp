/// @file planned_cholesky.hpp
/// A sparse Cholesky B = L L^T (B = P A P^T) whose numeric phase is planned once per pattern:
/// every update L(I, J) -= L(I, K) L(J, K)^T is recorded as positions in L's value array, so a
/// refactorization is a single pass of multiply-adds with no searching, no symbolic work and no
/// allocation. It works on dense B x B blocks when A is made of them in the given order (the
/// B = dim dofs of a vertex, kept together by AMD): a third of the index work per multiply-add
/// for 2D, a ninth for 3D. It is for small factors (2D creatures: ~100 dofs, ~2,000 scalar
/// updates), where a general library's per-call overhead outweighs the arithmetic: CholmodSolver
/// uses it for simplicial factors below a size limit and CHOLMOD itself above it.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <vector>

#include "softgrad/solvers/linear_solver.hpp"

namespace softgrad {

class PlannedCholesky {
 public:
  /// Plans the factorization of the symmetric matrix A (full symmetric storage, compressed) in
  /// the order `perm` (perm[new] = old; a fill-reducing order, e.g. CHOLMOD's). `block_size`
  /// 1, 2 or 3 forces dense blocks of that size (any pattern: missing entries are explicit
  /// zeros); 0 picks the largest of 3, 2, 1 of which A is made in that order. Returns nothing
  /// when the numeric phase would need more than `max_updates` block updates (the plan stores
  /// three indices per update).
  static std::optional<PlannedCholesky> plan(const SparseMatrix& A, const int* perm,
                                             long max_updates, int block_size = 0);

  /// Numeric factorization from A's value array (A's stored order, the planned pattern).
  /// @return -1 on success, else the column (in the permuted order) whose pivot is not positive
  ///         or not finite: the matrix is not positive definite.
  int factorize(const double* a_values);

  /// x = A^-1 b with the last successful factorization (x may alias b).
  void solve(const Eigen::VectorXd& b, Eigen::VectorXd& x);

  int size() const { return n_; }
  int block_size() const { return block_; }
  long update_count() const { return static_cast<long>(updates_.size()); }
  /// Stored scalar entries of L (whole blocks; diagonal blocks count their lower triangle).
  long factor_nonzeros() const;

 private:
  PlannedCholesky() = default;
  template <int B>
  int factorize_blocks(const double* a_values);
  template <int B>
  void solve_blocks(double* y) const;

  // One block update L[dst] -= L[source] L[factor]^T (block positions): for block columns
  // K < J with L(J, K) != 0 (at `factor`), one of column K's blocks of rows >= J (at `source`)
  // and the position of that block row in column J (`dst`). A flat list: no short inner
  // loops, whose exits the branch predictor misses.
  struct Update {
    int dst;
    int source;
    int factor;
  };

  int n_ = 0;                     // scalar size
  int block_ = 1;                 // B
  std::vector<int> perm_;         // perm_[new] = old (scalars)
  std::vector<int> Lp_, Li_;      // L's blocks in compressed block columns, diagonal first
  std::vector<double> Lx_;        // B x B row-major values per block
  std::vector<int> a_source_;     // B's lower triangle: A's value index of each entry ...
  std::vector<int> a_dest_;       // ... and its scalar position in Lx_ (the rest starts at 0)
  std::vector<int> col_updates_;  // per block column J: its updates [col_updates_[J], [J + 1])
  std::vector<Update> updates_;
  Eigen::VectorXd work_;  // permuted right-hand side
};

}  // namespace softgrad
