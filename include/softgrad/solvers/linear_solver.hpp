/// @file linear_solver.hpp
/// The run-time choice of sparse linear solver for the Newton systems H dx = -g and the adjoint
/// systems H^T lambda = dl_dx: a small virtual interface and a factory by name. The report type
/// is in linear_solve_report.hpp.
///
/// Matrices are `SparseMatrix` (column-major, int indices) in full symmetric storage: both
/// triangles are stored and A(i, j) == A(j, i). Every solver relies on it (CHOLMOD reads one
/// triangle only, the CG solvers use A^T x == A x for a row-parallel product).
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "softgrad/detail/solvers/linear_solve_report.hpp"

namespace softgrad {

class LinearOperator;

/// Column-major sparse matrix in full symmetric storage (both triangles present).
using SparseMatrix = Eigen::SparseMatrix<double>;

/// A sparse symmetric positive definite solver with a three-phase life cycle:
/// analyze (once per sparsity pattern), factorize (once per matrix values), solve (any number of
/// right-hand sides, e.g. the adjoint solves later with the same factorization).
/// Instances are not thread-safe: they own their scratch memory.
class LinearSolver {
 public:
  virtual ~LinearSolver() = default;

  /// Short backend name, e.g. "cholmod", "pcg(jacobi)", "matfree".
  virtual std::string name() const = 0;

  /// Symbolic phase for the sparsity pattern of A (ordering, supernodes, IC ordering).
  /// @pre full symmetric storage. @throws InputError if A is not square or not symmetric.
  virtual void analyze(const SparseMatrix& A) = 0;

  /// Numeric phase for the values of A; call again whenever the values change. A pattern
  /// different from the analyzed one triggers a new analysis (so analyze() is optional). The
  /// solver keeps its own copy of what it needs: A may be changed or freed afterwards.
  /// @return Converged on success; NotPositiveDefinite or NumericalFailure otherwise, in which
  ///         case solve() returns that same report until the next successful factorize().
  /// @throws InputError if A is not square or its finite entries are not symmetric.
  virtual LinearSolveReport factorize(const SparseMatrix& A) = 0;

  /// Solves A x = b with the last factorization. If x has the size of b it is the initial guess
  /// of the iterative solvers (warm start); otherwise it is resized and zeroed.
  /// @throws InputError if factorize() was never called or b has the wrong size.
  virtual LinearSolveReport solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) = 0;

  /// solve() without measuring ||b - A x||, where that costs a sparse product on top of the
  /// solve (the direct solvers): the report is Converged if x is finite, its residuals NaN.
  /// Newton solves for its directions this way; its line search judges every step. Iterative
  /// solvers measure the residual anyway and report it.
  virtual LinearSolveReport solve_unmeasured(const Eigen::VectorXd& b, Eigen::VectorXd& x) {
    return solve(b, x);
  }

  /// solve_unmeasured() that may stop once ||b - A x|| <= rel_tol ||b||, where rel_tol is looser
  /// than the solver's own tolerance: the iterative solvers' part in inexact Newton (Newton's
  /// forcing terms). The solver's own tolerance still applies where it is looser; direct
  /// solvers solve as solve_unmeasured() does.
  virtual LinearSolveReport solve_inexact(const Eigen::VectorXd& b, Eigen::VectorXd& x,
                                          double rel_tol) {
    (void)rel_tol;
    return solve_unmeasured(b, x);
  }

  /// True for direct solvers, whose solve() with a kept factorization is cheap against
  /// factorize() (Newton then reuses it for chord steps).
  virtual bool is_direct() const { return false; }

  /// For direct solvers: what a factorization costs in solves with it (its flops over a solve's,
  /// from the last analysis). Newton tries chord steps after every full step when this is large
  /// (NewtonOptions::chord_window). 0 where unknown.
  virtual double factorization_cost_in_solves() const { return 0.0; }

  /// Drops what earlier matrices left behind for later ones (the multigrid hierarchy "amg"
  /// keeps while it serves), so that the next solves depend on their own matrices only. Newton
  /// calls it as each step begins: a step's result is then a function of its inputs alone,
  /// bit for bit, whatever ran on the solver before (other rollouts, finite differences).
  virtual void forget_history() {}

