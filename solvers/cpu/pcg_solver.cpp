#include "solvers/cpu/pcg_solver.hpp"

#include <sstream>

#include "softgrad/errors.hpp"

namespace softgrad {

PcgSolver::PcgSolver(PcgPreconditioner preconditioner, const CgOptions& options)
    : preconditioner_(preconditioner), options_(options) {}

std::string PcgSolver::name() const {
  switch (preconditioner_) {
    case PcgPreconditioner::Jacobi:
      return "pcg(jacobi)";
    case PcgPreconditioner::BlockJacobi:
      return "pcg(block_jacobi)";
    case PcgPreconditioner::Amg:
      return "amg";
    default:
      return "pcg(ichol)";
  }
}

void PcgSolver::analyze(const SparseMatrix& A) {
  detail::check_symmetric_input(A, "PcgSolver::analyze");
  A_ = A;
  A_.makeCompressed();
  op_.set(A_);  // finds the block layout of this pattern
  if (preconditioner_ == PcgPreconditioner::IncompleteCholesky) ichol_.analyze(A_);
  analyzed_ = true;
  factorized_ = false;
}

LinearSolveReport PcgSolver::factorize(const SparseMatrix& A) {
  // Keep a copy; a new pattern needs a new incomplete-Cholesky ordering.
  const bool reanalyze = !analyzed_ || !detail::same_pattern(A, A_);
  symmetry_.check(A, reanalyze, "PcgSolver::factorize");
  detail::store_matrix(A, !reanalyze, A_);
  if (reanalyze && preconditioner_ == PcgPreconditioner::IncompleteCholesky) ichol_.analyze(A_);
  analyzed_ = true;
  op_.set(A_, !reanalyze);
  resize_cg_scratch(scratch_, A_.rows());
  // Build the preconditioner for the new values.
  if (preconditioner_ == PcgPreconditioner::Jacobi) {
    factor_report_ = jacobi_.set_diagonal(A_.diagonal());
  } else if (preconditioner_ == PcgPreconditioner::BlockJacobi) {
    factor_report_ = block_jacobi_.set(A_, op_.layout());
  } else if (preconditioner_ == PcgPreconditioner::Amg) {
    if (reanalyze || amg_refresh_.stale() || !factor_report_.ok()) {
      factor_report_ = amg_.setup(A_, op_.layout().block());
      amg_refresh_.set_up();
    }
  } else {
    factor_report_ = ichol_.factorize(A_);
  }
  if (!factor_report_.message.empty()) factor_report_.message.insert(0, name() + ": ");
  factorized_ = true;
  return factor_report_;
}

LinearSolveReport PcgSolver::solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) {
  return solve_with(b, x, options_);
}

LinearSolveReport PcgSolver::solve_inexact(const Eigen::VectorXd& b, Eigen::VectorXd& x,
                                           double rel_tol) {
  return solve_with(b, x, loosened(options_, rel_tol));
}

LinearSolveReport PcgSolver::solve_with(const Eigen::VectorXd& b, Eigen::VectorXd& x,
                                        const CgOptions& options) {
  if (!factorized_) throw InputError("PcgSolver::solve() called before factorize()");
  if (b.size() != A_.rows()) {
    std::ostringstream os;
    os << "PcgSolver::solve(): right-hand side has size " << b.size() << " but the matrix has "
       << A_.rows() << " rows";
    throw InputError(os.str());
  }
  if (!factor_report_.ok()) return factor_report_;
  // Warm start from x when it has the right size.
  if (x.size() != b.size()) x.setZero(b.size());
  if (preconditioner_ == PcgPreconditioner::Jacobi) {
    return team_cg_.solve(op_, jacobi_, b, x, scratch_, options);
  }
  if (preconditioner_ == PcgPreconditioner::BlockJacobi) {
    return team_cg_.solve(op_, block_jacobi_, b, x, scratch_, options);
  }
  if (preconditioner_ == PcgPreconditioner::Amg) {
    const LinearSolveReport report = conjugate_gradient(op_, amg_, b, x, scratch_, options);
    if (report.ok() || report.status == LinearSolveReport::Status::MaxIterations) {
      amg_refresh_.observe(report.iterations, report.relative_residual);
    } else {
      amg_refresh_.invalidate();  // e.g. an indefinite matrix: Newton projects it next
    }
    return report;
  }
  return conjugate_gradient(op_, ichol_, b, x, scratch_, options);
}

}  // namespace softgrad
