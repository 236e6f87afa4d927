/// @file mesh_generators.hpp
/// Structured meshes built in code: boxes of tetrahedra and rectangles of triangles, for tests,
/// examples and scenes. Every element is positively oriented and the result passes validate_mesh.
#pragma once

#include <Eigen/Core>

#include "softgrad/mesh.hpp"

namespace softgrad {

/// A box [origin, origin + size] [m] of nx * ny * nz cubes (cuboids), each split into 6
/// tetrahedra along its main diagonal (Kuhn/Freudenthal subdivision). Neighbouring cubes split
/// their shared face the same way, so the mesh is conforming.
/// Vertex (i, j, k) has index i + (nx + 1) * (j + (ny + 1) * k) and position
/// origin + (i / nx, j / ny, k / nz) .* size; there are (nx+1)(ny+1)(nz+1) vertices and
/// 6 nx ny nz tetrahedra, each of volume size.prod() / (6 nx ny nz).
/// @throws InputError if a resolution is < 1, the mesh would exceed the int index range, a size
/// component is not finite and positive, or the origin is not finite.
Mesh box_tet_mesh(int nx, int ny, int nz, const Eigen::Vector3d& size,
                  const Eigen::Vector3d& origin = Eigen::Vector3d::Zero());

/// An ellipsoid (a ball when size is a cube) inscribed in the box [origin, origin + size] [m]:
/// box_tet_mesh(n, n, n) of a cube, each vertex p (from the centre) moved radially to
/// p |p|_inf / |p|_2, so that the cube's faces land on the sphere. (n+1)^3 vertices, 6 n^3
/// tetrahedra, all positively oriented.
/// @throws InputError on the conditions of box_tet_mesh.
Mesh ball_tet_mesh(int n, const Eigen::Vector3d& size,
                   const Eigen::Vector3d& origin = Eigen::Vector3d::Zero());

/// A rectangle [origin, origin + size] [m] of nx * ny cells, each split into 2 triangles. The
/// diagonal alternates in a checkerboard pattern, so the mesh has no preferred direction.
/// Vertex (i, j) has index i + (nx + 1) * j; there are (nx+1)(ny+1) vertices and 2 nx ny
/// triangles, all counter-clockwise (positive area).
/// @throws InputError on the same conditions as box_tet_mesh.
Mesh rectangle_tri_mesh(int nx, int ny, const Eigen::Vector2d& size,
                        const Eigen::Vector2d& origin = Eigen::Vector2d::Zero());

/// An ellipse inscribed in the box [origin, origin + size] [m] (a disk when size is square):
/// `rings` concentric rings of vertices around the centre, ring k with `sectors` k vertices
/// (the first at angle 0), zipped into 2D triangles; 1 + sectors rings (rings + 1) / 2 vertices
/// and sectors rings^2 triangles, all counter-clockwise. The boundary is a polygon with
/// sectors rings corners.
/// @throws InputError if rings < 1, sectors < 3, or on the conditions of box_tet_mesh.
Mesh disk_tri_mesh(int rings, int sectors, const Eigen::Vector2d& size,
                   const Eigen::Vector2d& origin = Eigen::Vector2d::Zero());

}  // namespace softgrad
