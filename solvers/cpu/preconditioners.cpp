#include "solvers/cpu/preconditioners.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
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

namespace {
// inverse <- B^-1 for a symmetric b x b block B (row-major) by Cholesky; false unless B is
// positive definite (a non-finite entry fails too).
template <int b>
bool invert_spd_block(const double* B, double* inverse) {
  const Eigen::Map<const Eigen::Matrix<double, b, b, Eigen::RowMajor>> block(B);
  const Eigen::LLT<Eigen::Matrix<double, b, b>> llt(block);
  if (llt.info() != Eigen::Success) return false;
  Eigen::Map<Eigen::Matrix<double, b, b, Eigen::RowMajor>> result(inverse);
  result = llt.solve(Eigen::Matrix<double, b, b>::Identity());
  return result.allFinite();
}
}  // namespace

LinearSolveReport BlockJacobiPreconditioner::set(const SparseMatrix& A, const BlockLayout& layout) {
  block_ = layout.block();
  const int b = block_;
  const Eigen::Index n_blocks = A.cols() / b;
  inverse_.resize(static_cast<size_t>(A.cols()) * b);
  LinearSolveReport report;
  if (b == 1) {
    const Eigen::VectorXd d = A.diagonal();
    report = detail::check_positive_diagonal(d);
    if (report.ok())
      for (Eigen::Index i = 0; i < d.size(); ++i) inverse_[i] = 1.0 / d[i];
    return report;
  }
  const int* outer = A.outerIndexPtr();
  const double* values = A.valuePtr();
  const int* rows = layout.rows().data();
  const int* begin = layout.begin().data();
  for (Eigen::Index V = 0; V < n_blocks; ++V) {
    // The diagonal block's position among block column V's (sorted) blocks.
    const int* at = std::lower_bound(rows + begin[V], rows + begin[V + 1], static_cast<int>(V));
    SOFTGRAD_CHECK(at != rows + begin[V + 1] && *at == V, "block " << V << " has no diagonal");
    const int offset = b * static_cast<int>(at - (rows + begin[V]));
    double B[9];
    for (int i = 0; i < b; ++i)  // column b V + i holds B(j, i) at offset + j
      for (int j = 0; j < b; ++j) B[j * b + i] = values[outer[b * V + i] + offset + j];
    double* inverse = inverse_.data() + V * b * b;
    const bool ok = b == 3 ? invert_spd_block<3>(B, inverse) : invert_spd_block<2>(B, inverse);
    if (ok) continue;
    bool finite = true;
    for (int k = 0; k < b * b; ++k) finite = finite && std::isfinite(B[k]);
    std::ostringstream os;
    os << "the diagonal block of dofs " << b * V << " to " << b * V + b - 1;
    if (finite) {
      report.status = LinearSolveReport::Status::NotPositiveDefinite;
      os << " is not positive definite, so the matrix is not positive definite";
    } else {
      report.status = LinearSolveReport::Status::NumericalFailure;
      os << " has a non-finite entry";
    }
    report.message = os.str();
    inverse_.clear();
    return report;
  }
  report.status = LinearSolveReport::Status::Converged;
  return report;
}

void BlockJacobiPreconditioner::apply(const Eigen::VectorXd& in, Eigen::VectorXd& out) const {
  apply_rows(in, out, 0, in.size());
}

void BlockJacobiPreconditioner::apply_rows(const Eigen::VectorXd& in, Eigen::VectorXd& out,
                                           Eigen::Index first, Eigen::Index last) const {
  const int b = block_;
  SOFTGRAD_ASSERT(static_cast<size_t>(in.size() * b) == inverse_.size() && out.size() == in.size());
  SOFTGRAD_ASSERT(0 <= first && first <= last && last <= in.size());
  SOFTGRAD_ASSERT(first % b == 0 && last % b == 0);
  const double* M = inverse_.data() + first * b;
  const double* x = in.data();
  double* y = out.data();
  if (b == 3) {
    for (Eigen::Index i = first; i < last; i += 3, M += 9)
      for (int r = 0; r < 3; ++r)
        y[i + r] = M[3 * r] * x[i] + M[3 * r + 1] * x[i + 1] + M[3 * r + 2] * x[i + 2];
  } else if (b == 2) {
    for (Eigen::Index i = first; i < last; i += 2, M += 4)
      for (int r = 0; r < 2; ++r) y[i + r] = M[2 * r] * x[i] + M[2 * r + 1] * x[i + 1];
  } else {
    for (Eigen::Index i = first; i < last; ++i) y[i] = M[i - first] * x[i];
  }
}

void JacobiPreconditioner::apply(const Eigen::VectorXd& in, Eigen::VectorXd& out) const {
  apply_rows(in, out, 0, in.size());
}

void JacobiPreconditioner::apply_rows(const Eigen::VectorXd& in, Eigen::VectorXd& out,
                                      Eigen::Index first, Eigen::Index last) const {
  SOFTGRAD_ASSERT(in.size() == inv_diag_.size() && out.size() == in.size());
  SOFTGRAD_ASSERT(0 <= first && first <= last && last <= in.size());
  const Eigen::Index n = last - first;
  out.segment(first, n) = inv_diag_.segment(first, n).cwiseProduct(in.segment(first, n));
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
