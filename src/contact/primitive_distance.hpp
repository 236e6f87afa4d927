/// @file primitive_distance.hpp
/// Squared distances between the primitives of IPC mesh contact (Li et al. 2020, "Incremental
/// Potential Contact"): point-triangle, edge-edge and point-edge (2D or 3D). A classification
/// in double picks the closest pair of features; the typed distance of that pair is a smooth
/// rational function of the vertices, generic in the scalar so that the element AD
/// differentiates it. The closest-feature distance is C1 across the types' boundaries, so the
/// barrier needs only the active piece.
#pragma once

#include <algorithm>

#include "softgrad/detail/ad/tape.hpp"

namespace softgrad::collision {

/// The closest features: vertices T0..T2, edges E0 = (t0, t1), E1 = (t1, t2), E2 = (t2, t0), or
/// the triangle's interior T.
enum class PointTriangleType { P_T0, P_T1, P_T2, P_E0, P_E1, P_E2, P_T };
/// EA0 / EA1: an end point of edge A, EA: its interior (likewise for B).
enum class EdgeEdgeType {
  EA0_EB0,
  EA0_EB1,
  EA1_EB0,
  EA1_EB1,
  EA_EB0,
  EA_EB1,
  EA0_EB,
  EA1_EB,
  EA_EB
};
enum class PointEdgeType { P_E0, P_E1, P_E };

namespace detail {

/// Below this |u x v|^2 / (|u|^2 |v|^2) two directions count as parallel (the IPC Toolkit's
/// 1e-20): the interior types are left out, and the boundary types attain the same minimum.
inline constexpr double kParallelThreshold = 1e-20;

template <class T>
void sub(const T* a, const T* b, T* out, int dim) {
  for (int i = 0; i < dim; ++i) out[i] = a[i] - b[i];
}
template <class T>
T dot(const T* a, const T* b, int dim) {
  T s = a[0] * b[0];  // no leading zero: one tape node less
  for (int i = 1; i < dim; ++i) s = s + a[i] * b[i];
  return s;
}
template <class T>
void cross(const T* a, const T* b, T* out) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}
template <class T>
void values(const T* a, double* out, int dim) {
  for (int i = 0; i < dim; ++i) out[i] = ad::value_of(a[i]);
}
inline double clamp01(double s) { return std::clamp(s, 0.0, 1.0); }

/// s of the projection e0 + s (e1 - e0) of p on the line (0 for a point edge).
inline double line_parameter(const double* p, const double* e0, const double* e1, int dim) {
  double e[3] = {}, r[3] = {};  // dim may be 2
  sub(e1, e0, e, dim);
  sub(p, e0, r, dim);
  const double ee = dot(e, e, dim);
  return ee > 0.0 ? dot(r, e, dim) / ee : 0.0;
}

/// Barycentric (a, b) of p's foot t0 + a (t1 - t0) + b (t2 - t0) on the triangle's plane. False
/// for a (nearly) degenerate triangle. The cross-product form projects along the computed normal,
/// so a and b agree with the plane distance that uses it.
inline bool plane_coordinates(const double* p, const double* t0, const double* t1, const double* t2,
                              double& a, double& b) {
  double e1[3], e2[3], r[3], n[3], c[3];
  sub(t1, t0, e1, 3);
  sub(t2, t0, e2, 3);
  sub(p, t0, r, 3);
  cross(e1, e2, n);
  const double nn = dot(n, n, 3);
  a = b = 0.0;
  if (!(nn > kParallelThreshold * dot(e1, e1, 3) * dot(e2, e2, 3))) return false;
  cross(r, e2, c);
  a = dot(c, n, 3) / nn;
  cross(e1, r, c);
  b = dot(c, n, 3) / nn;
  return true;
}

/// Parameters (s, t) of the closest points ea0 + s (ea1 - ea0), eb0 + t (eb1 - eb0) of the two
/// lines. False for (nearly) parallel lines. s and t use the same computed normal: for nearly
/// parallel lines their errors move both points along the lines together, where the distance
/// hardly changes.
inline bool line_line_parameters(const double* ea0, const double* ea1, const double* eb0,
                                 const double* eb1, double& s, double& t) {
  double u[3], v[3], r[3], n[3], c[3];
  sub(ea1, ea0, u, 3);
  sub(eb1, eb0, v, 3);
  sub(eb0, ea0, r, 3);
  cross(u, v, n);
  const double nn = dot(n, n, 3);
  s = t = 0.0;
  if (!(nn > kParallelThreshold * dot(u, u, 3) * dot(v, v, 3))) return false;
  cross(r, v, c);
  s = dot(c, n, 3) / nn;
  cross(r, u, c);
  t = dot(c, n, 3) / nn;
  return true;
}

/// Keeps the candidate distance d of type `type` if it is below `best`.
template <class Type>
void keep_nearer(double d, Type type, double& best, Type& best_type) {
  if (d < best) {
    best = d;
    best_type = type;
  }
}

}  // namespace detail

