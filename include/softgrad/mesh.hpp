/// @file mesh.hpp
/// A simplicial mesh: triangles in 2D, linear tetrahedra in 3D.
#pragma once

#include <Eigen/Core>
#include <string>

namespace softgrad {

/// Vertex coordinates, one row per vertex (n_verts x dim), row-major so that the flat array is
/// the degree-of-freedom vector [x0 y0 (z0) x1 y1 (z1) ...].
using VertexMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
/// Element connectivity, one row per element (n_elems x (dim + 1)), 0-based vertex indices.
using ElementMatrix = Eigen::Matrix<int, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// A mesh of simplices. `dim` is 2 (triangles) or 3 (tetrahedra).
struct Mesh {
  int dim = 3;
  VertexMatrix X;       ///< rest positions [m], n_verts x dim
  ElementMatrix elems;  ///< n_elems x (dim + 1), positively oriented
  std::string source;   ///< where it came from (file path or generator), for error messages

  int n_verts() const { return static_cast<int>(X.rows()); }
  int n_elems() const { return static_cast<int>(elems.rows()); }
  int n_dofs() const { return n_verts() * dim; }
};

/// Signed rest measure (area in 2D, volume in 3D) of element `e`; positive when oriented.
double signed_measure(const Mesh& mesh, int e);

/// Checks that the mesh is usable for simulation: dim 2 or 3, arity dim+1, indices in range,
/// finite coordinates, every element with positive measure above a relative tolerance.
/// @throws InputError naming the mesh source and the offending element/vertex index and value.
/// Unreferenced vertices only produce a warning through softgrad::log().
void validate_mesh(const Mesh& mesh);

}  // namespace softgrad
