/// @file amg_preconditioner.hpp
/// Algebraic multigrid preconditioner: one V-cycle of hypre's BoomerAMG (Debian's libhypre-dev)
/// per CG iteration. Its hierarchy is set up from one matrix and kept while CG still converges
/// fast with it: the Newton matrices of one step differ little, and a set-up costs several times
/// a solve. (Newton has PcgSolver forget it as each step begins: LinearSolver::forget_history.)
#pragma once

#include <Eigen/Core>
#include <memory>
#include <string>

#include "softgrad/solvers/linear_solver.hpp"

namespace softgrad {

/// Whether this build has the AMG preconditioner (hypre was found at configure time).
bool amg_available();

/// M^-1 = one BoomerAMG V-cycle (symmetric Gauss-Seidel smoothing, so M is symmetric positive
/// definite for a positive definite A) for a matrix in full symmetric storage. Vertex blocks of
/// `block` dofs (x, y, z of a vertex together) are coarsened as systems of that many functions.
/// hypre is not thread-safe: concurrent instances (rollouts side by side) take turns inside it.
class AmgPreconditioner {
 public:
  AmgPreconditioner();
  ~AmgPreconditioner();
  AmgPreconditioner(const AmgPreconditioner&) = delete;
  AmgPreconditioner& operator=(const AmgPreconditioner&) = delete;

  /// Builds the hierarchy for A (square, compressed, full symmetric storage).
  /// @return Converged; NumericalFailure if A has NaN/Inf or hypre reports an error (message
  ///         says which); NotPositiveDefinite if a diagonal entry is <= 0 (message names it).
  ///         On failure the preconditioner must not be applied.
  /// @throws InputError when the build has no hypre.
  LinearSolveReport setup(const SparseMatrix& A, int block);
  /// out <- M^-1 in. @pre setup() succeeded for a matrix of in.size() rows.
  void apply(const Eigen::VectorXd& in, Eigen::VectorXd& out) const;
  /// Number of set-ups so far.
  int setups() const { return setups_; }

 private:
  struct Hypre;
  std::unique_ptr<Hypre> hypre_;
  int setups_ = 0;
};

/// When to set the hierarchy up again: after a new pattern, or once CG converges clearly slower
/// with the kept one than it did right after its set-up. Speed is the residual reduction per
/// iteration (decades per iteration), which does not depend on the tolerance of the solve.
class AmgRefresh {
 public:
  /// A hierarchy was just set up.
  void set_up() {
    fresh_rate_ = 0.0;
    stale_ = false;
  }
  /// A CG solve with the current hierarchy reached `relative_residual` in `iterations`.
  void observe(int iterations, double relative_residual);
  /// The solve failed (not positive definite, breakdown): the next matrix needs its own set-up.
  void invalidate() { stale_ = true; }
  /// True when the next factorize() should set up again.
  bool stale() const { return stale_; }

  /// Rebuild once the decades per iteration fall below this fraction of the fresh rate.
  static constexpr double kSlowdown = 0.6;

 private:
  double fresh_rate_ = 0.0;  ///< decades per iteration of the first solve after set-up
  bool stale_ = true;
};

}  // namespace softgrad
