#include "softgrad/assembly.hpp"

#include <algorithm>

#include "softgrad/errors.hpp"
#include "softgrad/parallel.hpp"

namespace softgrad {

int SparsityBuilder::add_stencils(const int* verts, int n_stencils, int size) {
  SOFTGRAD_CHECK(size >= 1 && n_stencils >= 0, "bad stencil set");
  for (int k = 0; k < n_stencils * size; ++k)
    SOFTGRAD_CHECK(verts[k] >= 0 && verts[k] < n_verts_, "stencil vertex " << verts[k]);
  sets_.push_back({std::vector<int>(verts, verts + n_stencils * size), n_stencils, size});
  return static_cast<int>(sets_.size()) - 1;
}

namespace {

/// Position of row `row` in column `col` of a compressed matrix with sorted indices.
int find_entry(const SparseMatrix& H, int row, int col) {
  const int* begin = H.innerIndexPtr() + H.outerIndexPtr()[col];
  const int* end = H.innerIndexPtr() + H.outerIndexPtr()[col + 1];
  const int* it = std::lower_bound(begin, end, row);
  SOFTGRAD_CHECK(it != end && *it == row, "entry (" << row << ", " << col << ") not in pattern");
  return static_cast<int>(it - H.innerIndexPtr());
}

}  // namespace

HessianAssembler::HessianAssembler(const SparsityBuilder& b) : dim_(b.dim_) {
  const int d = b.dim_;
  const int n = b.n_verts_ * d;
  // Vertex adjacency from all stencils, plus every vertex's own block.
  std::vector<std::vector<int>> adj(b.n_verts_);
  for (int v = 0; v < b.n_verts_; ++v) adj[v].push_back(v);
  for (const auto& set : b.sets_)
    for (int s = 0; s < set.n_stencils; ++s)
      for (int a = 0; a < set.size; ++a)
        for (int c = 0; c < set.size; ++c)
          adj[set.verts[s * set.size + a]].push_back(set.verts[s * set.size + c]);
  for (const auto& [a, c] : b.extra_) {
    adj[a].push_back(c);
    adj[c].push_back(a);
  }
  size_t nnz = 0;
  for (auto& list : adj) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    nnz += list.size() * d * d;
  }
  // Column-major pattern: column (v, i) holds rows (w, j) for every neighbour w of v.
  H_.resize(n, n);
  H_.resizeNonZeros(static_cast<Eigen::Index>(nnz));
  int* outer = H_.outerIndexPtr();
  int* inner = H_.innerIndexPtr();
  int pos = 0;
  for (int v = 0; v < b.n_verts_; ++v)
    for (int i = 0; i < d; ++i) {
      outer[v * d + i] = pos;
      for (int w : adj[v])
        for (int j = 0; j < d; ++j) inner[pos++] = w * d + j;
    }
  outer[n] = pos;
  std::fill(H_.valuePtr(), H_.valuePtr() + nnz, 0.0);

  diagonal_.resize(n);
  for (int i = 0; i < n; ++i) diagonal_[i] = find_entry(H_, i, i);

  // Scatter plans: for each nonzero, the local entries that land on it (CSR over nonzeros).
  for (const auto& set : b.sets_) {
    Plan plan;
    const int m = set.size * d;
    plan.n_local = m * m;
    std::vector<int> target(static_cast<size_t>(set.n_stencils) * plan.n_local);
    std::vector<int> count(nnz + 1, 0);
    for (int s = 0; s < set.n_stencils; ++s)
      for (int r = 0; r < m; ++r)
        for (int c = 0; c < m; ++c) {
          const int row = set.verts[s * set.size + r / d] * d + r % d;
          const int col = set.verts[s * set.size + c / d] * d + c % d;
          const int t = find_entry(H_, row, col);
          target[static_cast<size_t>(s) * plan.n_local + r * m + c] = t;
          ++count[t + 1];
        }
    plan.nz_begin.assign(nnz + 1, 0);
    for (size_t k = 0; k < nnz; ++k) plan.nz_begin[k + 1] = plan.nz_begin[k] + count[k + 1];
    plan.contrib.resize(target.size());
    std::vector<int> fill(plan.nz_begin.begin(), plan.nz_begin.end() - 1);
    for (size_t k = 0; k < target.size(); ++k)
      plan.contrib[fill[target[k]]++] = static_cast<int>(k);
    plan.target = std::move(target);
    plans_.push_back(std::move(plan));
  }
}

