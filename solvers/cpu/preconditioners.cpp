#include "solvers/cpu/preconditioners.hpp"

#include <cmath>
#include <sstream>

#include "softgrad/errors.hpp"

namespace softgrad {

namespace detail {

LinearSolveReport check_positive_diagonal(const Eigen::VectorXd& d) {
  LinearSolveReport report;
  for (Eigen::Index i = 0; i < d.size(); ++i) {
    if (d[i] > 0.0 && std::isfinite(d[i])) continue;
    std::ostringstream os;
    if (std::isfinite(d[i])) {
      report.status = LinearSolveReport::Status::NotPositiveDefinite;
      os << "diagonal entry A(" << i << ", " << i << ") = " << d[i]
         << " is not positive, so the matrix is not positive definite";
    } else {
      report.status = LinearSolveReport::Status::NumericalFailure;
      os << "diagonal entry A(" << i << ", " << i << ") = " << d[i] << " is not finite";
    }
    report.message = os.str();
    return report;
  }
  report.status = LinearSolveReport::Status::Converged;
  return report;
}

}  // namespace detail

LinearSolveReport JacobiPreconditioner::set_diagonal(const Eigen::VectorXd& d) {
  LinearSolveReport report = detail::check_positive_diagonal(d);
  if (report.ok()) {
    inv_diag_ = d.cwiseInverse();
  } else {
    inv_diag_.resize(0);
  }
  return report;
}

void JacobiPreconditioner::apply(const Eigen::VectorXd& in, Eigen::VectorXd& out) const {
  SOFTGRAD_ASSERT(in.size() == inv_diag_.size() && out.size() == in.size());
  out = inv_diag_.cwiseProduct(in);
}

void IncompleteCholeskyPreconditioner::analyze(const SparseMatrix& A) { ic_.analyzePattern(A); }

LinearSolveReport IncompleteCholeskyPreconditioner::factorize(const SparseMatrix& A) {
  // Eigen's factorization needs every diagonal entry stored; a non-positive one disproves SPD.
  LinearSolveReport report = detail::check_positive_diagonal(A.diagonal());
  if (!report.ok()) return report;
  ic_.factorize(A);
  if (ic_.info() != Eigen::Success || !ic_.matrixL().coeffs().allFinite()) {
    report.status = LinearSolveReport::Status::NumericalFailure;
    report.message = "incomplete Cholesky failed even after increasing diagonal shifts";
    return report;
  }
  work_.resize(A.rows());
  return report;
}

void IncompleteCholeskyPreconditioner::apply(const Eigen::VectorXd& in,
                                             Eigen::VectorXd& out) const {
  SOFTGRAD_ASSERT(in.size() == work_.size() && out.size() == in.size());
  const auto& P = ic_.permutationP();
  const auto& L = ic_.matrixL();
  const auto& S = ic_.scalingS();
  // work = S P in; solve L L^T y = work in place; out = P^T S y.
  if (P.size() == in.size()) {
    work_ = P * in;
  } else {
    work_ = in;
  }
  work_.array() *= S.array();
  L.triangularView<Eigen::Lower>().solveInPlace(work_);
  L.transpose().triangularView<Eigen::Upper>().solveInPlace(work_);
  work_.array() *= S.array();
  if (P.size() == in.size()) {
    out = P.inverse() * work_;
  } else {
    out = work_;
  }
}

}  // namespace softgrad
