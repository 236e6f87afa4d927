#include "solvers/cpu/matrix_free_cg.hpp"

#include <sstream>

#include "softgrad/errors.hpp"

namespace softgrad {

MatrixFreeCgSolver::MatrixFreeCgSolver(const CgOptions& options) : options_(options) {}

std::string MatrixFreeCgSolver::name() const { return "matfree"; }

LinearSolveReport MatrixFreeCgSolver::solve(const LinearOperator& A, const Eigen::VectorXd& b,
                                            Eigen::VectorXd& x, double rel_tol) {
  const Eigen::Index n = A.size();
  if (b.size() != n) {
    std::ostringstream os;
    os << "MatrixFreeCgSolver::solve(): right-hand side has size " << b.size()
       << " but the operator has size " << n;
    throw InputError(os.str());
  }
  // Jacobi preconditioner from the operator's diagonal (a non-positive entry disproves SPD).
  diagonal_.resize(n);
  A.diagonal(diagonal_);
  LinearSolveReport report = jacobi_.set_diagonal(diagonal_);
  if (!report.ok()) {
    report.message.insert(0, "matfree: ");
    return report;
  }
  // Warm start from x when it has the right size.
  if (x.size() != n) x.setZero(n);
  resize_cg_scratch(scratch_, n);
  return conjugate_gradient(A, jacobi_, b, x, scratch_, loosened(options_, rel_tol));
}

void MatrixFreeCgSolver::analyze(const SparseMatrix& A) {
  detail::check_symmetric_input(A, "MatrixFreeCgSolver::analyze");
}

LinearSolveReport MatrixFreeCgSolver::factorize(const SparseMatrix& A) {
  detail::check_symmetric_input(A, "MatrixFreeCgSolver::factorize");
  A_ = A;
  op_.set(A_);
  factorized_ = true;
  LinearSolveReport report;
  report.status = LinearSolveReport::Status::Converged;
  return report;
}

LinearSolveReport MatrixFreeCgSolver::solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) {
  if (!factorized_) throw InputError("MatrixFreeCgSolver::solve() called before factorize()");
  return solve(op_, b, x);
}

LinearSolveReport MatrixFreeCgSolver::solve_inexact(const Eigen::VectorXd& b, Eigen::VectorXd& x,
                                                    double rel_tol) {
  if (!factorized_)
    throw InputError("MatrixFreeCgSolver::solve_inexact() called before factorize()");
  return solve(op_, b, x, rel_tol);
}

}  // namespace softgrad
