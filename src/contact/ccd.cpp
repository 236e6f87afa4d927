// Additive continuous collision detection (ACCD) between points, segments and triangles on linear
// trajectories, with the unsigned distances it steps by (accurate to rounding of the coordinates).
#include "ccd.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "softgrad/errors.hpp"

namespace softgrad::collision {
namespace {

template <int D>
double dot(const double* a, const double* b) {
  double s = 0.0;
  for (int i = 0; i < D; ++i) s += a[i] * b[i];
  return s;
}

template <int D>
void sub(const double* a, const double* b, double* r) {
  for (int i = 0; i < D; ++i) r[i] = a[i] - b[i];
}

/// |p - (a + t (b - a))|^2 with t the clamped projection: the closest point of the segment.
template <int D>
double point_segment_sq(const double* p, const double* a, const double* b) {
  double e[D], r[D];
  sub<D>(b, a, e);
  sub<D>(p, a, r);
  const double ee = dot<D>(e, e);
  double t = 0.0;
  if (ee > 0.0) t = std::clamp(dot<D>(r, e) / ee, 0.0, 1.0);
  double s = 0.0;
  for (int i = 0; i < D; ++i) {
    const double q = r[i] - t * e[i];
    s += q * q;
  }
  return s;
}

/// The triangle's plane, when the projection of p falls inside it, else its edges. The plane is
/// reached through the components perpendicular to the longest edge (a, b): the distance and the
/// inside test then lose no digits to the point's position along that edge, and a sliver's
/// (whose normal a cross product gets wrong by rounding / width) only to its width.
double point_triangle_sq(const double* p, const double* v0, const double* v1, const double* v2) {
  const double* const v[3] = {v0, v1, v2};
  double len[3];
  for (int k = 0; k < 3; ++k) {
    double e[3];
    sub<3>(v[(k + 1) % 3], v[k], e);
    len[k] = dot<3>(e, e);
  }
  const int k = static_cast<int>(std::max_element(len, len + 3) - len);
  const double *a = v[k], *b = v[(k + 1) % 3], *c = v[(k + 2) % 3];
  const double E = len[k];
  const double edges = std::min(
      {point_segment_sq<3>(p, a, b), point_segment_sq<3>(p, b, c), point_segment_sq<3>(p, c, a)});
  if (!(E > 0.0)) return edges;  // all three vertices coincide
  double e[3], r[3], f[3], rp[3], fp[3];
  sub<3>(b, a, e);
  sub<3>(p, a, r);
  sub<3>(c, a, f);
  const double x = dot<3>(r, e) / E, xc = dot<3>(f, e) / E;  // along (a, b): a 0, b 1
  for (int i = 0; i < 3; ++i) {
    rp[i] = r[i] - x * e[i];
    fp[i] = f[i] - xc * e[i];
  }
  const double ff = dot<3>(fp, fp);
  if (!(ff > 0.0)) return edges;         // collinear
  const double y = dot<3>(rp, fp) / ff;  // across: (a, b) 0, c 1
  // In the plane's coordinates (x, y) the triangle is (0, 0), (1, 0), (xc, 1).
  if (y < 0.0 || y > 1.0 || x < y * xc || x > 1.0 + y * (xc - 1.0)) return edges;
  double h = 0.0;
  for (int i = 0; i < 3; ++i) {
    const double hi = rp[i] - y * fp[i];
    h += hi * hi;
  }
  return std::min(h, edges);
}

/// On segment (a0, a0 + ea), the point closest to the line (b0, b0 + eb), clamped to the segment,
/// against segment b: its squared distance. The parameter comes from the components
/// perpendicular to eb (not from the normal equations, whose determinant |ea|^2 |eb|^2 sin^2
/// loses all its digits for nearly parallel segments): accurate to rounding of the coordinates
/// when the closest points are interior, however small the angle.
double closest_to_line_sq(const double* a0, const double* ea, const double* b0, const double* b1,
                          const double* eb) {
  double r[3], rp[3], ep[3];
  sub<3>(a0, b0, r);
  const double C = dot<3>(eb, eb);
  const double kr = C > 0.0 ? dot<3>(r, eb) / C : 0.0, ke = C > 0.0 ? dot<3>(ea, eb) / C : 0.0;
  for (int i = 0; i < 3; ++i) {
    rp[i] = r[i] - kr * eb[i];
    ep[i] = ea[i] - ke * eb[i];
  }
  const double ee = dot<3>(ep, ep);
  if (!(ee > 0.0)) return INFINITY;  // parallel (or a point): the endpoints decide
  const double s = std::clamp(-dot<3>(rp, ep) / ee, 0.0, 1.0);
  double pa[3];
  for (int i = 0; i < 3; ++i) pa[i] = a0[i] + s * ea[i];
  return point_segment_sq<3>(pa, b0, b1);
}

double segment_segment_sq(const double* a0, const double* a1, const double* b0, const double* b1) {
  double ea[3], eb[3];
  sub<3>(a1, a0, ea);
  sub<3>(b1, b0, eb);
  // The minimum over the parameter square is on one of its sides (an endpoint against the other
  // segment) or inside it, where each segment's point is the one closest to the other line.
  // Every candidate is the distance of a pair of points of the two segments.
  return std::min({point_segment_sq<3>(a0, b0, b1), point_segment_sq<3>(a1, b0, b1),
                   point_segment_sq<3>(b0, a0, a1), point_segment_sq<3>(b1, a0, a1),
                   closest_to_line_sq(a0, ea, b0, b1, eb), closest_to_line_sq(b0, eb, a0, a1, ea)});
}

/// Initial distances (beyond the thickness) below this times the largest coordinate count as
/// contact: the distances are accurate to about 1e-15 of the coordinates.
constexpr double kRoundingFloor = 1e-13;

/// Vertex k of a configuration (an array of pointers or of rows).
template <class X>
const double* row(const X& x, int k) {
  return &x[k][0];
}

/// max_i |d_i - mean| over a primitive's displacements.
template <int D>
double max_relative_displacement(const double* const* d, int n, const double* mean) {
  double m = 0.0;
  for (int k = 0; k < n; ++k) {
    double r[D];
    sub<D>(d[k], mean, r);
    m = std::max(m, dot<D>(r, r));
  }
  return std::sqrt(m);
}

void check_options(double thickness, double conservative_rescaling, int max_iterations) {
  if (!(thickness >= 0.0) || !std::isfinite(thickness) || !(conservative_rescaling > 0.0) ||
      !(conservative_rescaling < 1.0) || max_iterations < 1) {
    std::ostringstream msg;
    msg << "CCD: thickness must be finite and >= 0 (got " << thickness
        << "), conservative_rescaling in (0, 1) (got " << conservative_rescaling
        << ") and max_iterations >= 1 (got " << max_iterations << ")";
    throw InputError(msg.str());
  }
}

/// The primitives' vertices (N of dimension D, the first NA one primitive's): positions and
/// displacements, the configuration at time t, its distance and the bound l_p.
template <int D, int N, int NA, class Distance>
double additive_ccd(const double* const (&x0)[N], const double* const (&dx)[N], Distance distance,
                    double thickness, double s, int max_iterations) {
  check_options(thickness, s, max_iterations);
  for (int k = 0; k < N; ++k)
    for (int i = 0; i < D; ++i)
      if (!std::isfinite(x0[k][i]) || !std::isfinite(dx[k][i])) return 0.0;
  double mean[D] = {};
  for (int k = 0; k < N; ++k)
    for (int i = 0; i < D; ++i) mean[i] += dx[k][i];
  for (int i = 0; i < D; ++i) mean[i] /= N;
  const double lp = max_relative_displacement<D>(dx, NA, mean) +
                    max_relative_displacement<D>(dx + NA, N - NA, mean);

  // The distance at x0 + t dx, the configuration a caller forms (not a sum of steps).
  double x[N][D];
  auto distance_at = [&](double t) {
    for (int k = 0; k < N; ++k)
      for (int i = 0; i < D; ++i) x[k][i] = x0[k][i] + t * dx[k][i];
    return distance(x);
  };
  // Distances within rounding of the coordinates (the functions above are accurate to a few
  // ulps of them) are contact: the gap the steps keep must stay well above that rounding.
  double scale = 0.0;
  for (int k = 0; k < N; ++k)
    for (int i = 0; i < D; ++i)
      scale = std::max({scale, std::abs(x0[k][i]), std::abs(x0[k][i] + dx[k][i])});
  const double d0 = distance(x0);
  if (!(d0 - thickness > kRoundingFloor * scale)) return 0.0;
  if (!(lp > 0.0)) return lp == 0.0 ? 1.0 : 0.0;
  if (!std::isfinite(lp)) return 0.0;
  const double gap = (1.0 - s) * (d0 - thickness);
  double t = 0.0, d = d0;
  for (int it = 0; it < max_iterations; ++it) {
    const double step = s * (d - thickness) / lp;
    const double next = t + step;
    if (next >= 1.0) {
      // [t, 1] is safe; from t = 0 the first step's bound holds at 1, later the gap is checked.
      if (t == 0.0) return 1.0;
      return distance_at(1.0) - thickness >= gap ? 1.0 : t;
    }
    if (!(next > t)) return t;  // the step is below t's rounding: no progress is possible
    d = distance_at(next);
    // The first step is safe by the bound alone (its end lies at gap + thickness in exact
    // arithmetic); later steps stop before the distance falls under the gap.
    if (t > 0.0 ? d - thickness < gap : !(d > thickness)) return t;
    t = next;
  }
  return t;
}

}  // namespace

double point_segment_distance(const double* p, const double* e0, const double* e1, int dim) {
  return std::sqrt(dim == 2 ? point_segment_sq<2>(p, e0, e1) : point_segment_sq<3>(p, e0, e1));
}

double point_triangle_distance(const double* p, const double* t0, const double* t1,
                               const double* t2) {
  return std::sqrt(point_triangle_sq(p, t0, t1, t2));
}

double segment_segment_distance(const double* ea0, const double* ea1, const double* eb0,
                                const double* eb1) {
  return std::sqrt(segment_segment_sq(ea0, ea1, eb0, eb1));
}

double point_triangle_ccd(const double* p, const double* t0, const double* t1, const double* t2,
                          const double* dp, const double* dt0, const double* dt1, const double* dt2,
                          double thickness, double conservative_rescaling, int max_iterations) {
  const double* const x0[4] = {p, t0, t1, t2};
  const double* const dx[4] = {dp, dt0, dt1, dt2};
  auto distance = [](const auto& x) {
    return std::sqrt(point_triangle_sq(row(x, 0), row(x, 1), row(x, 2), row(x, 3)));
  };
  return additive_ccd<3, 4, 1>(x0, dx, distance, thickness, conservative_rescaling, max_iterations);
}

double edge_edge_ccd(const double* ea0, const double* ea1, const double* eb0, const double* eb1,
                     const double* dea0, const double* dea1, const double* deb0, const double* deb1,
                     double thickness, double conservative_rescaling, int max_iterations) {
  const double* const x0[4] = {ea0, ea1, eb0, eb1};
  const double* const dx[4] = {dea0, dea1, deb0, deb1};
  auto distance = [](const auto& x) {
    return std::sqrt(segment_segment_sq(row(x, 0), row(x, 1), row(x, 2), row(x, 3)));
  };
  return additive_ccd<3, 4, 2>(x0, dx, distance, thickness, conservative_rescaling, max_iterations);
}

double point_edge_ccd_2d(const double* p, const double* e0, const double* e1, const double* dp,
                         const double* de0, const double* de1, double thickness,
                         double conservative_rescaling, int max_iterations) {
  const double* const x0[3] = {p, e0, e1};
  const double* const dx[3] = {dp, de0, de1};
  auto distance = [](const auto& x) {
    return std::sqrt(point_segment_sq<2>(row(x, 0), row(x, 1), row(x, 2)));
  };
  return additive_ccd<2, 3, 1>(x0, dx, distance, thickness, conservative_rescaling, max_iterations);
}

double point_edge_ccd(const double* p, const double* e0, const double* e1, const double* dp,
                      const double* de0, const double* de1, double thickness,
                      double conservative_rescaling, int max_iterations) {
  const double* const x0[3] = {p, e0, e1};
  const double* const dx[3] = {dp, de0, de1};
  auto distance = [](const auto& x) {
    return std::sqrt(point_segment_sq<3>(row(x, 0), row(x, 1), row(x, 2)));
  };
  return additive_ccd<3, 3, 1>(x0, dx, distance, thickness, conservative_rescaling, max_iterations);
}

double point_point_ccd(const double* p, const double* q, const double* dp, const double* dq,
                       int dim, double thickness, double conservative_rescaling,
                       int max_iterations) {
  const double* const x0[2] = {p, q};
  const double* const dx[2] = {dp, dq};
  auto distance2 = [](const auto& x) {
    double r[2];
    sub<2>(row(x, 0), row(x, 1), r);
    return std::sqrt(dot<2>(r, r));
  };
  auto distance3 = [](const auto& x) {
    double r[3];
    sub<3>(row(x, 0), row(x, 1), r);
    return std::sqrt(dot<3>(r, r));
  };
  if (dim == 2)
    return additive_ccd<2, 2, 1>(x0, dx, distance2, thickness, conservative_rescaling,
                                 max_iterations);
  if (dim != 3)
    throw InputError("CCD: point_point_ccd needs dim 2 or 3, got " + std::to_string(dim));
  return additive_ccd<3, 2, 1>(x0, dx, distance3, thickness, conservative_rescaling,
                               max_iterations);
}

}  // namespace softgrad::collision
