/// @file exact_intersections.hpp
/// Exact intersection predicates for tests ("no intersecting triangles at any step"): orientation
/// signs filtered in double (Shewchuk's stage-A error bounds) and decided with GMP rationals
/// (mpq_class, every double converts exactly) when the filter cannot tell; every predicate below
/// is exact, degenerate and coplanar configurations included. Link gmpxx and gmp.
#pragma once

#include <Eigen/Core>
#include <array>
#include <vector>

namespace softgrad::test {

/// Exact sign (+1, 0, -1) of det(b - a, c - a, d - a): +1 when d lies on the side of the plane
/// (a, b, c) that (b - a) x (c - a) points to.
int orient3d_exact(const double* a, const double* b, const double* c, const double* d);
/// Exact sign of (b - a) x (c - a) in 2D: +1 when (a, b, c) turn counterclockwise.
int orient2d_exact(const double* a, const double* b, const double* c);

/// Whether the closed segments (a0, a1) and (b0, b1) share a point, 2D (a segment may be a point).
bool segments_intersect_2d(const double* a0, const double* a1, const double* b0, const double* b1);
/// The same in 3D.
bool segments_intersect_3d(const double* a0, const double* a1, const double* b0, const double* b1);
/// Whether the closed segment (p, q) and the closed triangle (a, b, c) share a point, 3D (either
/// may be degenerate).
bool segment_triangle_intersect(const double* p, const double* q, const double* a, const double* b,
                                const double* c);
/// Whether two closed triangles share a point, 3D, coplanar and degenerate triangles included.
/// Triangles with a common mesh vertex touch there: use triangles_intersect_sharing_vertex.
bool triangles_intersect(const double* a0, const double* a1, const double* a2, const double* b0,
                         const double* b1, const double* b2);
/// Triangles (s, a1, a2) and (s, b1, b2) with the common vertex s: whether they share a point
/// other than s.
bool triangles_intersect_sharing_vertex(const double* s, const double* a1, const double* a2,
                                        const double* b1, const double* b2);

/// Exact squared distances (the double nearest below the exact rational): the minimum of the
/// quadratic over the primitives' parameters, inside or on a side.
double point_segment_distance_sq_exact(const double* p, const double* a, const double* b, int dim);
double point_triangle_distance_sq_exact(const double* p, const double* a, const double* b,
                                        const double* c);
double segment_segment_distance_sq_exact(const double* a0, const double* a1, const double* b0,
                                         const double* b1);

/// The number of pairs of triangles (3 vertex indices each into x, 3 coordinates per vertex) that
/// intersect: pairs with a common edge (2 common indices) are skipped, pairs with one common
/// index count when they share a point other than that vertex, the others when they share any
/// point. Candidates by an AABB sort-and-sweep on x, then the exact test.
/// @throws std::invalid_argument for an index outside x.
int count_intersecting_triangles(const Eigen::VectorXd& x,
                                 const std::vector<std::array<int, 3>>& triangles);
/// 2D: the number of pairs of edges (2 vertex indices each into x, 2 coordinates per vertex) that
/// intersect; edges with one common index count when they overlap beyond it (collinear, the same
/// direction), edges with both indices in common are skipped.
int count_intersecting_edges_2d(const Eigen::VectorXd& x,
                                const std::vector<std::array<int, 2>>& edges);

}  // namespace softgrad::test
