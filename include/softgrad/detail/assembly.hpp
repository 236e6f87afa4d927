/// @file assembly.hpp
/// Sparse Hessian assembly with a pattern analysed once. Terms declare vertex stencils (the
/// vertices of an element, a spring, ...); the builder forms the union pattern in full
/// symmetric storage over dofs, made of dim x dim vertex blocks, and precomputes, for every
/// stencil set, which local blocks land on each block. Assembly then sums them block by block in
/// parallel: no atomics, no searching, deterministic results. Small matrices are assembled
/// serially by scattering the local entries in order (one pass, no OpenMP region).
#pragma once

#include <Eigen/SparseCore>
#include <utility>
#include <vector>

namespace softgrad {

using SparseMatrix = Eigen::SparseMatrix<double>;

/// Collects stencils, then builds the pattern. Stencil set ids index HessianAssembler plans.
class SparsityBuilder {
 public:
  SparsityBuilder(int n_verts, int dim) : n_verts_(n_verts), dim_(dim) {}
  /// Adds n_stencils stencils of `size` vertices each (row-major vertex indices); returns the
  /// id of this stencil set for HessianAssembler::add_stencils.
  int add_stencils(const int* verts, int n_stencils, int size);
  /// Adds vertex pairs (a, b) whose blocks the pattern must hold besides the stencils' (the
  /// contact pairs of HessianAssembler::add_dynamic_stencils); replaces the previous pairs.
  void set_extra_pairs(std::vector<std::pair<int, int>> pairs) { extra_ = std::move(pairs); }
  int n_verts() const { return n_verts_; }
  int dim() const { return dim_; }

 private:
  friend class HessianAssembler;
  struct StencilSet {
    std::vector<int> verts;
    int n_stencils;
    int size;
  };
  int n_verts_;
  int dim_;
  std::vector<StencilSet> sets_;
  std::vector<std::pair<int, int>> extra_;
};

/// The assembled matrix and the scatter plans. Reused for every Newton iteration.
class HessianAssembler {
 public:
  /// Analyses the pattern (every vertex's diagonal block is always present).
  explicit HessianAssembler(const SparsityBuilder& builder);

  /// Sets all values to zero, keeping the pattern.
  void set_zero();
  /// H(i, i) += d[i] for every dof.
  void add_diagonal(const Eigen::VectorXd& d);
  /// H(i, i) += c for every dof.
  void add_scaled_identity(double c);
  /// Adds per-stencil dense blocks: `local` holds, for each stencil of set `id`, a row-major
  /// (size*dim)^2 matrix, scaled by `scale`.
  void add_stencils(int id, const double* local, double scale = 1.0);
  /// Stencils per chunk of set `id` for add_stencil_chunk, or 0 if the set is only assembled
  /// whole (small matrices).
  int chunk_stencils(int id) const;
  /// Chunked add_stencils, for a caller that makes the local matrices a chunk at a time, so that
  /// they are summed while still in cache instead of stored for the whole set and read back
  /// (11.5 MB for 10k tets): `local` holds the chunk_stencils(id) stencils (fewer in the last
  /// chunk) of chunk `chunk`. Chunks go in order from 0; finish_stencil_chunks then adds their
  /// sum, scaled by `scale`. The result equals add_stencils(id, all, scale) bit for bit: every
  /// block sums its local blocks in the same order.
  void add_stencil_chunk(int id, int chunk, const double* local);
  void finish_stencil_chunks(int id, double scale = 1.0);
  /// Adds dense blocks of stencils that the builder did not declare (contact pairs found at x):
  /// n_stencils row-major (size*dim)^2 matrices. Blocks outside the pattern are left out and
  /// their vertex pairs recorded (missing_pairs): the owner then grows the pattern
  /// (SparsityBuilder::set_extra_pairs with dynamic_pairs) and assembles again.
  void add_dynamic_stencils(const int* verts, int n_stencils, int size, const double* local);
  /// Off-diagonal vertex pairs (a < b) that add_dynamic_stencils met since set_zero.
  const std::vector<std::pair<int, int>>& dynamic_pairs() const { return dynamic_pairs_; }
  /// Whether some of them were outside the pattern.
  bool pattern_incomplete() const { return incomplete_; }
  /// Replaces the rows and columns of the given dofs by those of the identity (Dirichlet).
  void apply_dirichlet(const std::vector<int>& fixed_dofs);

  const SparseMatrix& matrix() const { return H_; }
  SparseMatrix& matrix() { return H_; }

 private:
  // The pattern is made of dense dim x dim vertex blocks: block (w, v) sits in the columns of
  // vertex v at rows w * dim.., at value index block_start_[b] + j * column_length_ + i for
  // entry (i, j), where column_length_ is that of v's columns. Blocks are numbered column
  // vertex by column vertex, rows ascending.
  struct Plan {
    int n_local = 0;  ///< entries per stencil
    int m = 0;        ///< rows (and columns) of a stencil's local matrix
    /// Parallel gather, per block: the local blocks that land on it (CSR over blocks), each as
    /// the index of its (0, 0) entry (stencil * n_local + row * m + column), stencils ascending.
    std::vector<int> block_begin;
    std::vector<int> block_sources;
    std::vector<int> target;  ///< serial scatter (small matrices): each local entry's value index
    /// Chunked gather (with block_begin): chunk q's (block, sources) entries are
    /// chunk_begin[q]..chunk_begin[q + 1], blocks ascending; entry e's block is chunk_block[e]
    /// (negated minus one when no earlier chunk reaches it: its sum starts from zero), its
    /// sources chunk_sources[chunk_source_begin[e]..chunk_source_begin[e + 1]], as in
    /// block_sources but counted from the chunk's first stencil.
    int chunk = 0;  ///< stencils per chunk
    std::vector<int> chunk_begin;
    std::vector<int> chunk_block;
    std::vector<int> chunk_source_begin;
    std::vector<int> chunk_sources;
    int next_chunk = 0;  ///< the chunk add_stencil_chunk expects
  };
  /// Fills plan's chunk_* lists from each stencil's (row vertex, column vertex) blocks.
  static void plan_chunks(Plan& plan, const std::vector<int>& block, int n_stencils, int size,
                          int dim, int n_blocks);

  SparseMatrix H_;
  std::vector<int> diagonal_;      ///< value index of H(i, i)
  std::vector<int> block_start_;   ///< per block: value index of its (0, 0) entry
  std::vector<int> block_column_;  ///< per block: the length of its vertex's columns
  std::vector<Plan> plans_;
  std::vector<double> block_sums_;  ///< chunked assembly: each block's running sum (D x D each)
  int dim_ = 1;
  std::vector<std::pair<int, int>> dynamic_pairs_;
  bool incomplete_ = false;
  // apply_dirichlet's last set of dofs and the value indices it sets to 0 and to 1.
  std::vector<int> dirichlet_dofs_;
  std::vector<int> dirichlet_zeros_;
  std::vector<int> dirichlet_ones_;
};

}  // namespace softgrad
