#include "softgrad/detail/assembly.hpp"

#include <algorithm>

#include "softgrad/detail/parallel.hpp"
#include "softgrad/errors.hpp"

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

  // The vertex blocks: block (w, v) for each neighbour w of each vertex v, in value order.
  std::vector<int> first_block(b.n_verts_ + 1, 0);  // per column vertex: its first block
  for (int v = 0; v < b.n_verts_; ++v)
    first_block[v + 1] = first_block[v] + static_cast<int>(adj[v].size());
  const int n_blocks = first_block[b.n_verts_];
  block_start_.resize(n_blocks);
  block_column_.resize(n_blocks);
  for (int v = 0; v < b.n_verts_; ++v)
    for (int k = 0; k < static_cast<int>(adj[v].size()); ++k) {
      block_start_[first_block[v] + k] = outer[v * d] + k * d;
      block_column_[first_block[v] + k] = static_cast<int>(adj[v].size()) * d;
    }
  // Small matrices are assembled serially by scattering each local entry to its value index;
  // large ones in parallel, each block gathering the local blocks that land on it.
  const bool serial = static_cast<int>(nnz) < kParallelMinEntries;
  for (const auto& set : b.sets_) {
    Plan plan;
    plan.m = set.size * d;
    plan.n_local = plan.m * plan.m;
    const int pairs = set.size * set.size;
    // Per stencil and vertex pair (a, c): the block of (row vertex a, column vertex c).
    std::vector<int> block(static_cast<size_t>(set.n_stencils) * pairs);
    for (int s = 0; s < set.n_stencils; ++s)
      for (int a = 0; a < set.size; ++a)
        for (int c = 0; c < set.size; ++c) {
          const int w = set.verts[s * set.size + a];
          const int v = set.verts[s * set.size + c];
          const auto it = std::lower_bound(adj[v].begin(), adj[v].end(), w);
          block[static_cast<size_t>(s) * pairs + a * set.size + c] =
              first_block[v] + static_cast<int>(it - adj[v].begin());
        }
    if (serial) {
      plan.target.resize(static_cast<size_t>(set.n_stencils) * plan.n_local);
      for (int s = 0; s < set.n_stencils; ++s)
        for (int r = 0; r < plan.m; ++r)
          for (int c = 0; c < plan.m; ++c) {
            const int k = block[static_cast<size_t>(s) * pairs + (r / d) * set.size + c / d];
            plan.target[static_cast<size_t>(s) * plan.n_local + r * plan.m + c] =
                block_start_[k] + (c % d) * block_column_[k] + r % d;
          }
    } else {
      plan.block_begin.assign(n_blocks + 1, 0);
      for (int k : block) ++plan.block_begin[k + 1];
      for (int k = 0; k < n_blocks; ++k) plan.block_begin[k + 1] += plan.block_begin[k];
      plan.block_sources.resize(block.size());
      std::vector<int> fill(plan.block_begin.begin(), plan.block_begin.end() - 1);
      for (int s = 0; s < set.n_stencils; ++s)  // stencils ascending within each block
        for (int a = 0; a < set.size; ++a)
          for (int c = 0; c < set.size; ++c) {
            const int k = block[static_cast<size_t>(s) * pairs + a * set.size + c];
            plan.block_sources[fill[k]++] = s * plan.n_local + a * d * plan.m + c * d;
          }
      plan_chunks(plan, block, set.n_stencils, set.size, d, n_blocks);
    }
    plans_.push_back(std::move(plan));
  }
  for (const Plan& plan : plans_)
    if (plan.chunk > 0) block_sums_.assign(static_cast<size_t>(n_blocks) * d * d, 0.0);
}

