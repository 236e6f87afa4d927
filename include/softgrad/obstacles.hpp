/// @file obstacles.hpp
/// Analytic obstacles for contact: a half-space (the ground), a sphere, an axis-aligned box and
/// a height-field terrain. Each gives a signed distance d(x) (positive outside, in the free
/// space) and its unit normal, templated on the scalar so that the contact energies built on
/// them are differentiated by the element AD, and a time of impact along a straight motion for
/// the line-search filter. In 2D the first two coordinates are used (y up).
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "softgrad/ad/tape.hpp"

namespace softgrad {

struct Obstacle {
  enum class Shape { HalfSpace, Sphere, Box, HeightField };
  Shape shape = Shape::HalfSpace;
  std::string name;
  Eigen::Vector3d point = Eigen::Vector3d::Zero();    ///< half-space: a point on the plane
  Eigen::Vector3d normal = Eigen::Vector3d::UnitY();  ///< half-space: unit normal into free space
  Eigen::Vector3d center = Eigen::Vector3d::Zero();   ///< sphere, box
  double radius = 1.0;                                ///< sphere
  Eigen::Vector3d half_extents = Eigen::Vector3d::Ones();  ///< box
  /// Height field y = h(x, z) (h(x) in 2D), bilinear on a grid: origin (x0, z0), spacing,
  /// heights row-major [iz * nx + ix]; beyond the grid the edge cells extend.
  double x0 = 0.0, z0 = 0.0, spacing = 1.0;
  int nx = 0, nz = 1;
  std::vector<double> heights;