// ---- Typed squared distances (generic scalar) ----

template <class T>
T point_point_sq(const T* a, const T* b, int dim) {
  T d[3] = {};  // dim may be 2
  detail::sub(a, b, d, dim);
  return detail::dot(d, d, dim);
}

/// Squared distance of p to the line through e0, e1: |(p - e0) x e|^2 / |e|^2, e = e1 - e0.
template <class T>
T point_line_sq(const T* p, const T* e0, const T* e1, int dim) {
  T e[3] = {}, r[3] = {};  // dim may be 2
  detail::sub(e1, e0, e, dim);
  detail::sub(p, e0, r, dim);
  if (dim == 2) {
    const T c = r[0] * e[1] - r[1] * e[0];
    return c * c / detail::dot(e, e, 2);
  }
  T c[3];
  detail::cross(r, e, c);
  return detail::dot(c, c, 3) / detail::dot(e, e, 3);
}

/// Squared distance of p to the triangle's plane: ((p - q) . n)^2 / |n|^2, n = e1 x e2. q is the
/// foot's barycentric point clamped to [0,1]^2 in double (constants for the AD), not t0: the
/// same function, since n is normal to e1 and e2 for every x, but n's rounding error now
/// multiplies the small |p - q| instead of |p - t0|.
template <class T>
T point_plane_sq(const T* p, const T* t0, const T* t1, const T* t2) {
  double pv[3], t0v[3], t1v[3], t2v[3], a, b;
  detail::values(p, pv, 3);
  detail::values(t0, t0v, 3);
  detail::values(t1, t1v, 3);
  detail::values(t2, t2v, 3);
  detail::plane_coordinates(pv, t0v, t1v, t2v, a, b);
  a = detail::clamp01(a);
  b = detail::clamp01(b);
  T e1[3], e2[3], n[3], w[3];
  detail::sub(t1, t0, e1, 3);
  detail::sub(t2, t0, e2, 3);
  detail::cross(e1, e2, n);
  for (int i = 0; i < 3; ++i) w[i] = p[i] - t0[i] - a * e1[i] - b * e2[i];
  const T wn = detail::dot(w, n, 3);
  return wn * wn / detail::dot(n, n, 3);
}

/// Squared distance of the lines through ea0, ea1 and eb0, eb1: ((pa - pb) . n)^2 / |n|^2 with
/// n = (ea1 - ea0) x (eb1 - eb0), measured between the points pa, pb at the closest parameters
/// clamped to [0,1] (constants for the AD) for the reason given at point_plane_sq; this matters
/// for nearly parallel edges, whose normal is known only to eps / sin(angle).
template <class T>
T line_line_sq(const T* ea0, const T* ea1, const T* eb0, const T* eb1) {
  double a0[3], a1[3], b0[3], b1[3], s, t;
  detail::values(ea0, a0, 3);
  detail::values(ea1, a1, 3);
  detail::values(eb0, b0, 3);
  detail::values(eb1, b1, 3);
  detail::line_line_parameters(a0, a1, b0, b1, s, t);
  s = detail::clamp01(s);
  t = detail::clamp01(t);
  T u[3], v[3], n[3], w[3];
  detail::sub(ea1, ea0, u, 3);
  detail::sub(eb1, eb0, v, 3);
  detail::cross(u, v, n);
  for (int i = 0; i < 3; ++i) w[i] = ea0[i] - eb0[i] + s * u[i] - t * v[i];
  const T wn = detail::dot(w, n, 3);
  return wn * wn / detail::dot(n, n, 3);
}

