// HessianAssembler: chunked assembly (element Hessians summed a chunk at a time, while in cache)
// against the whole set's gather, bit for bit.
#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "softgrad/detail/assembly.hpp"
#include "softgrad/errors.hpp"

namespace softgrad {
namespace {

// Random stencils of 4 vertices over a vertex range that moves along with the stencil index
// (as a mesh's elements do), with random local matrices. Large enough for the gather path.
struct Stencils {
  int n_verts;
  int dim;
  int n_stencils;
  std::vector<int> verts;
  std::vector<double> local;
};

Stencils random_stencils(int n_verts, int dim, int n_stencils, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> offset(0, 40);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  Stencils s{n_verts, dim, n_stencils, {}, {}};
  for (int k = 0; k < n_stencils; ++k) {
    const int base = static_cast<int>(static_cast<long>(k) * (n_verts - 41) / n_stencils);
    for (int a = 0; a < 4; ++a) s.verts.push_back(base + offset(rng));
  }
  const int m = 4 * dim;
  s.local.resize(static_cast<size_t>(n_stencils) * m * m);
  for (double& v : s.local) v = value(rng);
  return s;
}

TEST_CASE("assembly: chunked assembly equals the whole set's, bit for bit") {
  for (const int dim : {2, 3}) {
    CAPTURE(dim);
    const Stencils s = random_stencils(6000, dim, 20000, 7u + dim);
    SparsityBuilder builder(s.n_verts, s.dim);
    const int id = builder.add_stencils(s.verts.data(), s.n_stencils, 4);
    HessianAssembler whole(builder), chunked(builder);
    const int chunk = chunked.chunk_stencils(id);
    REQUIRE(chunk > 0);
    REQUIRE(chunk < s.n_stencils / 4);  // several chunks, the last one short
    REQUIRE(s.n_stencils % chunk != 0);
    const size_t n_local = static_cast<size_t>(4 * dim) * (4 * dim);
    for (int round = 0; round < 2; ++round) {  // the second reuses the running sums
      whole.set_zero();
      chunked.set_zero();
      whole.add_scaled_identity(0.5);
      chunked.add_scaled_identity(0.5);
      whole.add_stencils(id, s.local.data(), 1.5);
      for (int first = 0, q = 0; first < s.n_stencils; first += chunk, ++q)
        chunked.add_stencil_chunk(id, q, s.local.data() + first * n_local);
      chunked.finish_stencil_chunks(id, 1.5);
      const SparseMatrix& A = whole.matrix();
      const SparseMatrix& B = chunked.matrix();
      REQUIRE(A.nonZeros() == B.nonZeros());
      REQUIRE(A.nonZeros() >= 65536);  // the gather path, not the small-matrix scatter
      bool equal = true;
      for (Eigen::Index k = 0; k < A.nonZeros(); ++k)
        equal = equal && A.valuePtr()[k] == B.valuePtr()[k];
      CHECK(equal);
      CHECK(A.coeff(0, 0) != 0.0);
    }
  }
}

TEST_CASE("assembly: chunks out of order are refused") {
  const Stencils s = random_stencils(6000, 3, 20000, 11u);
  SparsityBuilder builder(s.n_verts, s.dim);
  const int id = builder.add_stencils(s.verts.data(), s.n_stencils, 4);
  HessianAssembler assembler(builder);
  assembler.add_stencil_chunk(id, 0, s.local.data());
  CHECK_THROWS_WITH_AS(assembler.add_stencil_chunk(id, 2, s.local.data()),
                       doctest::Contains("out of order (expected 1"), InternalError);
  CHECK_THROWS_WITH_AS(assembler.finish_stencil_chunks(id), doctest::Contains("finished after 1"),
                       InternalError);
}

}  // namespace
}  // namespace softgrad