  /// Signed distance at x (dim coordinates).
  template <class T>
  T distance(const T* x, int dim) const;
  /// Unit outward normal (the gradient of the distance) at x.
  template <class T>
  void unit_normal(const T* x, int dim, T* n) const;
  /// The largest t in [0, 1] such that x + s dx stays outside for s < t (1 if it never
  /// enters): exact for half-spaces, spheres and boxes, bisection for height fields.
  double time_of_impact(const double* x, const double* dx, int dim) const;
};

namespace detail {

template <class T>
T vector_norm(const T* v, int dim) {
  using std::sqrt;
  T s = v[0] * v[0];
  for (int k = 1; k < dim; ++k) s = s + v[k] * v[k];
  return sqrt(s);
}

/// Height and slopes of a height field at (x, z): bilinear in the cell containing the point.
template <class T>
void height_field(const Obstacle& o, const T& x, const T& z, int dim, T& h, T& hx, T& hz) {
  const double fx = (ad::value_of(x) - o.x0) / o.spacing;
  const int ix = std::clamp(static_cast<int>(std::floor(fx)), 0, std::max(o.nx - 2, 0));
  const T u = (x - o.x0) / o.spacing - double(ix);
  if (dim == 2 || o.nz < 2) {
    const double a = o.heights[ix], b = o.heights[ix + 1];
    h = a + (b - a) * u;
    hx = T((b - a) / o.spacing);
    hz = T(0.0);
    return;
  }
  const double fz = (ad::value_of(z) - o.z0) / o.spacing;
  const int iz = std::clamp(static_cast<int>(std::floor(fz)), 0, o.nz - 2);
  const T w = (z - o.z0) / o.spacing - double(iz);
  const double h00 = o.heights[iz * o.nx + ix], h10 = o.heights[iz * o.nx + ix + 1];
  const double h01 = o.heights[(iz + 1) * o.nx + ix], h11 = o.heights[(iz + 1) * o.nx + ix + 1];
  h = h00 * (1.0 - u) * (1.0 - w) + h10 * u * (1.0 - w) + h01 * (1.0 - u) * w + h11 * u * w;
  hx = ((h10 - h00) * (1.0 - w) + (h11 - h01) * w) / o.spacing;
  hz = ((h01 - h00) * (1.0 - u) + (h11 - h10) * u) / o.spacing;
}

}  // namespace detail

template <class T>
T Obstacle::distance(const T* x, int dim) const {
  using std::sqrt;
  switch (shape) {
    case Shape::HalfSpace: {
      T d = (x[0] - point[0]) * normal[0];
      for (int k = 1; k < dim; ++k) d = d + (x[k] - point[k]) * normal[k];
      return d;
    }
    case Shape::Sphere: {
      T r[3] = {T(0.0), T(0.0), T(0.0)};
      for (int k = 0; k < dim; ++k) r[k] = x[k] - center[k];
      return detail::vector_norm(r, dim) - radius;
    }
    case Shape::Box: {
      // q = |x - c| - h; outside: |max(q, 0)|, inside: max_k q_k (negative).
      T q[3] = {T(0.0), T(0.0), T(0.0)};
      int n_out = 0, last_out = 0, k_max = 0;
      for (int k = 0; k < dim; ++k) {
        const T a = x[k] - center[k];
        q[k] = (ad::value_of(a) >= 0.0 ? a : -a) - half_extents[k];
        if (ad::value_of(q[k]) > 0.0) {
          ++n_out;
          last_out = k;
        }
        if (ad::value_of(q[k]) > ad::value_of(q[k_max])) k_max = k;
      }
      if (n_out == 0) return q[k_max];
      if (n_out == 1) return q[last_out];  // a face region: no square root
      T s = T(0.0);
      for (int k = 0; k < dim; ++k)
        if (ad::value_of(q[k]) > 0.0) s = s + q[k] * q[k];
      return sqrt(s);
    }
    case Shape::HeightField: {
      T h, hx, hz;
      detail::height_field(*this, x[0], dim == 3 ? x[2] : T(0.0), dim, h, hx, hz);
      return (x[1] - h) / sqrt(1.0 + hx * hx + hz * hz);
    }
  }
  return T(0.0);
}

template <class T>
void Obstacle::unit_normal(const T* x, int dim, T* n) const {
  using std::sqrt;
  switch (shape) {
    case Shape::HalfSpace:
      for (int k = 0; k < dim; ++k) n[k] = T(normal[k]);
      return;
    case Shape::Sphere: {
      T r[3] = {T(0.0), T(0.0), T(0.0)};
      for (int k = 0; k < dim; ++k) r[k] = x[k] - center[k];
      const T len = detail::vector_norm(r, dim);
      for (int k = 0; k < dim; ++k) n[k] = r[k] / len;
      return;
    }
    case Shape::Box: {
      T q[3] = {T(0.0), T(0.0), T(0.0)};
      double sign[3];
      int n_out = 0, k_max = 0;
      for (int k = 0; k < dim; ++k) {
        const T a = x[k] - center[k];
        sign[k] = ad::value_of(a) >= 0.0 ? 1.0 : -1.0;
        q[k] = sign[k] * a - half_extents[k];
        if (ad::value_of(q[k]) > 0.0) ++n_out;
        if (ad::value_of(q[k]) > ad::value_of(q[k_max])) k_max = k;
      }
      if (n_out <= 1) {
        for (int k = 0; k < dim; ++k) n[k] = T(k == k_max ? sign[k] : 0.0);
        return;
      }
      T s = T(0.0);
      for (int k = 0; k < dim; ++k)
        if (ad::value_of(q[k]) > 0.0) s = s + q[k] * q[k];
      const T len = sqrt(s);
      for (int k = 0; k < dim; ++k) n[k] = ad::value_of(q[k]) > 0.0 ? sign[k] * q[k] / len : T(0.0);
      return;
    }
    case Shape::HeightField: {
      T h, hx, hz;
      detail::height_field(*this, x[0], dim == 3 ? x[2] : T(0.0), dim, h, hx, hz);
      const T len = sqrt(1.0 + hx * hx + hz * hz);
      n[0] = -hx / len;
      n[1] = T(1.0) / len;
      if (dim == 3) n[2] = -hz / len;
      return;
    }
  }
}

inline double Obstacle::time_of_impact(const double* x, const double* dx, int dim) const {
  switch (shape) {
    case Shape::HalfSpace: {
      double d = 0.0, rate = 0.0;
      for (int k = 0; k < dim; ++k) {
        d += (x[k] - point[k]) * normal[k];
        rate += dx[k] * normal[k];
      }
      return rate < 0.0 && d + rate <= 0.0 ? std::max(0.0, d / -rate) : 1.0;
    }
    case Shape::Sphere: {
      // |r + t dx|^2 = R^2, r = x - c: the smaller root in [0, 1].
      double a = 0.0, b = 0.0, c = -radius * radius;
      for (int k = 0; k < dim; ++k) {
        const double r = x[k] - center[k];
        a += dx[k] * dx[k];
        b += 2.0 * r * dx[k];
        c += r * r;
      }
      const double disc = b * b - 4.0 * a * c;
      if (a == 0.0 || disc < 0.0) return 1.0;
      const double t = (-b - std::sqrt(disc)) / (2.0 * a);
      return t >= 0.0 && t <= 1.0 ? t : 1.0;
    }
    case Shape::Box: {
      // Slab test of the segment against the box.
      double t_in = 0.0, t_out = 1.0;
      for (int k = 0; k < dim; ++k) {
        const double lo = center[k] - half_extents[k], hi = center[k] + half_extents[k];
        if (dx[k] == 0.0) {
          if (x[k] < lo || x[k] > hi) return 1.0;
          continue;
        }
        double t0 = (lo - x[k]) / dx[k], t1 = (hi - x[k]) / dx[k];
        if (t0 > t1) std::swap(t0, t1);
        t_in = std::max(t_in, t0);
        t_out = std::min(t_out, t1);
        if (t_in > t_out) return 1.0;
      }
      return t_in;
    }
    case Shape::HeightField: {
      // March in 64 pieces, then bisect the first crossing.
      double p[3];
      const auto outside = [&](double t) {
        for (int k = 0; k < dim; ++k) p[k] = x[k] + t * dx[k];
        return distance(p, dim) > 0.0;
      };
      double prev = 0.0;
      for (int i = 1; i <= 64; ++i) {
        const double t = i / 64.0;
        if (outside(t)) {
          prev = t;
          continue;
        }
        double lo = prev, hi = t;
        for (int j = 0; j < 30; ++j) {
          const double mid = 0.5 * (lo + hi);
          (outside(mid) ? lo : hi) = mid;
        }
        return lo;
      }
      return 1.0;
    }
  }
  return 1.0;
}

}  // namespace softgrad
