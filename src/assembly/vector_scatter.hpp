/// @file vector_scatter.hpp
/// Adds per-stencil vectors (element gradients, Hessian-vector products) into a global vector,
/// in parallel over vertices: each vertex sums the stencil entries that touch it, so no two
/// threads write the same entry and the result does not depend on the thread count.
#pragma once

#include <Eigen/Core>
#include <vector>

namespace softgrad {

class VectorScatter {
 public:
  VectorScatter() = default;
  /// verts: n_stencils x size vertex indices (row-major); dim: dofs per vertex.
  VectorScatter(const int* verts, int n_stencils, int size, int n_verts, int dim);
  /// out += scale * sum over stencils of their local vectors (n_stencils x size*dim).
  void add(const double* local, Eigen::VectorXd& out, double scale = 1.0) const;

 private:
  int dim_ = 0;
  std::vector<int> begin_;  ///< per vertex: start in slots_
  std::vector<int> slots_;  ///< flat (stencil * size + local vertex) indices
};

}  // namespace softgrad
