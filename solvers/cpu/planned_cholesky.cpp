#include "softgrad/solvers/cpu/planned_cholesky.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace softgrad {

std::optional<PlannedCholesky> PlannedCholesky::plan(const SparseMatrix& A, const int* perm,
                                                     long max_updates) {
  const int n = static_cast<int>(A.rows());
  std::vector<int> pinv(n);
  for (int k = 0; k < n; ++k) pinv[perm[k]] = k;
  // Strict upper pattern of B = P A P^T by column: B(i, j) != 0 with i < j.
  std::vector<std::vector<int>> upper(n);
  for (int c = 0; c < n; ++c)
    for (int p = A.outerIndexPtr()[c]; p < A.outerIndexPtr()[c + 1]; ++p) {
      const int i = pinv[A.innerIndexPtr()[p]], j = pinv[c];
      if (i < j) upper[j].push_back(i);
    }
  // Elimination tree (Liu's algorithm with path compression).
  std::vector<int> parent(n, -1), ancestor(n, -1);
  for (int j = 0; j < n; ++j)
    for (int i : upper[j])
      for (int k = i; k != -1 && k < j;) {
        const int next = ancestor[k];
        ancestor[k] = j;
        if (next == -1) parent[k] = j;
        k = next;
      }
  // Row j of L is the union of the tree paths from each i in B(:, j)'s upper part up to j;
  // appending j to the columns on those paths keeps every column's rows sorted.
  std::vector<std::vector<int>> rows(n);
  std::vector<int> mark(n, -1);
  for (int j = 0; j < n; ++j) {
    mark[j] = j;
    for (int i : upper[j])
      for (int k = i; mark[k] != j; k = parent[k]) {
        mark[k] = j;
        rows[k].push_back(j);
      }
  }
  // Count the updates before building anything large.
  long n_updates = 0;
  for (int k = 0; k < n; ++k) {
    const long m = static_cast<long>(rows[k].size());
    n_updates += m * (m + 1) / 2;  // per row j of column k: its entries of rows >= j
    if (n_updates > max_updates) return std::nullopt;
  }

  PlannedCholesky c;
  c.n_ = n;
  c.perm_.assign(perm, perm + n);
  c.Lp_.resize(n + 1);
  c.Lp_[0] = 0;
  for (int k = 0; k < n; ++k) c.Lp_[k + 1] = c.Lp_[k] + 1 + static_cast<int>(rows[k].size());
  c.Li_.resize(c.Lp_[n]);
  for (int k = 0; k < n; ++k) {
    c.Li_[c.Lp_[k]] = k;
    std::copy(rows[k].begin(), rows[k].end(), c.Li_.begin() + c.Lp_[k] + 1);
  }
  c.Lx_.assign(c.Li_.size(), 0.0);
  const auto position = [&c](int row, int col) {
    const auto begin = c.Li_.begin() + c.Lp_[col], end = c.Li_.begin() + c.Lp_[col + 1];
    return static_cast<int>(std::lower_bound(begin, end, row) - c.Li_.begin());
  };
  // Where B's lower triangle comes from in A's value array (the upper mirrors are not read).
  for (int col = 0; col < n; ++col)
    for (int p = A.outerIndexPtr()[col]; p < A.outerIndexPtr()[col + 1]; ++p) {
      const int i = pinv[A.innerIndexPtr()[p]], j = pinv[col];
      if (i < j) continue;
      c.a_source_.push_back(p);
      c.a_dest_.push_back(position(i, j));
    }
  // Left-looking updates of column j: one per k with L(j, k) != 0.
  // Per row j: (k, position of L(j, k)) for every k < j in row j's pattern.
  std::vector<std::vector<std::pair<int, int>>> row_entries(n);
  for (int k = 0; k < n; ++k)
    for (int p = c.Lp_[k] + 1; p < c.Lp_[k + 1]; ++p) row_entries[c.Li_[p]].emplace_back(k, p);
  std::vector<int> slot(n, -1);  // row -> position in the current column j
  c.col_updates_.resize(n + 1);
  for (int j = 0; j < n; ++j) {
    c.col_updates_[j] = static_cast<int>(c.updates_.size());
    for (int p = c.Lp_[j]; p < c.Lp_[j + 1]; ++p) slot[c.Li_[p]] = p;
    for (const auto& [k, source] : row_entries[j]) {
      for (int q = source; q < c.Lp_[k + 1]; ++q) c.updates_.push_back({slot[c.Li_[q]], q, source});
    }
  }
  c.col_updates_[n] = static_cast<int>(c.updates_.size());
  c.work_.resize(n);
  c.inv_diag_.resize(n);
  return c;
}

int PlannedCholesky::factorize(const double* a_values) {
  double* L = Lx_.data();
  std::fill(Lx_.begin(), Lx_.end(), 0.0);
  const auto n_sources = a_source_.size();
  for (size_t k = 0; k < n_sources; ++k) L[a_dest_[k]] = a_values[a_source_[k]];
  const Update* updates = updates_.data();
  for (int j = 0; j < n_; ++j) {
    for (int u = col_updates_[j]; u < col_updates_[j + 1]; ++u) {
      const Update& up = updates[u];
      L[up.dst] -= L[up.source] * L[up.factor];
    }
    const double pivot = L[Lp_[j]];
    if (!(pivot > 0.0) || !std::isfinite(pivot)) return j;
    const double d = std::sqrt(pivot);
    L[Lp_[j]] = d;
    const double inv = inv_diag_[j] = 1.0 / d;
    for (int p = Lp_[j] + 1; p < Lp_[j + 1]; ++p) L[p] *= inv;
  }
  return -1;
}

void PlannedCholesky::solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) {
  double* y = work_.data();
  const double* L = Lx_.data();
  for (int j = 0; j < n_; ++j) y[j] = b[perm_[j]];
  for (int j = 0; j < n_; ++j) {  // L y = P b
    const double yj = y[j] *= inv_diag_[j];
    for (int p = Lp_[j] + 1; p < Lp_[j + 1]; ++p) y[Li_[p]] -= L[p] * yj;
  }
  for (int j = n_ - 1; j >= 0; --j) {  // L^T z = y
    double s = y[j];
    for (int p = Lp_[j] + 1; p < Lp_[j + 1]; ++p) s -= L[p] * y[Li_[p]];
    y[j] = s * inv_diag_[j];
  }
  x.resize(n_);
  for (int j = 0; j < n_; ++j) x[perm_[j]] = y[j];
}

}  // namespace softgrad
