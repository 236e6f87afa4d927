#include "solvers/cpu/linear_operator.hpp"

#include <chrono>
#include <climits>

#include "softgrad/errors.hpp"
#include "softgrad/parallel.hpp"

namespace softgrad {

namespace {
// Below this many rows the OpenMP fork/join costs more than the product.
constexpr int kParallelSpmvMinRows = 4096;

// y <- A x, across threads when n >= min_parallel_rows.
void spmv(const SparseMatrix& A, const Eigen::VectorXd& x, Eigen::VectorXd& y,
          int min_parallel_rows) {
  SOFTGRAD_ASSERT(A.rows() == A.cols() && x.size() == A.cols());
  SOFTGRAD_ASSERT(&x != &y);
  const Eigen::Index n = A.cols();
  y.resize(n);
  // Row i of A x == column i of A (as A == A^T) dotted with x: each thread owns its outputs.
  parallel_for(static_cast<int>(n), min_parallel_rows, [&](int i) {
    double sum = 0.0;
    for (SparseMatrix::InnerIterator it(A, i); it; ++it) sum += it.value() * x[it.index()];
    y[i] = sum;
  });
}
}  // namespace

void symmetric_spmv(const SparseMatrix& A, const Eigen::VectorXd& x, Eigen::VectorXd& y) {
  spmv(A, x, y, kParallelSpmvMinRows);
}

void AdaptiveSpmv::apply(const SparseMatrix& A, const Eigen::VectorXd& x, Eigen::VectorXd& y) {
  if (A.cols() < kParallelSpmvMinRows) {
    spmv(A, x, y, kParallelSpmvMinRows);
    return;
  }
  // One of each first, then the faster, and the other every kProbeEvery-th call.
  const int faster = prefers_parallel() ? 1 : 0;
  const int mode = calls_ < 2                  ? static_cast<int>(calls_)
                   : calls_ % kProbeEvery == 0 ? 1 - faster
                                               : faster;
  const auto start = std::chrono::steady_clock::now();
  spmv(A, x, y, mode == 1 ? kParallelSpmvMinRows : INT_MAX);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double& average = seconds_[mode];
  average = average == 0.0 ? seconds : 0.75 * average + 0.25 * seconds;
  ++calls_;
}

void SparseMatrixOperator::apply(const Eigen::VectorXd& in, Eigen::VectorXd& out) const {
  SOFTGRAD_CHECK(A_ != nullptr, "SparseMatrixOperator used before set()");
  spmv_.apply(*A_, in, out);
}

void SparseMatrixOperator::diagonal(Eigen::VectorXd& d) const {
  SOFTGRAD_CHECK(A_ != nullptr, "SparseMatrixOperator used before set()");
  d = A_->diagonal();
}

}  // namespace softgrad
