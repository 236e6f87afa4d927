#include "solvers/cpu/linear_operator.hpp"

#include <algorithm>
#include <chrono>
#include <climits>

#include "softgrad/detail/parallel.hpp"
#include "softgrad/errors.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SOFTGRAD_AVX2_BLOCK_PRODUCT 1
#include <immintrin.h>
#else
#define SOFTGRAD_AVX2_BLOCK_PRODUCT 0
#endif

namespace softgrad {

namespace {
// Below this many rows the OpenMP fork/join costs more than the product.
constexpr int kParallelSpmvMinRows = 4096;

// Row i of A x: column i of A (as A == A^T) dotted with x, in the column's stored order.
double column_dot(const SparseMatrix& A, const Eigen::VectorXd& x, int i) {
  double sum = 0.0;
  for (SparseMatrix::InnerIterator it(A, i); it; ++it) sum += it.value() * x[it.index()];
  return sum;
}

// y <- A x, across threads when n >= min_parallel_rows (each thread owns its outputs).
void spmv(const SparseMatrix& A, const Eigen::VectorXd& x, Eigen::VectorXd& y,
          int min_parallel_rows) {
  SOFTGRAD_ASSERT(A.rows() == A.cols() && x.size() == A.cols());
  SOFTGRAD_ASSERT(&x != &y);
  const Eigen::Index n = A.cols();
  y.resize(n);
  parallel_for(static_cast<int>(n), min_parallel_rows, [&](int i) { y[i] = column_dot(A, x, i); });
}

// y_V for the block columns V in [first, last) of a B x B block layout: block column V's B
// columns are summed together, each in the order of its stored rows (as spmv sums them).
template <int B>
void portable_block_columns(const int* outer, const double* values, const int* rows,
                            const int* begin, const double* xs, double* ys, int first, int last) {
  for (int V = first; V < last; ++V) {
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
    for (int i = 0; i < B; ++i) ys[B * V + i] = sum[i];
  }
}

#if SOFTGRAD_AVX2_BLOCK_PRODUCT
// portable_block_columns<3> with AVX2 and FMA. Entry i of y_V is the dot product of column
// 3V + i (its rows in 3-row blocks) with the gathered x: one 4-lane multiply-add per block and
// column, lane 3 masked off. The portable loop is bound by its add chains and the shuffles that
// pair the three columns (about 1.9 ns per block on the AMD EPYC); this one takes about 1.4 ns.
// Two sets of accumulators (even and odd blocks) halve the multiply-add chains.
__attribute__((target("avx2,fma"))) void avx2_block3_columns(const int* outer, const double* values,
                                                             const int* rows, const int* begin,
                                                             const double* xs, double* ys,
                                                             int first, int last) {
  const __m256i lanes012 = _mm256_setr_epi64x(-1, -1, -1, 0);
  for (int V = first; V < last; ++V) {
    const int* r = rows + begin[V];
    const int n_blocks = begin[V + 1] - begin[V];
    const int length = 3 * n_blocks;  // rows per column
    const double* c0 = values + outer[3 * V];
    const double* c1 = c0 + length;
    const double* c2 = c1 + length;
    __m256d even0 = _mm256_setzero_pd(), even1 = even0, even2 = even0;
    __m256d odd0 = even0, odd1 = even0, odd2 = even0;
    int k = 0;
    // Full-width loads of a block read the next block's first entry (lane 3, multiplied by the
    // masked-off x lane): in bounds for every block but a column's last, which is masked.
    for (; k + 2 < n_blocks; k += 2) {
      const __m256d xe = _mm256_maskload_pd(xs + 3 * static_cast<Eigen::Index>(r[k]), lanes012);
      const __m256d xo = _mm256_maskload_pd(xs + 3 * static_cast<Eigen::Index>(r[k + 1]), lanes012);
      even0 = _mm256_fmadd_pd(_mm256_loadu_pd(c0 + 3 * k), xe, even0);
      even1 = _mm256_fmadd_pd(_mm256_loadu_pd(c1 + 3 * k), xe, even1);
      even2 = _mm256_fmadd_pd(_mm256_loadu_pd(c2 + 3 * k), xe, even2);
      odd0 = _mm256_fmadd_pd(_mm256_loadu_pd(c0 + 3 * k + 3), xo, odd0);
      odd1 = _mm256_fmadd_pd(_mm256_loadu_pd(c1 + 3 * k + 3), xo, odd1);
      odd2 = _mm256_fmadd_pd(_mm256_loadu_pd(c2 + 3 * k + 3), xo, odd2);
    }
    for (; k < n_blocks; ++k) {
      const __m256d xe = _mm256_maskload_pd(xs + 3 * static_cast<Eigen::Index>(r[k]), lanes012);
      even0 = _mm256_fmadd_pd(_mm256_maskload_pd(c0 + 3 * k, lanes012), xe, even0);
      even1 = _mm256_fmadd_pd(_mm256_maskload_pd(c1 + 3 * k, lanes012), xe, even1);
      even2 = _mm256_fmadd_pd(_mm256_maskload_pd(c2 + 3 * k, lanes012), xe, even2);
    }
    alignas(32) double sum[3][4];
    _mm256_store_pd(sum[0], _mm256_add_pd(even0, odd0));
    _mm256_store_pd(sum[1], _mm256_add_pd(even1, odd1));
    _mm256_store_pd(sum[2], _mm256_add_pd(even2, odd2));
    for (int i = 0; i < 3; ++i) ys[3 * V + i] = (sum[i][0] + sum[i][1]) + sum[i][2];
  }
}

bool cpu_has_avx2_fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}
#endif

bool portable_block_product_forced = false;

// Whether the 3 x 3 block product runs avx2_block3_columns.
bool avx2_block_product() {
#if SOFTGRAD_AVX2_BLOCK_PRODUCT
  return !portable_block_product_forced && cpu_has_avx2_fma();
#else
  return false;
#endif
}

// The B x B block-column kernel for this CPU.
template <int B>
auto block_columns_kernel() {
  auto columns = portable_block_columns<B>;
#if SOFTGRAD_AVX2_BLOCK_PRODUCT
  if constexpr (B == 3)
    if (avx2_block_product()) columns = avx2_block3_columns;
#endif
  return columns;
}

// y <- A x over the B x B blocks of `layout`, across threads in runs of kColumnsPerTask block
// columns when n >= min_parallel_rows.
template <int B>
void block_spmv(const SparseMatrix& A, const BlockLayout& layout, const Eigen::VectorXd& x,
                Eigen::VectorXd& y, int min_parallel_rows) {
  SOFTGRAD_ASSERT(A.rows() == A.cols() && x.size() == A.cols() && A.cols() % B == 0);
  SOFTGRAD_ASSERT(&x != &y);
  constexpr int kColumnsPerTask = 4;
  const Eigen::Index n = A.cols();
  y.resize(n);
  const int n_columns = static_cast<int>(n / B);
  const int n_tasks = (n_columns + kColumnsPerTask - 1) / kColumnsPerTask;
  const auto columns = block_columns_kernel<B>();
  const int* outer = A.outerIndexPtr();
  const double* values = A.valuePtr();
  const int* rows = layout.rows().data();
  const int* begin = layout.begin().data();
  const double* xs = x.data();
  double* ys = y.data();
  parallel_for(n_tasks, min_parallel_rows / (B * kColumnsPerTask), [&](int task) {
    const int first = task * kColumnsPerTask;
    columns(outer, values, rows, begin, xs, ys, first,
            std::min(first + kColumnsPerTask, n_columns));
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

void symmetric_spmv_rows(const SparseMatrix& A, const BlockLayout& layout, const Eigen::VectorXd& x,
                         Eigen::VectorXd& y, Eigen::Index first, Eigen::Index last) {
  const int b = layout.block();
  SOFTGRAD_ASSERT(A.rows() == A.cols() && x.size() == A.cols() && y.size() == A.cols());
  SOFTGRAD_ASSERT(&x != &y && 0 <= first && first <= last && last <= A.cols());
  SOFTGRAD_ASSERT(first % b == 0 && last % b == 0);
  const int first_column = static_cast<int>(first / b);
  const int last_column = static_cast<int>(last / b);
  const int* outer = A.outerIndexPtr();
  const int* rows = layout.rows().data();
  const int* begin = layout.begin().data();
  if (b == 3) {
    block_columns_kernel<3>()(outer, A.valuePtr(), rows, begin, x.data(), y.data(), first_column,
                              last_column);
  } else if (b == 2) {
    block_columns_kernel<2>()(outer, A.valuePtr(), rows, begin, x.data(), y.data(), first_column,
                              last_column);
  } else {
    for (int i = first_column; i < last_column; ++i) y[i] = column_dot(A, x, i);
  }
}

void symmetric_spmv(const SparseMatrix& A, const Eigen::VectorXd& x, Eigen::VectorXd& y) {
  spmv(A, x, y, kParallelSpmvMinRows);
}

void symmetric_spmv(const SparseMatrix& A, const BlockLayout& layout, const Eigen::VectorXd& x,
                    Eigen::VectorXd& y) {
  spmv(A, layout, x, y, kParallelSpmvMinRows);
}

const char* block_product_kernel() { return avx2_block_product() ? "avx2" : "portable"; }

void detail::force_portable_block_product(bool portable) {
  portable_block_product_forced = portable;
}

void AdaptiveSpmv::apply(const SparseMatrix& A, const BlockLayout& layout, const Eigen::VectorXd& x,
                         Eigen::VectorXd& y) {
  if (A.cols() < kParallelSpmvMinRows) {
    spmv(A, layout, x, y, kParallelSpmvMinRows);
    return;
  }
  const int way = choice_.next();
  const auto start = std::chrono::steady_clock::now();
  spmv(A, layout, x, y, way == 1 ? kParallelSpmvMinRows : INT_MAX);
  choice_.record(way,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
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