template <class T>
T point_triangle_sq(const T* p, const T* t0, const T* t1, const T* t2, PointTriangleType type) {
  switch (type) {
    case PointTriangleType::P_T0:
      return point_point_sq(p, t0, 3);
    case PointTriangleType::P_T1:
      return point_point_sq(p, t1, 3);
    case PointTriangleType::P_T2:
      return point_point_sq(p, t2, 3);
    case PointTriangleType::P_E0:
      return point_line_sq(p, t0, t1, 3);
    case PointTriangleType::P_E1:
      return point_line_sq(p, t1, t2, 3);
    case PointTriangleType::P_E2:
      return point_line_sq(p, t2, t0, 3);
    case PointTriangleType::P_T:
      break;
  }
  return point_plane_sq(p, t0, t1, t2);
}

template <class T>
T edge_edge_sq(const T* ea0, const T* ea1, const T* eb0, const T* eb1, EdgeEdgeType type) {
  switch (type) {
    case EdgeEdgeType::EA0_EB0:
      return point_point_sq(ea0, eb0, 3);
    case EdgeEdgeType::EA0_EB1:
      return point_point_sq(ea0, eb1, 3);
    case EdgeEdgeType::EA1_EB0:
      return point_point_sq(ea1, eb0, 3);
    case EdgeEdgeType::EA1_EB1:
      return point_point_sq(ea1, eb1, 3);
    case EdgeEdgeType::EA_EB0:
      return point_line_sq(eb0, ea0, ea1, 3);
    case EdgeEdgeType::EA_EB1:
      return point_line_sq(eb1, ea0, ea1, 3);
    case EdgeEdgeType::EA0_EB:
      return point_line_sq(ea0, eb0, eb1, 3);
    case EdgeEdgeType::EA1_EB:
      return point_line_sq(ea1, eb0, eb1, 3);
    case EdgeEdgeType::EA_EB:
      break;
  }
  return line_line_sq(ea0, ea1, eb0, eb1);
}

template <class T>
T point_edge_sq(const T* p, const T* e0, const T* e1, int dim, PointEdgeType type) {
  switch (type) {
    case PointEdgeType::P_E0:
      return point_point_sq(p, e0, dim);
    case PointEdgeType::P_E1:
      return point_point_sq(p, e1, dim);
    case PointEdgeType::P_E:
      break;
  }
  return point_line_sq(p, e0, e1, dim);
}

// ---- Classification (double) ----
// Every feature pair whose closest points lie in the features' relative interiors (or are
// vertices) is a candidate, and the nearest candidate wins. This is exact by convexity: the
// minimiser lies in the relative interior of one such pair. It needs no special cases for
// degenerate triangles, zero-length or parallel edges (those lose their interior candidates),
// and a tie at a region boundary may go either way: the distance is C1 there.

inline PointEdgeType point_edge_type(const double* p, const double* e0, const double* e1, int dim) {
  const double s = detail::line_parameter(p, e0, e1, dim);
  if (s <= 0.0) return PointEdgeType::P_E0;
  if (s >= 1.0) return PointEdgeType::P_E1;
  return PointEdgeType::P_E;
}

inline PointTriangleType point_triangle_type(const double* p, const double* t0, const double* t1,
                                             const double* t2) {
  using Type = PointTriangleType;
  const double* t[3] = {t0, t1, t2};
  Type best_type = Type::P_T0;
  double best = point_point_sq(p, t0, 3);
  detail::keep_nearer(point_point_sq(p, t1, 3), Type::P_T1, best, best_type);
  detail::keep_nearer(point_point_sq(p, t2, 3), Type::P_T2, best, best_type);
  const Type edge_types[3] = {Type::P_E0, Type::P_E1, Type::P_E2};
  for (int k = 0; k < 3; ++k) {
    const double s = detail::line_parameter(p, t[k], t[(k + 1) % 3], 3);
    if (s > 0.0 && s < 1.0)
      detail::keep_nearer(point_line_sq(p, t[k], t[(k + 1) % 3], 3), edge_types[k], best,
                          best_type);
  }
  double a, b;
  if (detail::plane_coordinates(p, t0, t1, t2, a, b) && a > 0.0 && b > 0.0 && a + b < 1.0)
    detail::keep_nearer(point_plane_sq(p, t0, t1, t2), Type::P_T, best, best_type);
  return best_type;
}

