/// @file linear_operator.hpp
/// Symmetric linear operators for the CPU CG solvers: the abstract LinearOperator (what a
/// matrix-free Hessian implements), SparseMatrixOperator wrapping an assembled matrix, and the
/// OpenMP sparse matrix-vector product they use.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "softgrad/solvers/linear_solver.hpp"

namespace softgrad {

/// y <- A x for a symmetric A in full column-major storage, parallel over rows with OpenMP:
/// since A == A^T, row i of A x is the dot product of column i with x, so no two threads write
/// the same entry. Runs serially below a few thousand rows.
/// @pre A square and symmetric; x.size() == A.cols(); y is resized if needed; x and y distinct.
void symmetric_spmv(const SparseMatrix& A, const Eigen::VectorXd& x, Eigen::VectorXd& y);

/// The vertex blocks of a matrix that HessianAssembler built: with b dofs per vertex, the b
/// columns of a vertex share one row pattern made of whole b x b blocks. A product over such a
/// matrix reads one row index per block instead of per entry, and each x block once for the
/// b columns (about 1.4x less memory traffic in 3D).
class BlockLayout {
 public:
  /// Finds the layout for b = 3, else b = 2; block() == 1 when A has neither (or is not
  /// compressed and square). O(nnz), no product.
  void analyze(const SparseMatrix& A);
  /// Dofs per block: 3, 2, or 1 (no blocks: the scalar product is used).
  int block() const { return block_; }
  /// Block rows of block column V: rows()[begin()[V]] ... rows()[begin()[V + 1] - 1].
  const std::vector<int>& rows() const { return rows_; }
  const std::vector<int>& begin() const { return begin_; }

 private:
  bool fits(const SparseMatrix& A, int b) const;
  int block_ = 1;
  std::vector<int> rows_;
  std::vector<int> begin_;
};

/// y <- A x as symmetric_spmv, by blocks when `layout` (analysed on A's pattern) has them. With
/// 3 x 3 blocks on a CPU with AVX2 and FMA (block_product_kernel()), each entry is a 4-lane
/// fused multiply-add sum, equal to the scalar product's to rounding; otherwise each entry is
/// summed in the scalar product's order and the results are the same bit for bit. Either way an
/// entry is computed the same way serially and across threads.
void symmetric_spmv(const SparseMatrix& A, const BlockLayout& layout, const Eigen::VectorXd& x,
                    Eigen::VectorXd& y);

/// Rows [first, last) of y <- A x, on this thread, each entry computed as symmetric_spmv(A,
/// layout, ...) computes it (bit for bit): for solvers whose threads share out the rows.
/// @pre as symmetric_spmv; y already has A's size; first and last multiples of layout.block().
void symmetric_spmv_rows(const SparseMatrix& A, const BlockLayout& layout, const Eigen::VectorXd& x,
                         Eigen::VectorXd& y, Eigen::Index first, Eigen::Index last);

/// The kernel of the 3 x 3 block product on this CPU: "avx2" or "portable".
const char* block_product_kernel();

namespace detail {
/// Makes the block product use the portable kernel (true) or the fastest (false): for tests.
void force_portable_block_product(bool portable);
}  // namespace detail

/// Of two ways to do the same work, serially (0) and across threads (1), the one that has been
/// faster in recent calls: a running average of each's seconds (per unit of work), both tried
/// once first, the slower one retried every probe_every calls. On an idle machine threads win;
/// beside a busy process a thread that shares its core delays every join and the serial way
/// wins (benchmarks/thread_policy.py). For work whose result does not depend on the choice.
class FasterOfTwo {
 public:
  explicit FasterOfTwo(int probe_every) : probe_every_(probe_every) {}
  /// The way to run next: 0 serial, 1 across threads.
  int next() const {
    const int faster = prefers_parallel() ? 1 : 0;
    return calls_ < 2 ? static_cast<int>(calls_) : calls_ % probe_every_ == 0 ? 1 - faster : faster;
  }
  /// Records a call of `way` that took `seconds`.
  void record(int way, double seconds) {
    double& average = seconds_[way];
    average = average == 0.0 ? seconds : 0.75 * average + 0.25 * seconds;
    ++calls_;
  }
  /// Whether threads have been the faster (for tests).
  bool prefers_parallel() const { return seconds_[1] < seconds_[0]; }

 private:
  int probe_every_;
  double seconds_[2] = {0.0, 0.0};  ///< running averages: serial, across threads
  long calls_ = 0;
};

/// symmetric_spmv run serially or across threads, whichever has been faster in recent calls
/// (FasterOfTwo, the slower one retried every kProbeEvery calls). A product at 10k tets takes a
/// fraction of a millisecond, about what waking a sleeping team costs. Both compute each entry
/// the same way, so the result does not depend on the choice.
class AdaptiveSpmv {
 public:
  static constexpr int kProbeEvery = 64;
  void apply(const SparseMatrix& A, const BlockLayout& layout, const Eigen::VectorXd& x,
             Eigen::VectorXd& y);
  /// Whether the next product would run across threads (for tests).
  bool prefers_parallel() const { return choice_.prefers_parallel(); }

 private:
  FasterOfTwo choice_{kProbeEvery};
};

/// A symmetric linear map R^n -> R^n given by its action, e.g. the sum of element
/// Hessian-vector products. Implementations must be safe to call from one thread at a time.
class LinearOperator {
 public:
  virtual ~LinearOperator() = default;
  /// Number of rows (== columns), n.
  virtual int size() const = 0;
  /// out <- A in. @pre in.size() == size(); out already has size(); in and out distinct.
  virtual void apply(const Eigen::VectorXd& in, Eigen::VectorXd& out) const = 0;
  /// d <- diag(A), used for the Jacobi preconditioner. @pre d already has size().
  virtual void diagonal(Eigen::VectorXd& d) const = 0;
};

/// A LinearOperator backed by an assembled SparseMatrix (full symmetric storage).
class SparseMatrixOperator final : public LinearOperator {
 public:
  /// An empty 0 x 0 operator; set() gives it a matrix.
  SparseMatrixOperator() = default;
  /// Keeps a pointer to A, which must outlive this operator (no copy).
  explicit SparseMatrixOperator(const SparseMatrix& A) { set(A); }
  /// Points the operator at A, which must outlive this operator. With `same_pattern` (A has the
  /// pattern of the previous set()), its block layout is not analysed again.
  void set(const SparseMatrix& A, bool same_pattern = false) {
    A_ = &A;
    if (!same_pattern) layout_.analyze(A);
  }
  /// The wrapped matrix. @pre set() was called.
  const SparseMatrix& matrix() const { return *A_; }
  /// Its vertex blocks.
  const BlockLayout& layout() const { return layout_; }

  int size() const override { return A_ ? static_cast<int>(A_->rows()) : 0; }
  void apply(const Eigen::VectorXd& in, Eigen::VectorXd& out) const override;
  void diagonal(Eigen::VectorXd& d) const override;

 private:
  const SparseMatrix* A_ = nullptr;
  BlockLayout layout_;
  mutable AdaptiveSpmv spmv_;  // apply() is const; one caller at a time (LinearOperator)
};

}  // namespace softgrad
