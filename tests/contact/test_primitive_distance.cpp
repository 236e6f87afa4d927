// The primitive squared distances of IPC mesh contact (src/contact/primitive_distance.hpp):
// the classified distance against independent closed forms in long double and against sampled
// points of the primitives, the nearest feature pair chosen, and invariance under rigid motions
// and relabelling.
#include <doctest/doctest.h>

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "contact/primitive_distance.hpp"
#include "distance_test_support.hpp"

namespace softgrad::test {
namespace {

using namespace distance_support;
using LD = long double;
using LV = Eigen::Matrix<LD, 3, 1>;

V3 at(const Config& x, int i) { return V3(x[3 * i], x[3 * i + 1], x[3 * i + 2]); }
LV ld_at(const Config& x, int i, int dim = 3) {
  LV v = LV::Zero();
  for (int k = 0; k < dim; ++k) v[k] = x[dim * i + k];
  return v;
}

/// L^2 for the tolerances: the largest squared coordinate vector or extent.
double scale_sq(const Config& x, int n, int dim = 3) {
  double s = 1e-300;
  for (int i = 0; i < n; ++i) {
    const LV a = ld_at(x, i, dim);
    s = std::max(s, static_cast<double>(a.squaredNorm()));
    for (int j = 0; j < i; ++j)
      s = std::max(s, static_cast<double>((a - ld_at(x, j, dim)).squaredNorm()));
  }
  return s;
}

/// Rounding the inputs (|x| ~ L) moves a squared distance h^2 by about eps L h, below the sum
/// of these two terms; the fallback for parallel edges (|u x v|^2 < 1e-20 |u|^2 |v|^2) is off
/// by at most 1e-20 L^2.
double tolerance(double ref, double L2) { return 1e-10 * ref + 1e-20 * L2; }
bool agrees(double d, double ref, double L2) {
  const bool ok = std::abs(d - ref) <= tolerance(ref, L2);
  if (!ok) MESSAGE("distance " << d << " against " << ref << " (L^2 = " << L2 << ")");
  return ok;
}

// ---- Independent references in long double ----

/// Parameter of p's projection on the segment a b, unclamped (0 for a point segment).
LD segment_parameter(const LV& p, const LV& a, const LV& b) {
  const LV e = b - a;
  const LD ee = e.squaredNorm();
  return ee > 0 ? (p - a).dot(e) / ee : 0;
}
LD segment_sq(const LV& p, const LV& a, const LV& b) {
  const LD s = std::clamp<LD>(segment_parameter(p, a, b), 0, 1);
  return (p - a - s * (b - a)).squaredNorm();
}
/// Barycentric (a, b) of p's foot on the plane from the Gram system; false if degenerate.
/// `flat`: the least relative Gram determinant (sin^2 of the angle at t0) counted as a plane.
bool foot(const LV& p, const LV& t0, const LV& t1, const LV& t2, LD& a, LD& b, LD flat) {
  const LV e1 = t1 - t0, e2 = t2 - t0;
  const LD g11 = e1.dot(e1), g12 = e1.dot(e2), g22 = e2.dot(e2);
  const LD det = g11 * g22 - g12 * g12;
  if (!(det > flat * g11 * g22)) return false;
  // Newton from (0, 0) and twice more on the residual: the Gram system squares the
  // condition number, and its right-hand side cancels.
  a = b = 0;
  for (int it = 0; it < 3; ++it) {
    const LV r = p - t0 - a * e1 - b * e2;
    const LD r1 = e1.dot(r), r2 = e2.dot(r);
    a += (g22 * r1 - g12 * r2) / det;
    b += (g11 * r2 - g12 * r1) / det;
  }
  return true;
}
/// (s, t) of the lines' closest points from the normal equations; false if sin^2 of their angle
/// is below `parallel`.
bool closest_parameters(const LV& a0, const LV& a1, const LV& b0, const LV& b1, LD& s, LD& t,
                        LD parallel) {
  const LV u = a1 - a0, v = b1 - b0;
  const LD a = u.dot(u), b = u.dot(v), c = v.dot(v);
  const LD det = a * c - b * b;
  if (!(det > parallel * a * c)) return false;
  s = t = 0;  // Newton as in foot()
  for (int it = 0; it < 3; ++it) {
    const LV w = a0 + s * u - b0 - t * v;
    const LD d = u.dot(w), e = v.dot(w);
    s += (b * e - c * d) / det;
    t += (a * e - b * d) / det;
  }
  return true;
}

/// min over the triangle: the foot if inside, else the nearest of the three segments.
double point_triangle_reference(const Config& x) {
  const LV p = ld_at(x, 0), t0 = ld_at(x, 1), t1 = ld_at(x, 2), t2 = ld_at(x, 3);
  LD best = std::min({segment_sq(p, t0, t1), segment_sq(p, t1, t2), segment_sq(p, t2, t0)});
  LD a, b;
  if (foot(p, t0, t1, t2, a, b, 1e-24L) && a >= 0 && b >= 0 && a + b <= 1)
    best = std::min(best, (p - t0 - a * (t1 - t0) - b * (t2 - t0)).squaredNorm());
  return static_cast<double>(best);
}
/// min over [0,1]^2: the lines' closest points if inside, else the four end point - segment.
double edge_edge_reference(const Config& x) {
  const LV a0 = ld_at(x, 0), a1 = ld_at(x, 1), b0 = ld_at(x, 2), b1 = ld_at(x, 3);
  LD best = std::min({segment_sq(a0, b0, b1), segment_sq(a1, b0, b1), segment_sq(b0, a0, a1),
                      segment_sq(b1, a0, a1)});
  LD s, t;
  if (closest_parameters(a0, a1, b0, b1, s, t, 1e-24L) && s >= 0 && s <= 1 && t >= 0 && t <= 1)
    best = std::min(best, (a0 + s * (a1 - a0) - b0 - t * (b1 - b0)).squaredNorm());
  return static_cast<double>(best);
}
double point_edge_reference(const EdgeConfig& c) {
  return static_cast<double>(
      segment_sq(ld_at(c.x, 0, c.dim), ld_at(c.x, 1, c.dim), ld_at(c.x, 2, c.dim)));
}
// ---- Configurations, generic and nearly degenerate ----

std::vector<Config> point_triangle_configs(unsigned seed) {
  Random r(seed);
  std::vector<Config> out;
  for (int k = 0; k < 1400; ++k) {
    V3 t[3] = {r.point(), r.point(), r.point()};
    const V3 e1 = t[1] - t[0], e2 = t[2] - t[0], n = e1.cross(e2).normalized();
    const double h = kOffsets[r.index(5)];
    const int j = r.index(3);
    const V3 a = t[j], b = t[(j + 1) % 3];
    V3 p = r.point();
    switch (k % 7) {
      case 0:
        break;  // generic
      case 1:
        p = a + r.uniform(-0.2, 1.2) * (b - a) + h * r.unit();
        break;  // near an edge
      case 2:
        p = a + h * r.unit();
        break;  // near a vertex
      case 3:
        p = t[0] + r.uniform(-0.5, 1.5) * e1 + r.uniform(-0.5, 1.5) * e2;
        break;  // coplanar
      case 4:   // just above or below the triangle
        p = t[0] + r.uniform(-0.2, 1.0) * e1 + r.uniform(-0.2, 1.0) * e2 +
            (r.index(2) ? h : -h) * n;
        break;
      case 5:  // a sliver: the third vertex near the line of the others
        t[2] = t[0] + r.uniform(-0.5, 1.5) * e1 + std::max(h, 1e-12) * r.unit();
        p = t[0] + r.uniform(-0.2, 1.2) * e1 + 0.3 * r.point();
        if (r.index(2)) {  // above the sliver's interior: its plane is nearest
          const V3 f = t[2] - t[0], m = e1.cross(f).normalized();
          p = t[0] + r.uniform(0.1, 0.5) * e1 + r.uniform(0.1, 0.4) * f + r.uniform(0.01, 0.5) * m;
        }
        break;
      case 6: {  // exactly degenerate: collinear or coincident vertices
        const V3 d0 = r.dyadic(), d1 = r.dyadic();
        t[0] = d0;
        t[1] = d1;
        t[2] = r.index(2) ? V3(d0 + 0.5 * (d1 - d0)) : d0;
        p = r.index(2) ? r.dyadic() : V3(d0 + 0.25 * (d1 - d0));
        break;
      }
    }
    out.push_back(pack(p, t[0], t[1], t[2]));
  }
  return out;
}

std::vector<Config> edge_edge_configs(unsigned seed) {
  Random r(seed);
  constexpr double kAngles[] = {1e-2, 1e-4, 1e-6, 1e-8, 1e-10, 1e-13};
  std::vector<Config> out;
  for (int k = 0; k < 1400; ++k) {
    const V3 a0 = r.point();
    const V3 u = r.uniform(0.2, 2.0) * r.unit();
    const double h = kOffsets[r.index(5)];
    V3 b0 = r.point(), b1 = r.point();
    switch (k % 6) {
      case 0:
        break;   // generic
      case 1: {  // nearly parallel: the lines at a small angle, shifted along and apart
        const V3 axis = r.perpendicular(u);
        const double angle = kAngles[r.index(6)];
        const V3 v = r.uniform(0.2, 2.0) * (Eigen::AngleAxisd(angle, axis) * u.normalized());
        b0 = a0 + r.uniform(-1.5, 1.5) * u + h * r.perpendicular(u);
        b1 = b0 + (r.index(2) ? 1.0 : -1.0) * v;
        break;
      }
      case 2: {  // exactly parallel (and collinear), exact in double
        const V3 d0 = r.dyadic(), d1 = r.dyadic(), c0 = r.index(2) ? r.dyadic() : d0;
        constexpr double kFactors[] = {0.5, 1.0, -0.75, 2.0};
        out.push_back(pack(d0, d1, c0 + 0.25 * (d1 - d0), c0 + kFactors[r.index(4)] * (d1 - d0)));
        continue;
      }
      case 3: {  // coplanar, often crossing
        const V3 m = r.perpendicular(u);
        b0 = a0 + r.uniform(-0.5, 1.5) * u + r.uniform(-1, 1) * m;
        b1 = a0 + r.uniform(-0.5, 1.5) * u + r.uniform(-1, 1) * m;
        break;
      }
      case 4:  // an end point near the other edge
        b0 = a0 + r.uniform(-0.1, 1.1) * u + h * r.unit();
        break;
      case 5:  // zero-length edges
        b1 = b0;
        if (r.index(2)) {
          out.push_back(pack(a0, a0, b0, b1));
          continue;
        }
        break;
    }
    out.push_back(pack(a0, a0 + u, b0, b1));
  }
  return out;
}

}  // namespace

TEST_SUITE("contact geometry") {
  TEST_CASE(
      "primitive distance: point-triangle equals the closed form and no sampled point is nearer") {
    int seen[7] = {};
    for (const Config& x : point_triangle_configs(11)) {
      const double d = pt(x), L2 = scale_sq(x, 4);
      ++seen[static_cast<int>(pt_type(x))];
      CHECK(agrees(d, point_triangle_reference(x), L2));
      const V3 p = at(x, 0), t0 = at(x, 1), e1 = at(x, 2) - t0, e2 = at(x, 3) - t0;
      bool nearer = false;
      for (int i = 0; i <= 16; ++i)
        for (int j = 0; i + j <= 16; ++j) {
          const double s = (p - t0 - i / 16.0 * e1 - j / 16.0 * e2).squaredNorm();
          nearer = nearer || d > s + tolerance(s, L2);
        }
      CHECK_FALSE(nearer);
    }
    for (int t = 0; t < 7; ++t) CHECK(seen[t] > 10);
  }

  TEST_CASE("primitive distance: edge-edge equals the closed form and no sampled pair is nearer") {
    int seen[9] = {};
    for (const Config& x : edge_edge_configs(12)) {
      const double d = ee(x), L2 = scale_sq(x, 4);
      ++seen[static_cast<int>(ee_type(x))];
      CHECK(agrees(d, edge_edge_reference(x), L2));
      const V3 a0 = at(x, 0), u = at(x, 1) - a0, b0 = at(x, 2), v = at(x, 3) - b0;
      bool nearer = false;
      for (int i = 0; i <= 16; ++i)
        for (int j = 0; j <= 16; ++j) {
          const double s = (a0 + i / 16.0 * u - b0 - j / 16.0 * v).squaredNorm();
          nearer = nearer || d > s + tolerance(s, L2);
        }
      CHECK_FALSE(nearer);
    }
    for (int t = 0; t < 9; ++t) CHECK(seen[t] > 10);
  }

  TEST_CASE("primitive distance: point-edge in 2D and 3D equals the closed form") {
    int seen[2][3] = {};
    for (const EdgeConfig& c : point_edge_configs(13)) {
      ++seen[c.dim - 2][static_cast<int>(pe_type(c))];
      CHECK(agrees(pe(c), point_edge_reference(c), scale_sq(c.x, 3, c.dim)));
    }
    for (int d = 0; d < 2; ++d)
      for (int t = 0; t < 3; ++t) CHECK(seen[d][t] > 10);
  }

  TEST_CASE("primitive distance: the classification picks the nearest feature pair") {
    // Every candidate whose closest points lie in its features (by the long double references'
    // own tests) is at least as far as the chosen one, and the chosen one is such a candidate
    // (up to rounding at its region's boundary, which for an interior type grows as 1 / sin^2 of
    // the triangle's angle or the edges' angle). Interior candidates count where their plane or
    // crossing is well defined (sin^2 > 1e-16).
    const auto sin_sq = [](const LV& u, const LV& v) {
      return u.cross(v).squaredNorm() / std::max(u.squaredNorm() * v.squaredNorm(), 1e-300L);
    };
    for (const Config& x : point_triangle_configs(21)) {
      const LV p = ld_at(x, 0), t[3] = {ld_at(x, 1), ld_at(x, 2), ld_at(x, 3)};
      const double L2 = scale_sq(x, 4);
      LD a = 0, b = 0;
      const bool planar = foot(p, t[0], t[1], t[2], a, b, 1e-24L);
      const LD angle = sin_sq(t[1] - t[0], t[2] - t[0]);
      const bool sharp = angle > 1e-16L;
      const auto valid = [&](PTType type, bool chosen) {
        const LD slack = chosen ? 1e-8L + (type == PTType::P_T ? 1e-15L / angle : 0) : 0;
        const int k = static_cast<int>(type);
        if (k <= 2) return true;
        if (k <= 5) {
          const LV& e0 = t[k - 3];
          const LV& e1 = t[(k - 2) % 3];
          const LD s = segment_parameter(p, e0, e1);
          return (e1 - e0).squaredNorm() > 0 && s > -slack && s < 1 + slack;
        }
        return planar && (chosen || sharp) && a > -slack && b > -slack && a + b < 1 + slack;
      };
      const PTType chosen = pt_type(x);
      const double d = pt(x, chosen);
      INFO("chosen type " << static_cast<int>(chosen));
      CHECK(valid(chosen, true));
      for (PTType type : kPTTypes)
        if (valid(type, false)) CHECK(d <= pt(x, type) + tolerance(pt(x, type), L2));
    }
    int parallel = 0;
    for (const Config& x : edge_edge_configs(22)) {
      const LV a0 = ld_at(x, 0), a1 = ld_at(x, 1), b0 = ld_at(x, 2), b1 = ld_at(x, 3);
      const double L2 = scale_sq(x, 4);
      LD s = 0, t = 0;
      const bool crossing = closest_parameters(a0, a1, b0, b1, s, t, 1e-24L);
      const LD angle = sin_sq(a1 - a0, b1 - b0);
      const bool sharp = angle > 1e-16L;
      const auto inside = [](const LV& p, const LV& e0, const LV& e1, LD slack) {
        const LD r = segment_parameter(p, e0, e1);
        return (e1 - e0).squaredNorm() > 0 && r > -slack && r < 1 + slack;
      };
      const auto valid = [&](EEType type, bool chosen) {
        const LD slack = chosen ? 1e-8L + (type == EEType::EA_EB ? 1e-15L / angle : 0) : 0;
        switch (type) {
          case EEType::EA_EB0:
            return inside(b0, a0, a1, slack);
          case EEType::EA_EB1:
            return inside(b1, a0, a1, slack);
          case EEType::EA0_EB:
            return inside(a0, b0, b1, slack);
          case EEType::EA1_EB:
            return inside(a1, b0, b1, slack);
          case EEType::EA_EB:
            return crossing && (chosen || sharp) && s > -slack && s < 1 + slack && t > -slack &&
                   t < 1 + slack;
          default:
            return true;
        }
      };
      const EEType chosen = ee_type(x);
      const double d = ee(x, chosen);
      INFO("chosen type " << static_cast<int>(chosen));
      CHECK(valid(chosen, true));
      for (EEType type : kEETypes)
        if (valid(type, false)) CHECK(d <= ee(x, type) + tolerance(ee(x, type), L2));
      // (Nearly) parallel edges fall back to the boundary types.
      if (sin_sq(a1 - a0, b1 - b0) < 1e-21L) {
        ++parallel;
        CHECK(chosen != EEType::EA_EB);
      }
    }
    CHECK(parallel > 50);
    for (const EdgeConfig& c : point_edge_configs(23)) {
      const double d = pe(c, pe_type(c)), L2 = scale_sq(c.x, 3, c.dim);
      const LD r =
          segment_parameter(ld_at(c.x, 0, c.dim), ld_at(c.x, 1, c.dim), ld_at(c.x, 2, c.dim));
      for (PEType type : kPETypes)
        if (type != PEType::P_E || (r > 0 && r < 1))
          CHECK(d <= pe(c, type) + tolerance(pe(c, type), L2));
    }
  }

  TEST_CASE("primitive distance: invariant under rigid motions and relabelling") {
    Random r(61);
    const auto moved = [](const Config& x, int n, const Eigen::Matrix3d& R, const V3& shift) {
      Config y = x;
      for (int i = 0; i < n; ++i) {
        const V3 q = R * at(x, i) + shift;
        for (int k = 0; k < 3; ++k) y[3 * i + k] = q[k];
      }
      return y;
    };
    const auto rotation = [&r] { return Eigen::AngleAxisd(r.uniform(0, 6.3), r.unit()).matrix(); };
    for (const Config& x : point_triangle_configs(62)) {
      const double d = pt(x);
      const double L2 = scale_sq(x, 4) + 3.0;  // |shift|^2 <= 3 enters the rounding
      CHECK(agrees(pt(moved(x, 4, rotation(), r.point())), d, L2));
      const V3 p = at(x, 0), t0 = at(x, 1), t1 = at(x, 2), t2 = at(x, 3);
      CHECK(agrees(pt(pack(p, t1, t2, t0)), d, L2));
      CHECK(agrees(pt(pack(p, t2, t0, t1)), d, L2));
      CHECK(agrees(pt(pack(p, t0, t2, t1)), d, L2));  // the opposite orientation
    }
    for (const Config& x : edge_edge_configs(63)) {
      const double d = ee(x);
      const double L2 = scale_sq(x, 4) + 3.0;
      CHECK(agrees(ee(moved(x, 4, rotation(), r.point())), d, L2));
      const V3 a0 = at(x, 0), a1 = at(x, 1), b0 = at(x, 2), b1 = at(x, 3);
      CHECK(agrees(ee(pack(b0, b1, a0, a1)), d, L2));
      CHECK(agrees(ee(pack(a1, a0, b1, b0)), d, L2));
    }
    for (const EdgeConfig& c : point_edge_configs(64)) {
      if (c.dim == 3) {
        const double d = pe(c);
        const double L2 = scale_sq(c.x, 3) + 3.0;
        CHECK(agrees(pe(EdgeConfig{moved(c.x, 3, rotation(), r.point()), 3}), d, L2));
      }
      EdgeConfig swapped = c;
      for (int i = 0; i < c.dim; ++i) std::swap(swapped.x[c.dim + i], swapped.x[2 * c.dim + i]);
      CHECK(agrees(pe(swapped), pe(c), scale_sq(c.x, 3, c.dim)));
    }
  }
}

}  // namespace softgrad::test