inline EdgeEdgeType edge_edge_type(const double* ea0, const double* ea1, const double* eb0,
                                   const double* eb1) {
  using Type = EdgeEdgeType;
  Type best_type = Type::EA0_EB0;
  double best = point_point_sq(ea0, eb0, 3);
  detail::keep_nearer(point_point_sq(ea0, eb1, 3), Type::EA0_EB1, best, best_type);
  detail::keep_nearer(point_point_sq(ea1, eb0, 3), Type::EA1_EB0, best, best_type);
  detail::keep_nearer(point_point_sq(ea1, eb1, 3), Type::EA1_EB1, best, best_type);
  // An end point against the other edge's interior.
  const auto point_edge = [&](const double* p, const double* e0, const double* e1, Type type) {
    const double s = detail::line_parameter(p, e0, e1, 3);
    if (s > 0.0 && s < 1.0) detail::keep_nearer(point_line_sq(p, e0, e1, 3), type, best, best_type);
  };
  point_edge(eb0, ea0, ea1, Type::EA_EB0);
  point_edge(eb1, ea0, ea1, Type::EA_EB1);
  point_edge(ea0, eb0, eb1, Type::EA0_EB);
  point_edge(ea1, eb0, eb1, Type::EA1_EB);
  double s, t;
  if (detail::line_line_parameters(ea0, ea1, eb0, eb1, s, t) && s > 0.0 && s < 1.0 && t > 0.0 &&
      t < 1.0)
    detail::keep_nearer(line_line_sq(ea0, ea1, eb0, eb1), Type::EA_EB, best, best_type);
  return best_type;
}

// ---- Classified distances (double) ----

inline double point_triangle_sq(const double* p, const double* t0, const double* t1,
                                const double* t2) {
  return point_triangle_sq(p, t0, t1, t2, point_triangle_type(p, t0, t1, t2));
}
inline double edge_edge_sq(const double* ea0, const double* ea1, const double* eb0,
                           const double* eb1) {
  return edge_edge_sq(ea0, ea1, eb0, eb1, edge_edge_type(ea0, ea1, eb0, eb1));
}
inline double point_edge_sq(const double* p, const double* e0, const double* e1, int dim) {
  return point_edge_sq(p, e0, e1, dim, point_edge_type(p, e0, e1, dim));
}

// ---- IPC's edge-edge mollifier ----
// The edge-edge distance's derivatives blow up as the edges turn parallel (n -> 0); IPC
// multiplies the barrier by m(x), x = |ea x eb|^2, which vanishes with x smoothly (C1 at eps_x).

/// x = |(ea1 - ea0) x (eb1 - eb0)|^2.
template <class T>
T edge_cross_sq(const T* ea0, const T* ea1, const T* eb0, const T* eb1) {
  T u[3], v[3], n[3];
  detail::sub(ea1, ea0, u, 3);
  detail::sub(eb1, eb0, v, 3);
  detail::cross(u, v, n);
  return detail::dot(n, n, 3);
}

/// m(x) = (2 - x / eps_x) x / eps_x below eps_x, 1 above.
template <class T>
T edge_edge_mollifier(const T& x, double eps_x) {
  if (ad::value_of(x) >= eps_x) return T(1.0);
  const T y = x / eps_x;
  return (2.0 - y) * y;
}

/// eps_x = 1e-3 |ea|^2 |eb|^2 at rest.
inline double edge_edge_mollifier_threshold(const double* ea0_rest, const double* ea1_rest,
                                            const double* eb0_rest, const double* eb1_rest) {
  return 1e-3 * point_point_sq(ea0_rest, ea1_rest, 3) * point_point_sq(eb0_rest, eb1_rest, 3);
}

}  // namespace softgrad::collision
