#include "vector_scatter.hpp"

#include "softgrad/detail/parallel.hpp"

namespace softgrad {

VectorScatter::VectorScatter(const int* verts, int n_stencils, int size, int n_verts, int dim)
    : dim_(dim) {
  const int n = n_stencils * size;
  begin_.assign(n_verts + 1, 0);
  for (int k = 0; k < n; ++k) ++begin_[verts[k] + 1];
  for (int v = 0; v < n_verts; ++v) begin_[v + 1] += begin_[v];
  slots_.resize(n);
  std::vector<int> fill(begin_.begin(), begin_.end() - 1);
  for (int k = 0; k < n; ++k) slots_[fill[verts[k]]++] = k;
}

void VectorScatter::add(const double* local, Eigen::VectorXd& out, double scale) const {
  const int n_verts = static_cast<int>(begin_.size()) - 1;
  parallel_for(n_verts, kParallelMinEntries / 16, [&](int v) {
    for (int k = begin_[v]; k < begin_[v + 1]; ++k) {
      const double* src = local + static_cast<size_t>(slots_[k]) * dim_;
      for (int i = 0; i < dim_; ++i) out[v * dim_ + i] += scale * src[i];
    }
  });
}

}  // namespace softgrad
