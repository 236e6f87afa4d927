/// @file mesh_friction_energy.hpp
/// One primitive pair's lagged friction (softgrad/mesh_contact.hpp), generic in the scalar types
/// so that the element AD differentiates it, the start-of-step positions included:
///
///   D = mu lambda f0(|u|),   u = (I - n n^T) sum_i w_i (x_i - x_i^n),
///
/// with w the weights of the closest points' difference (sum_i w_i x_i^n = point on the first
/// primitive - point on the second), n its direction, and lambda = -kappa b'(d^n) the pair's
/// normal force, all from the start of the step x^n. f0 is IPC's smoothed |u|.
#pragma once

#include <cmath>

#include "mesh_contact_energy.hpp"

namespace softgrad::detail {

/// The closest points' weights w (stencil size entries) at positions y for the pair's type.
template <class P>
void closest_point_weights(const PairGeometry& g, const P* y, P* w) {
  using namespace collision;
  const int dim = g.kind == PairGeometry::Kind::PointEdge ? 2 : 3;
  // The parameter of the point of segment (a, b) closest to p.
  const auto along = [&](const P* p, const P* a, const P* b) {
    P num = P(0.0), den = P(0.0);
    for (int i = 0; i < dim; ++i) {
      num = num + (p[i] - a[i]) * (b[i] - a[i]);
      den = den + (b[i] - a[i]) * (b[i] - a[i]);
    }
    return P(num / den);
  };
  const auto set = [&](P w0, P w1, P w2, P w3) {
    w[0] = w0;
    w[1] = w1;
    w[2] = w2;
    if (dim == 3) w[3] = w3;
  };
  const P one = P(1.0), zero = P(0.0);
  const P *a = y, *b = y + dim, *c = y + 2 * dim, *e = dim == 3 ? y + 9 : y;  // e: 3D only
  if (g.kind == PairGeometry::Kind::PointEdge) {
    switch (static_cast<PointEdgeType>(g.type)) {
      case PointEdgeType::P_E0:
        return set(one, -one, zero, zero);
      case PointEdgeType::P_E1:
        return set(one, zero, -one, zero);
      case PointEdgeType::P_E: {
        const P s = along(a, b, c);
        return set(one, s - one, -s, zero);
      }
    }
  }
  if (g.kind == PairGeometry::Kind::PointTriangle) {
    switch (static_cast<PointTriangleType>(g.type)) {
      case PointTriangleType::P_T0:
        return set(one, -one, zero, zero);
      case PointTriangleType::P_T1:
        return set(one, zero, -one, zero);
      case PointTriangleType::P_T2:
        return set(one, zero, zero, -one);
      case PointTriangleType::P_E0: {
        const P s = along(a, b, c);
        return set(one, s - one, -s, zero);
      }
      case PointTriangleType::P_E1: {
        const P s = along(a, c, e);
        return set(one, zero, s - one, -s);
      }
      case PointTriangleType::P_E2: {
        const P s = along(a, e, b);
        return set(one, -s, zero, s - one);
      }
      case PointTriangleType::P_T: {
        // Barycentric coordinates of the projection: the 2x2 normal equations.
        P e1e1 = zero, e1e2 = zero, e2e2 = zero, e1p = zero, e2p = zero;
        for (int i = 0; i < 3; ++i) {
          const P e1 = c[i] - b[i], e2 = e[i] - b[i], p = a[i] - b[i];
          e1e1 = e1e1 + e1 * e1;
          e1e2 = e1e2 + e1 * e2;
          e2e2 = e2e2 + e2 * e2;
          e1p = e1p + e1 * p;
          e2p = e2p + e2 * p;
        }
        const P det = e1e1 * e2e2 - e1e2 * e1e2;
        const P b1 = (e2e2 * e1p - e1e2 * e2p) / det;
        const P b2 = (e1e1 * e2p - e1e2 * e1p) / det;
        return set(one, b1 + b2 - one, -b1, -b2);
      }
    }
  }
  switch (static_cast<EdgeEdgeType>(g.type)) {
    case EdgeEdgeType::EA0_EB0:
      return set(one, zero, -one, zero);
    case EdgeEdgeType::EA0_EB1:
      return set(one, zero, zero, -one);
    case EdgeEdgeType::EA1_EB0:
      return set(zero, one, -one, zero);
    case EdgeEdgeType::EA1_EB1:
      return set(zero, one, zero, -one);
    case EdgeEdgeType::EA_EB0: {
      const P s = along(c, a, b);
      return set(one - s, s, -one, zero);
    }
    case EdgeEdgeType::EA_EB1: {
      const P s = along(e, a, b);
      return set(one - s, s, zero, -one);
    }
    case EdgeEdgeType::EA0_EB: {
      const P t = along(a, c, e);
      return set(one, zero, t - one, -t);
    }
    case EdgeEdgeType::EA1_EB: {
      const P t = along(b, c, e);
      return set(zero, one, t - one, -t);
    }
    case EdgeEdgeType::EA_EB:
      break;
  }
  // Closest points of two lines: the 2x2 normal equations in (s, t).
  P aa = zero, ab = zero, bb = zero, ar = zero, br = zero;
  for (int i = 0; i < 3; ++i) {
    const P u = b[i] - a[i], v = e[i] - c[i], r = a[i] - c[i];
    aa = aa + u * u;
    ab = ab + u * v;
    bb = bb + v * v;
    ar = ar + u * r;
    br = br + v * r;
  }
  const P det = aa * bb - ab * ab;
  const P s = (ab * br - bb * ar) / det;
  const P t = (aa * br - ab * ar) / det;
  set(one - s, s, t - one, -t);
}

/// mu lambda f0(|u|): q = (kappa, mu, x^n (N values)).
template <int N>
struct PairFriction {
  PairGeometry geometry;
  double dhat;
  double eps;  ///< friction smoothing eps_v dt [m]

  template <class T, class P>
  T operator()(const T* x, const P* q) const {
    using std::sqrt;
    constexpr int dim = N == 12 ? 3 : 2, size = N / dim;
    const P* xn = q + 2;
    const P dn = sqrt(pair_distance_sq<dim>(geometry, xn));
    const P lambda = -(q[0] * barrier_derivative(dn, dhat));
    P w[size], n[dim];
    closest_point_weights(geometry, xn, w);
    for (int i = 0; i < dim; ++i) {
      n[i] = P(0.0);
      for (int k = 0; k < size; ++k) n[i] = n[i] + w[k] * xn[k * dim + i];
    }
    P norm = P(0.0);
    for (int i = 0; i < dim; ++i) norm = norm + n[i] * n[i];
    norm = sqrt(norm);
    for (int i = 0; i < dim; ++i) n[i] = n[i] / norm;
    T r[dim], rn = T(0.0);
    for (int i = 0; i < dim; ++i) {
      r[i] = T(0.0);
      for (int k = 0; k < size; ++k) r[i] = r[i] + w[k] * (x[k * dim + i] - xn[k * dim + i]);
      rn = rn + r[i] * n[i];
    }
    T s = T(0.0);
    for (int i = 0; i < dim; ++i) {
      const T t = r[i] - rn * n[i];
      s = s + t * t;
    }
    return q[1] * lambda * smoothed_norm(s, eps);
  }
};

}  // namespace softgrad::detail
