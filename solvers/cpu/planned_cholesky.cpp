#include "solvers/cpu/planned_cholesky.hpp"

#include <algorithm>
#include <cmath>

namespace softgrad {
namespace {

/// True if A, in the permuted order, consists of whole B x B blocks (the dofs of a vertex).
bool made_of_blocks(const SparseMatrix& A, const std::vector<int>& pinv, int B) {
  const int n = static_cast<int>(A.rows());
  if (n % B != 0) return false;
  std::vector<std::vector<int>> blocks(n / B);
  for (int c = 0; c < n; ++c)
    for (int p = A.outerIndexPtr()[c]; p < A.outerIndexPtr()[c + 1]; ++p)
      blocks[pinv[c] / B].push_back(pinv[A.innerIndexPtr()[p]] / B);
  long count = 0;
  for (auto& rows : blocks) {
    std::sort(rows.begin(), rows.end());
    count += std::unique(rows.begin(), rows.end()) - rows.begin();
  }
  return count * B * B == static_cast<long>(A.nonZeros());
}

}  // namespace

std::optional<PlannedCholesky> PlannedCholesky::plan(const SparseMatrix& A, const int* perm,
                                                     long max_updates, int block_size) {
  const int n = static_cast<int>(A.rows());
  std::vector<int> pinv(n);
  for (int k = 0; k < n; ++k) pinv[perm[k]] = k;
  int B = block_size;
  if (B == 0) B = made_of_blocks(A, pinv, 3) ? 3 : made_of_blocks(A, pinv, 2) ? 2 : 1;
  if (B < 1 || B > 3 || n % B != 0) return std::nullopt;
  const int nb = n / B;
  // Strict upper block pattern of P A P^T by block column: blocks (I, J) with I < J.
  std::vector<std::vector<int>> upper(nb);
  for (int c = 0; c < n; ++c)
    for (int p = A.outerIndexPtr()[c]; p < A.outerIndexPtr()[c + 1]; ++p) {
      const int I = pinv[A.innerIndexPtr()[p]] / B, J = pinv[c] / B;
      if (I < J) upper[J].push_back(I);
    }
  for (auto& rows : upper) {
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  }
  // Elimination tree (Liu's algorithm with path compression).
  std::vector<int> parent(nb, -1), ancestor(nb, -1);
  for (int J = 0; J < nb; ++J)
    for (int I : upper[J])
      for (int k = I; k != -1 && k < J;) {
        const int next = ancestor[k];
        ancestor[k] = J;
        if (next == -1) parent[k] = J;
        k = next;
      }
  // Row J of L is the union of the tree paths from each I in the upper part of column J up to
  // J; appending J to the columns on those paths keeps every column's rows sorted.
  std::vector<std::vector<int>> rows(nb);
  std::vector<int> mark(nb, -1);
  for (int J = 0; J < nb; ++J) {
    mark[J] = J;
    for (int I : upper[J])
      for (int k = I; mark[k] != J; k = parent[k]) {
        mark[k] = J;
        rows[k].push_back(J);
      }
  }
  // Count the updates before building anything large.
  long n_updates = 0;
  for (int K = 0; K < nb; ++K) {
    const long m = static_cast<long>(rows[K].size());
    n_updates += m * (m + 1) / 2;  // per row J of column K: its blocks of rows >= J
    if (n_updates > max_updates) return std::nullopt;
  }

  PlannedCholesky c;
  c.n_ = n;
  c.block_ = B;
  c.perm_.assign(perm, perm + n);
  c.Lp_.resize(nb + 1);
  c.Lp_[0] = 0;
  for (int K = 0; K < nb; ++K) c.Lp_[K + 1] = c.Lp_[K] + 1 + static_cast<int>(rows[K].size());
  c.Li_.resize(c.Lp_[nb]);
  for (int K = 0; K < nb; ++K) {
    c.Li_[c.Lp_[K]] = K;
    std::copy(rows[K].begin(), rows[K].end(), c.Li_.begin() + c.Lp_[K] + 1);
  }
  c.Lx_.assign(c.Li_.size() * B * B, 0.0);
  const auto position = [&c](int row, int col) {
    const auto begin = c.Li_.begin() + c.Lp_[col], end = c.Li_.begin() + c.Lp_[col + 1];
    return static_cast<int>(std::lower_bound(begin, end, row) - c.Li_.begin());
  };
  // Where the lower triangle of P A P^T comes from in A's value array (mirrors are not read).
  for (int col = 0; col < n; ++col)
    for (int p = A.outerIndexPtr()[col]; p < A.outerIndexPtr()[col + 1]; ++p) {
      const int i = pinv[A.innerIndexPtr()[p]], j = pinv[col];
      if (i < j) continue;
      c.a_source_.push_back(p);
      c.a_dest_.push_back(position(i / B, j / B) * B * B + (i % B) * B + j % B);
    }
  // Left-looking updates of block column J: one per block L(J, K), K < J, and row >= J.
  std::vector<std::vector<int>> row_entries(nb);  // per row J: positions of its L(J, K), K < J
  for (int K = 0; K < nb; ++K)
    for (int p = c.Lp_[K] + 1; p < c.Lp_[K + 1]; ++p) row_entries[c.Li_[p]].push_back(p);
  std::vector<int> column_of(c.Li_.size());
  for (int K = 0; K < nb; ++K)
    for (int p = c.Lp_[K]; p < c.Lp_[K + 1]; ++p) column_of[p] = K;
  std::vector<int> slot(nb, -1);  // block row -> position in the current column J
  c.col_updates_.resize(nb + 1);
  for (int J = 0; J < nb; ++J) {
    c.col_updates_[J] = static_cast<int>(c.updates_.size());
    for (int p = c.Lp_[J]; p < c.Lp_[J + 1]; ++p) slot[c.Li_[p]] = p;
    for (int factor : row_entries[J])
      for (int q = factor; q < c.Lp_[column_of[factor] + 1]; ++q)
        c.updates_.push_back({slot[c.Li_[q]], q, factor});
  }
  c.col_updates_[nb] = static_cast<int>(c.updates_.size());
  c.work_.resize(n);
  return c;
}

long PlannedCholesky::factor_nonzeros() const {
  const long nb = static_cast<long>(Lp_.size()) - 1, blocks = static_cast<long>(Li_.size());
  return nb * block_ * (block_ + 1) / 2 + (blocks - nb) * block_ * block_;
}

template <int B>
int PlannedCholesky::factorize_blocks(const double* a_values) {
  constexpr int BB = B * B;
  double* L = Lx_.data();
  std::fill(Lx_.begin(), Lx_.end(), 0.0);
  const auto n_sources = a_source_.size();
  for (size_t k = 0; k < n_sources; ++k) L[a_dest_[k]] = a_values[a_source_[k]];
  const Update* updates = updates_.data();
  const int nb = n_ / B;
  for (int J = 0; J < nb; ++J) {
    for (int u = col_updates_[J]; u < col_updates_[J + 1]; ++u) {
      double* D = L + BB * updates[u].dst;
      const double* S = L + BB * updates[u].source;
      const double* F = L + BB * updates[u].factor;
      for (int r = 0; r < B; ++r)
        for (int c = 0; c < B; ++c) {
          double s = 0.0;
          for (int t = 0; t < B; ++t) s += S[r * B + t] * F[c * B + t];
          D[r * B + c] -= s;
        }
    }
    // Dense Cholesky of the diagonal block (its lower triangle; the upper is cleared).
    double* D = L + BB * Lp_[J];
    double inv[B];
    for (int c = 0; c < B; ++c) {
      double pivot = D[c * B + c];
      for (int t = 0; t < c; ++t) pivot -= D[c * B + t] * D[c * B + t];
      if (!(pivot > 0.0) || !std::isfinite(pivot)) return B * J + c;
      const double d = std::sqrt(pivot);
      D[c * B + c] = d;
      inv[c] = 1.0 / d;
      for (int r = c + 1; r < B; ++r) {
        double s = D[r * B + c];
        for (int t = 0; t < c; ++t) s -= D[r * B + t] * D[c * B + t];
        D[r * B + c] = s * inv[c];
        D[c * B + r] = 0.0;
      }
    }
    // The blocks below: X := X D^-T.
    for (int p = Lp_[J] + 1; p < Lp_[J + 1]; ++p) {
      double* X = L + BB * p;
      for (int r = 0; r < B; ++r)
        for (int c = 0; c < B; ++c) {
          double s = X[r * B + c];
          for (int t = 0; t < c; ++t) s -= X[r * B + t] * D[c * B + t];
          X[r * B + c] = s * inv[c];
        }
    }
  }
  return -1;
}

template <int B>
void PlannedCholesky::solve_blocks(double* y) const {
  constexpr int BB = B * B;
  const double* L = Lx_.data();
  const int nb = n_ / B;
  for (int J = 0; J < nb; ++J) {  // L y = P b
    const double* D = L + BB * Lp_[J];
    double* yJ = y + B * J;
    for (int c = 0; c < B; ++c) {
      double s = yJ[c];
      for (int t = 0; t < c; ++t) s -= D[c * B + t] * yJ[t];
      yJ[c] = s / D[c * B + c];
    }
    for (int p = Lp_[J] + 1; p < Lp_[J + 1]; ++p) {
      const double* X = L + BB * p;
      double* yI = y + B * Li_[p];
      for (int r = 0; r < B; ++r)
        for (int t = 0; t < B; ++t) yI[r] -= X[r * B + t] * yJ[t];
    }
  }
  for (int J = nb - 1; J >= 0; --J) {  // L^T z = y
    double s[B];
    for (int c = 0; c < B; ++c) s[c] = y[B * J + c];
    for (int p = Lp_[J] + 1; p < Lp_[J + 1]; ++p) {
      const double* X = L + BB * p;
      const double* yI = y + B * Li_[p];
      for (int r = 0; r < B; ++r)
        for (int c = 0; c < B; ++c) s[c] -= X[r * B + c] * yI[r];
    }
    const double* D = L + BB * Lp_[J];
    for (int c = B - 1; c >= 0; --c) {
      for (int t = c + 1; t < B; ++t) s[c] -= D[t * B + c] * y[B * J + t];
      y[B * J + c] = s[c] / D[c * B + c];
    }
  }
}

int PlannedCholesky::factorize(const double* a_values) {
  switch (block_) {
    case 3:
      return factorize_blocks<3>(a_values);
    case 2:
      return factorize_blocks<2>(a_values);
    default:
      return factorize_blocks<1>(a_values);
  }
}

void PlannedCholesky::solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) {
  double* y = work_.data();
  for (int j = 0; j < n_; ++j) y[j] = b[perm_[j]];
  switch (block_) {
    case 3:
      solve_blocks<3>(y);
      break;
    case 2:
      solve_blocks<2>(y);
      break;
    default:
      solve_blocks<1>(y);
  }
  x.resize(n_);
  for (int j = 0; j < n_; ++j) x[perm_[j]] = y[j];
}

}  // namespace softgrad
