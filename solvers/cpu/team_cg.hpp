/// @file team_cg.hpp
/// TeamCg: preconditioned CG on an assembled matrix with a (block-)Jacobi preconditioner, its
/// threads kept in one OpenMP team for a whole solve. Each thread owns a fixed run of rows for
/// the products, the preconditioner and the vector updates of every iteration, and the threads
/// meet at three barriers per iteration. conjugate_gradient() (cg.hpp) over a
/// SparseMatrixOperator starts a team per product instead: at 10k tets a product takes ~0.1 ms,
/// about what waking a sleeping team costs, and the dot products and updates stay serial, so a
/// second thread gained nothing (benchmarks/thread_policy.py).
#pragma once

#include <Eigen/Core>
#include <vector>

#include "solvers/cg.hpp"
#include "solvers/cpu/linear_operator.hpp"

namespace softgrad {

class JacobiPreconditioner;
class BlockJacobiPreconditioner;

/// The solver of PcgSolver's Jacobi and block-Jacobi variants.
///
/// solve() does what conjugate_gradient(A, M, b, x, scratch, options) does: the same iteration,
/// stopping rules, reports and iteration counts. Its dot products are sums over fixed chunks of
/// rows added in chunk order, so a solve gives the same result bit for bit on any number of
/// threads (not bit for bit conjugate_gradient's, whose dot products are one Eigen sum).
/// Whether a solve runs on a team or on this thread alone is FasterOfTwo's choice, per iteration
/// (a thread beside a busy process delays every barrier), among parallel_team()'s threads.
class TeamCg {
 public:
  /// Rows per chunk: whole vertex blocks in 2D and 3D.
  static constexpr Eigen::Index kChunkRows = 384;
  /// Systems with fewer rows are solved on this thread.
  static constexpr Eigen::Index kMinTeamRows = 3072;
  /// The slower of team and serial solves is retried every kProbeEvery solves.
  static constexpr int kProbeEvery = 16;

  /// @pre A.size() == b.size(); x has that size (the warm start) and so have the scratch
  ///      vectors; M was set up for A.
  template <class Preconditioner>
  LinearSolveReport solve(const SparseMatrixOperator& A, const Preconditioner& M,
                          const Eigen::VectorXd& b, Eigen::VectorXd& x,
                          CgScratch<Eigen::VectorXd>& scratch, const CgOptions& options);

  /// Solves on at most `threads` threads, without the timed choice (for tests).
  template <class Preconditioner>
  LinearSolveReport solve_on(int threads, const SparseMatrixOperator& A, const Preconditioner& M,
                             const Eigen::VectorXd& b, Eigen::VectorXd& x,
                             CgScratch<Eigen::VectorXd>& scratch, const CgOptions& options);

  /// Threads the last solve ran on.
  int last_team() const { return last_team_; }

 private:
  std::vector<double> parts_;  ///< per chunk: r.r, r.z, p.q, p.p
  FasterOfTwo choice_{kProbeEvery};
  int last_team_ = 1;
};

extern template LinearSolveReport TeamCg::solve(const SparseMatrixOperator&,
                                                const JacobiPreconditioner&, const Eigen::VectorXd&,
                                                Eigen::VectorXd&, CgScratch<Eigen::VectorXd>&,
                                                const CgOptions&);
extern template LinearSolveReport TeamCg::solve(const SparseMatrixOperator&,
                                                const BlockJacobiPreconditioner&,
                                                const Eigen::VectorXd&, Eigen::VectorXd&,
                                                CgScratch<Eigen::VectorXd>&, const CgOptions&);
extern template LinearSolveReport TeamCg::solve_on(int, const SparseMatrixOperator&,
                                                   const JacobiPreconditioner&,
                                                   const Eigen::VectorXd&, Eigen::VectorXd&,
                                                   CgScratch<Eigen::VectorXd>&, const CgOptions&);
extern template LinearSolveReport TeamCg::solve_on(int, const SparseMatrixOperator&,
                                                   const BlockJacobiPreconditioner&,
                                                   const Eigen::VectorXd&, Eigen::VectorXd&,
                                                   CgScratch<Eigen::VectorXd>&, const CgOptions&);

}  // namespace softgrad
