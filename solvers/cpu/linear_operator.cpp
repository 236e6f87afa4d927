#include "solvers/cpu/linear_operator.hpp"

#include "softgrad/errors.hpp"
#include "softgrad/parallel.hpp"

namespace softgrad {

namespace {
// Below this many rows the OpenMP fork/join costs more than the product.
constexpr int kParallelSpmvMinRows = 4096;
}  // namespace

void symmetric_spmv(const SparseMatrix& A, const Eigen::VectorXd& x, Eigen::VectorXd& y) {
  SOFTGRAD_ASSERT(A.rows() == A.cols() && x.size() == A.cols());
  SOFTGRAD_ASSERT(&x != &y);
  const Eigen::Index n = A.cols();
  y.resize(n);
  // Row i of A x == column i of A (as A == A^T) dotted with x: each thread owns its outputs.
  parallel_for(static_cast<int>(n), kParallelSpmvMinRows, [&](int i) {
    double sum = 0.0;
    for (SparseMatrix::InnerIterator it(A, i); it; ++it) sum += it.value() * x[it.index()];
    y[i] = sum;
  });
}

void SparseMatrixOperator::apply(const Eigen::VectorXd& in, Eigen::VectorXd& out) const {
  SOFTGRAD_CHECK(A_ != nullptr, "SparseMatrixOperator used before set()");
  symmetric_spmv(*A_, in, out);
}

void SparseMatrixOperator::diagonal(Eigen::VectorXd& d) const {
  SOFTGRAD_CHECK(A_ != nullptr, "SparseMatrixOperator used before set()");
  d = A_->diagonal();
}

}  // namespace softgrad
