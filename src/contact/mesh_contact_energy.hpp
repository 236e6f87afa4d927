/// @file mesh_contact_energy.hpp
/// One primitive pair's barrier energy (softgrad/mesh_contact.hpp), generic in the scalar types
/// so that the element AD differentiates it: kappa m(x) b(d(x)), with d the distance of the
/// pair's closest features (their type fixed at the point of evaluation: the distance is C1
/// across type changes and the barrier's derivatives agree there).
#pragma once

#include <cmath>

#include "contact_energy.hpp"
#include "primitive_distance.hpp"

namespace softgrad::detail {

/// A pair's primitives: their kind and closest-feature type, and the edge-edge mollifier's
/// threshold.
struct PairGeometry {
  enum class Kind : int { PointTriangle, EdgeEdge, PointEdge } kind;
  int type = 0;        ///< collision::PointTriangleType, EdgeEdgeType or PointEdgeType
  double eps_x = 0.0;  ///< edge-edge: the mollifier's threshold on |ea x eb|^2
};

/// The squared distance of a pair's stencil x (4 points in 3D, 3 in 2D) for its type.
template <int dim, class T>
T pair_distance_sq(const PairGeometry& g, const T* x) {
  using namespace collision;
  if constexpr (dim == 3) {
    if (g.kind == PairGeometry::Kind::PointTriangle)
      return point_triangle_sq(x, x + 3, x + 6, x + 9, static_cast<PointTriangleType>(g.type));
    return edge_edge_sq(x, x + 3, x + 6, x + 9, static_cast<EdgeEdgeType>(g.type));
  } else {
    return point_edge_sq(x, x + 2, x + 4, 2, static_cast<PointEdgeType>(g.type));
  }
}

/// kappa m b(d): q[0] = kappa.
template <int dim>
struct PairBarrier {
  PairGeometry geometry;
  double dhat;
  template <class T, class P>
  T operator()(const T* x, const P* q) const {
    using std::sqrt;
    const T d = sqrt(pair_distance_sq<dim>(geometry, x));
    T e = q[0] * barrier(d, dhat);
    if constexpr (dim == 3)
      if (geometry.kind == PairGeometry::Kind::EdgeEdge)
        e = e * collision::edge_edge_mollifier(collision::edge_cross_sq(x, x + 3, x + 6, x + 9),
                                               geometry.eps_x);
    return e;
  }
};

}  // namespace softgrad::detail