  /// The factorized matrix as an operator (its products, as the solver computes them) for
  /// callers that need A v besides the solves (the adjoint's recycled guesses); nullptr where
  /// the solver keeps none. Valid until the next analyze() or factorize().
  virtual const LinearOperator* matrix_operator() const { return nullptr; }
};

/// Options selecting and configuring a LinearSolver by name. The CG settings are ignored by
/// "cholmod".
struct LinearSolverOptions {
  /// "cholmod" (supernodal Cholesky), "pcg" (CG on the assembled matrix), "amg" (CG on the
  /// assembled matrix preconditioned by algebraic multigrid; needs hypre, libhypre-dev),
  /// "matfree" (CG through the LinearOperator interface), "cuda" (needs -DSOFTGRAD_WITH_CUDA=ON).
  std::string kind = "cholmod";
  /// CG preconditioner: "jacobi", "block_jacobi" or "ichol" (incomplete Cholesky); the last two
  /// for "pcg" only.
  std::string preconditioner = "jacobi";
  double rel_tol = 1e-10;      ///< CG stops when ||b - A x|| <= max(rel_tol ||b||, abs_tol).
  double abs_tol = 0.0;        ///< Absolute CG tolerance (same units as b).
  int max_iterations = 10000;  ///< CG iteration limit.
  bool operator==(const LinearSolverOptions&) const = default;
};

/// Builds the solver named by `options`.
/// @throws InputError for an unknown kind or preconditioner (the message lists the valid names),
///         an invalid tolerance or iteration limit, for "cuda" in a build without CUDA and for
///         "amg" in a build without hypre.
std::unique_ptr<LinearSolver> make_linear_solver(const LinearSolverOptions& options);

/// True if |A(i, j) - A(j, i)| <= rel_tol * max |A| for every stored entry (a missing mirror
/// entry counts as 0): A is stored with both triangles. False if A is not square or has NaN/Inf
/// entries. O(nnz log nnz_per_column), no allocation.
/// @pre A is compressed or has sorted columns (Eigen keeps them sorted).
bool is_symmetric(const SparseMatrix& A, double rel_tol);

namespace detail {
/// is_symmetric(), optionally ignoring pairs with a NaN/Inf entry.
bool is_symmetric(const SparseMatrix& A, double rel_tol, bool skip_non_finite);
/// Throws InputError (prefixed by `who`) unless A is square and its finite entries are symmetric
/// (rel_tol 1e-8). NaN/Inf entries are left to the solvers, which report NumericalFailure.
void check_symmetric_input(const SparseMatrix& A, const char* who);
/// True if A and B have the same dimensions and the same stored pattern.
bool same_pattern(const SparseMatrix& A, const SparseMatrix& B);

/// The symmetry check of check_symmetric_input for a stream of matrices with one pattern (the
/// Hessians of a Newton solve): the position of every entry's mirror is found once per pattern,
/// after which a check is one O(nnz) pass without searching.
class SymmetryCheck {
 public:
  /// Checks A (throws like check_symmetric_input) and returns whether all its entries are
  /// finite. The first call, and every call with a new pattern (`new_pattern`), does the full
  /// check and records the mirror positions.
  bool check(const SparseMatrix& A, bool new_pattern, const char* who);

 private:
  std::vector<std::pair<int, int>> pairs_;  // value positions of A(i, j) and A(j, i), i > j
  std::vector<int> singles_;                // diagonal entries
  std::vector<int> unpaired_;               // entries whose mirror is not stored (must be ~0)
  Eigen::Index n_entries_ = -1;             // nonzeros of the recorded pattern; -1: none
};

/// Copies A into `stored` (compressed). With `same_pattern`, only the values are copied, into
/// the existing arrays: no allocation.
void store_matrix(const SparseMatrix& A, bool same_pattern, SparseMatrix& stored);
}  // namespace detail

}  // namespace softgrad