void HessianAssembler::plan_chunks(Plan& plan, const std::vector<int>& block, int n_stencils,
                                   int size, int dim, int n_blocks) {
  // A chunk's local matrices should stay in a core's L2 cache while they are summed. Python pcg
  // backward at 10k tets (AMD EPYC, L2 1 MB): 64 KB to 512 KB within noise of each other, 1 MB
  // 3-4% slower, the whole set (11.5 MB) 8% slower.
  constexpr int kChunkBytes = 128 * 1024;
  plan.chunk = std::max(1, kChunkBytes / (plan.n_local * static_cast<int>(sizeof(double))));
  const int pairs = size * size;
  std::vector<char> reached(static_cast<size_t>(n_blocks), 0);
  std::vector<std::pair<int, int>> entries;  // (block, source) of one chunk, stencils ascending
  plan.chunk_begin.assign(1, 0);
  plan.chunk_source_begin.assign(1, 0);
  for (int first = 0; first < n_stencils; first += plan.chunk) {
    const int last = std::min(n_stencils, first + plan.chunk);
    entries.clear();
    for (int s = first; s < last; ++s)
      for (int a = 0; a < size; ++a)
        for (int c = 0; c < size; ++c)
          entries.emplace_back(block[static_cast<size_t>(s) * pairs + a * size + c],
                               (s - first) * plan.n_local + a * dim * plan.m + c * dim);
    // Stable: each block keeps its sources in stencil order, as in block_sources.
    std::stable_sort(entries.begin(), entries.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    for (size_t e = 0; e < entries.size();) {
      const int k = entries[e].first;
      plan.chunk_block.push_back(reached[k] ? k : -k - 1);
      reached[k] = 1;
      for (; e < entries.size() && entries[e].first == k; ++e)
        plan.chunk_sources.push_back(entries[e].second);
      plan.chunk_source_begin.push_back(static_cast<int>(plan.chunk_sources.size()));
    }
    plan.chunk_begin.push_back(static_cast<int>(plan.chunk_block.size()));
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

namespace {

// Adds to each D x D block of `values` the sum of the local blocks that land on it (see Plan).
template <int D>
void gather_blocks(const std::vector<int>& block_begin, const std::vector<int>& sources,
                   const std::vector<int>& start, const std::vector<int>& column, int m,
                   const double* local, double scale, double* values) {
  const int n_blocks = static_cast<int>(start.size());
  parallel_for(n_blocks, kParallelMinEntries / (D * D), [&](int k) {
    double sum[D * D] = {};
    for (int c = block_begin[k]; c < block_begin[k + 1]; ++c) {
      const double* source = local + sources[c];
      for (int i = 0; i < D; ++i)
        for (int j = 0; j < D; ++j) sum[i * D + j] += source[i * m + j];
    }
    double* target = values + start[k];
    for (int j = 0; j < D; ++j)
      for (int i = 0; i < D; ++i) target[j * column[k] + i] += scale * sum[i * D + j];
  });
}

// Adds one chunk's local blocks to the running block sums, each block's in stencil order.
template <int D>
void sum_chunk(const std::vector<int>& begin, const std::vector<int>& blocks,
               const std::vector<int>& source_begin, const std::vector<int>& sources, int chunk,
               int m, const double* local, double* sums) {
  for (int e = begin[chunk]; e < begin[chunk + 1]; ++e) {
    const bool fresh = blocks[e] < 0;  // no earlier chunk reached it: start from zero
    double* out = sums + static_cast<size_t>(fresh ? -blocks[e] - 1 : blocks[e]) * D * D;
    double sum[D * D];
    for (int i = 0; i < D * D; ++i) sum[i] = fresh ? 0.0 : out[i];
    for (int c = source_begin[e]; c < source_begin[e + 1]; ++c) {
      const double* source = local + sources[c];
      for (int i = 0; i < D; ++i)
        for (int j = 0; j < D; ++j) sum[i * D + j] += source[i * m + j];
    }
    for (int i = 0; i < D * D; ++i) out[i] = sum[i];
  }
}

// Adds the block sums to the values as gather_blocks does (every block, those without local
// blocks adding zero).
template <int D>
void add_block_sums(const std::vector<int>& block_begin, const std::vector<int>& start,
                    const std::vector<int>& column, const double* sums, double scale,
                    double* values) {
  const int n_blocks = static_cast<int>(start.size());
  parallel_for(n_blocks, kParallelMinEntries / (D * D), [&](int k) {
    const double zero[D * D] = {};
    const double* sum =
        block_begin[k] < block_begin[k + 1] ? sums + static_cast<size_t>(k) * D * D : zero;
    double* target = values + start[k];
    for (int j = 0; j < D; ++j)
      for (int i = 0; i < D; ++i) target[j * column[k] + i] += scale * sum[i * D + j];
  });
}

}  // namespace

int HessianAssembler::chunk_stencils(int id) const {
  SOFTGRAD_CHECK(id >= 0 && id < static_cast<int>(plans_.size()), "unknown stencil set " << id);
  return plans_[id].chunk;
}

void HessianAssembler::add_stencil_chunk(int id, int chunk, const double* local) {
  SOFTGRAD_CHECK(id >= 0 && id < static_cast<int>(plans_.size()), "unknown stencil set " << id);
  Plan& plan = plans_[id];
  SOFTGRAD_CHECK(plan.chunk > 0, "stencil set " << id << " is not assembled in chunks");
  const int n_chunks = static_cast<int>(plan.chunk_begin.size()) - 1;
  SOFTGRAD_CHECK(chunk >= 0 && chunk < n_chunks && (chunk == 0 || chunk == plan.next_chunk),
                 "chunk " << chunk << " of stencil set " << id << " out of order (expected "
                          << plan.next_chunk << " of " << n_chunks << ")");
  plan.next_chunk = chunk + 1;
  switch (dim_) {
    case 2:
      return sum_chunk<2>(plan.chunk_begin, plan.chunk_block, plan.chunk_source_begin,
                          plan.chunk_sources, chunk, plan.m, local, block_sums_.data());
    case 3:
      return sum_chunk<3>(plan.chunk_begin, plan.chunk_block, plan.chunk_source_begin,
                          plan.chunk_sources, chunk, plan.m, local, block_sums_.data());
    default:
      return sum_chunk<1>(plan.chunk_begin, plan.chunk_block, plan.chunk_source_begin,
                          plan.chunk_sources, chunk, plan.m, local, block_sums_.data());
  }
}

void HessianAssembler::finish_stencil_chunks(int id, double scale) {
  SOFTGRAD_CHECK(id >= 0 && id < static_cast<int>(plans_.size()), "unknown stencil set " << id);
  Plan& plan = plans_[id];
  const int n_chunks = static_cast<int>(plan.chunk_begin.size()) - 1;
  SOFTGRAD_CHECK(plan.chunk > 0 && plan.next_chunk == n_chunks,
                 "stencil set " << id << ": finished after " << plan.next_chunk << " of "
                                << n_chunks << " chunks");
  plan.next_chunk = 0;
  double* values = H_.valuePtr();
  switch (dim_) {
    case 2:
      return add_block_sums<2>(plan.block_begin, block_start_, block_column_, block_sums_.data(),
                               scale, values);
    case 3:
      return add_block_sums<3>(plan.block_begin, block_start_, block_column_, block_sums_.data(),
                               scale, values);
    default:
      return add_block_sums<1>(plan.block_begin, block_start_, block_column_, block_sums_.data(),
                               scale, values);
  }
}

void HessianAssembler::add_stencils(int id, const double* local, double scale) {
  SOFTGRAD_CHECK(id >= 0 && id < static_cast<int>(plans_.size()), "unknown stencil set " << id);
  const Plan& plan = plans_[id];
  double* values = H_.valuePtr();
  if (!plan.target.empty() || plan.block_begin.empty()) {  // serial: each local entry in order
    const auto n = plan.target.size();
    for (size_t k = 0; k < n; ++k) values[plan.target[k]] += scale * local[k];
    return;
  }
  // Each block sums its sources in stencil order, so the result does not depend on threads.
  switch (dim_) {
    case 2:
      return gather_blocks<2>(plan.block_begin, plan.block_sources, block_start_, block_column_,
                              plan.m, local, scale, values);
    case 3:
      return gather_blocks<3>(plan.block_begin, plan.block_sources, block_start_, block_column_,
                              plan.m, local, scale, values);
    default:
      return gather_blocks<1>(plan.block_begin, plan.block_sources, block_start_, block_column_,
                              plan.m, local, scale, values);
  }
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
  // The entries in the fixed rows and columns, found once for this set of dofs (a Newton solve
  // applies the same set to every Hessian).
  if (fixed_dofs != dirichlet_dofs_) {
    dirichlet_dofs_ = fixed_dofs;
    dirichlet_zeros_.clear();
    dirichlet_ones_.clear();
    std::vector<char> fixed(H_.rows(), 0);
    for (int i : fixed_dofs) fixed[i] = 1;
    for (int col = 0; col < H_.cols(); ++col)
      for (int k = H_.outerIndexPtr()[col]; k < H_.outerIndexPtr()[col + 1]; ++k) {
        const int row = H_.innerIndexPtr()[k];
        if (fixed[row] || fixed[col])
          (row == col ? dirichlet_ones_ : dirichlet_zeros_).push_back(k);
      }
  }
  double* values = H_.valuePtr();
  for (int k : dirichlet_zeros_) values[k] = 0.0;
  for (int k : dirichlet_ones_) values[k] = 1.0;
}

}  // namespace softgrad
