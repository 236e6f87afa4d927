#include "solvers/cpu/linear_operator.hpp"

#include <algorithm>
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

// y <- A x over the B x B blocks of `layout`: block column V's B columns are summed together,
// each in the order of its stored rows (as spmv sums them).
template <int B>
void block_spmv(const SparseMatrix& A, const BlockLayout& layout, const Eigen::VectorXd& x,
                Eigen::VectorXd& y, int min_parallel_rows) {
  SOFTGRAD_ASSERT(A.rows() == A.cols() && x.size() == A.cols() && A.cols() % B == 0);
  SOFTGRAD_ASSERT(&x != &y);
  const Eigen::Index n = A.cols();
  y.resize(n);
  const int* outer = A.outerIndexPtr();
  const double* values = A.valuePtr();
  const int* rows = layout.rows().data();
  const int* begin = layout.begin().data();
  const double* xs = x.data();
  parallel_for(static_cast<int>(n / B), min_parallel_rows / B, [&](int V) {
    const double* column[B];
    double sum[B];
    for (int i = 0; i < B; ++i) {
      column[i] = values + outer[B * V + i];
      sum[i] = 0.0;
    }
    for (int k = begin[V]; k < begin[V + 1]; ++k) {
      const double* xw = xs + static_cast<Eigen::Index>(B) * rows[k];
      const int at = B * (k - begin[V]);
      for (int i = 0; i < B; ++i)
        for (int j = 0; j < B; ++j) sum[i] += column[i][at + j] * xw[j];
    }
    for (int i = 0; i < B; ++i) y[B * V + i] = sum[i];
  });
}

void spmv(const SparseMatrix& A, const BlockLayout& layout, const Eigen::VectorXd& x,
          Eigen::VectorXd& y, int min_parallel_rows) {
  switch (layout.block()) {
    case 3:
      return block_spmv<3>(A, layout, x, y, min_parallel_rows);
    case 2:
      return block_spmv<2>(A, layout, x, y, min_parallel_rows);
    default:
      return spmv(A, x, y, min_parallel_rows);
  }
}
}  // namespace

bool BlockLayout::fits(const SparseMatrix& A, int b) const {
  const Eigen::Index n = A.cols();
  if (n == 0 || n % b != 0) return false;
  const int* outer = A.outerIndexPtr();
  const int* inner = A.innerIndexPtr();
  for (Eigen::Index V = 0; V < n / b; ++V) {
    const int first = outer[b * V];
    const int length = outer[b * V + 1] - first;
    if (length % b != 0) return false;
    for (int i = 1; i < b; ++i) {
      const int start = outer[b * V + i];
      if (outer[b * V + i + 1] - start != length ||
          !std::equal(inner + first, inner + first + length, inner + start))
        return false;
    }
    for (int k = 0; k < length; k += b)
      for (int j = 0; j < b; ++j)
        if (inner[first + k + j] != inner[first + k] + j || inner[first + k] % b != 0) return false;
  }
  return true;
}

void BlockLayout::analyze(const SparseMatrix& A) {
  block_ = 1;
  rows_.clear();
  begin_.clear();
  if (A.rows() != A.cols() || !A.isCompressed()) return;
  for (int b : {3, 2}) {
    if (!fits(A, b)) continue;
    const int* outer = A.outerIndexPtr();
    const int* inner = A.innerIndexPtr();
    const Eigen::Index blocks = A.cols() / b;
    begin_.assign(static_cast<size_t>(blocks) + 1, 0);
    rows_.reserve(static_cast<size_t>(A.nonZeros()) / static_cast<size_t>(b * b));
    for (Eigen::Index V = 0; V < blocks; ++V) {
      for (int k = outer[b * V]; k < outer[b * V + 1]; k += b) rows_.push_back(inner[k] / b);
      begin_[static_cast<size_t>(V) + 1] = static_cast<int>(rows_.size());
    }
    block_ = b;
    return;
  }
}

void symmetric_spmv(const SparseMatrix& A, const Eigen::VectorXd& x, Eigen::VectorXd& y) {
  spmv(A, x, y, kParallelSpmvMinRows);
}

void symmetric_spmv(const SparseMatrix& A, const BlockLayout& layout, const Eigen::VectorXd& x,
                    Eigen::VectorXd& y) {
  spmv(A, layout, x, y, kParallelSpmvMinRows);
}

void AdaptiveSpmv::apply(const SparseMatrix& A, const BlockLayout& layout, const Eigen::VectorXd& x,
                         Eigen::VectorXd& y) {
  if (A.cols() < kParallelSpmvMinRows) {
    spmv(A, layout, x, y, kParallelSpmvMinRows);
    return;
  }
  // One of each first, then the faster, and the other every kProbeEvery-th call.
  const int faster = prefers_parallel() ? 1 : 0;
  const int mode = calls_ < 2                  ? static_cast<int>(calls_)
                   : calls_ % kProbeEvery == 0 ? 1 - faster
                                               : faster;
  const auto start = std::chrono::steady_clock::now();
  spmv(A, layout, x, y, mode == 1 ? kParallelSpmvMinRows : INT_MAX);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double& average = seconds_[mode];
  average = average == 0.0 ? seconds : 0.75 * average + 0.25 * seconds;
  ++calls_;
}

void SparseMatrixOperator::apply(const Eigen::VectorXd& in, Eigen::VectorXd& out) const {
  SOFTGRAD_CHECK(A_ != nullptr, "SparseMatrixOperator used before set()");
  spmv_.apply(*A_, layout_, in, out);
}

void SparseMatrixOperator::diagonal(Eigen::VectorXd& d) const {
  SOFTGRAD_CHECK(A_ != nullptr, "SparseMatrixOperator used before set()");
  d = A_->diagonal();
}

}  // namespace softgrad