void HessianAssembler::set_zero() {
  std::fill(H_.valuePtr(), H_.valuePtr() + H_.nonZeros(), 0.0);
  dynamic_pairs_.clear();
  incomplete_ = false;
}

void HessianAssembler::add_diagonal(const Eigen::VectorXd& d) {
  SOFTGRAD_CHECK(d.size() == static_cast<Eigen::Index>(diagonal_.size()), "diagonal size");
  double* values = H_.valuePtr();
  for (size_t i = 0; i < diagonal_.size(); ++i) values[diagonal_[i]] += d[i];
}

void HessianAssembler::add_scaled_identity(double c) {
  double* values = H_.valuePtr();
  for (int k : diagonal_) values[k] += c;
}

void HessianAssembler::add_stencils(int id, const double* local, double scale) {
  SOFTGRAD_CHECK(id >= 0 && id < static_cast<int>(plans_.size()), "unknown stencil set " << id);
  const Plan& plan = plans_[id];
  double* values = H_.valuePtr();
  const int nnz = static_cast<int>(H_.nonZeros());
  if (nnz < kParallelMinEntries) {  // serial: one pass over the local entries
    const auto n = plan.target.size();
    for (size_t k = 0; k < n; ++k) values[plan.target[k]] += scale * local[k];
    return;
  }
  parallel_for(nnz, kParallelMinEntries, [&](int k) {  // each thread sums its own entries
    double sum = 0.0;
    for (int c = plan.nz_begin[k]; c < plan.nz_begin[k + 1]; ++c) sum += local[plan.contrib[c]];
    values[k] += scale * sum;
  });
}

void HessianAssembler::add_dynamic_stencils(const int* verts, int n_stencils, int size,
                                            const double* local) {
  const int d = dim_;
  const int m = size * d;
  double* values = H_.valuePtr();
  const int* outer = H_.outerIndexPtr();
  const int* inner = H_.innerIndexPtr();
  for (int s = 0; s < n_stencils; ++s) {
    const int* v = verts + s * size;
    const double* h = local + static_cast<size_t>(s) * m * m;
    for (int a = 0; a < size; ++a)
      for (int c = 0; c < size; ++c) {
        if (v[a] != v[c]) dynamic_pairs_.emplace_back(std::min(v[a], v[c]), std::max(v[a], v[c]));
        // Column (v[c], j) holds its rows in vertex blocks: one search finds the dim rows.
        for (int j = 0; j < d; ++j) {
          const int col = v[c] * d + j;
          const int* begin = inner + outer[col];
          const int* end = inner + outer[col + 1];
          const int* it = std::lower_bound(begin, end, v[a] * d);
          if (it == end || *it != v[a] * d) {
            incomplete_ = true;
            break;
          }
          const auto k = it - inner;
          for (int i = 0; i < d; ++i) values[k + i] += h[(a * d + i) * m + c * d + j];
        }
      }
  }
}

void HessianAssembler::apply_dirichlet(const std::vector<int>& fixed_dofs) {
  if (fixed_dofs.empty()) return;
  std::vector<char> fixed(H_.rows(), 0);
  for (int i : fixed_dofs) fixed[i] = 1;
  const int n = static_cast<int>(H_.cols());
  parallel_for(n, kParallelMinEntries / 16, [&](int col) {
    for (int k = H_.outerIndexPtr()[col]; k < H_.outerIndexPtr()[col + 1]; ++k) {
      const int row = H_.innerIndexPtr()[k];
      if (fixed[row] || fixed[col]) H_.valuePtr()[k] = (row == col) ? 1.0 : 0.0;
    }
  });
}

}  // namespace softgrad
